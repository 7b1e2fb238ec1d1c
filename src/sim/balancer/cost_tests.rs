//! A migration's time: its donor's cost model where the simulator has one (a calibrated fork),
//! else the settings' cluster-wide one.

#![allow(clippy::unwrap_used)]
use super::MigrationCost;
use crate::model::ShardIdx;
use crate::sim::Simulator;
use crate::sim::scenario::built_in;

/// `add-shard` at 20 s, its writes done, the balancer stopped and no migration in flight.
fn quiet() -> Simulator {
    let sc = built_in("add-shard").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(20_000);
    sim.set_balancer(false);
    settle(&mut sim);
    sim
}

/// Runs until no migration is in flight (within an hour of virtual time).
fn settle(sim: &mut Simulator) {
    let end = sim.now_ms() + 3_600_000;
    while !sim.cluster.balancer.in_flight.is_empty() && sim.now_ms() < end {
        sim.run_until(sim.now_ms() + 1_000);
    }
    assert!(sim.cluster.balancer.in_flight.is_empty());
}

/// Moves the biggest chunk on shard `from` to shard `to` (`forceJumbo`: the scenario's chunks
/// are over the size limit): its bytes and its migration's time.
fn moved(sim: &mut Simulator, from: u32, to: u32) -> (u64, u64) {
    let coll = &sim.cluster.collections[0];
    let i = (0..coll.table.len())
        .filter(|&i| coll.table.chunk(i).info.shard == ShardIdx(from))
        .max_by_key(|&i| coll.table.chunk(i).info.stats.bytes)
        .unwrap();
    let (ns, key) = (coll.ns.clone(), coll.table.chunk(i).min.clone());
    let to = sim.cluster.shard_id(ShardIdx(to)).to_string();
    sim.move_chunk_forced(&ns, &key, &to).unwrap();
    let m = sim.cluster.balancer.in_flight.last().unwrap();
    let took = (m.bytes.unwrap(), m.finish_ms - m.started_ms);
    settle(sim);
    took
}

#[test]
fn a_migration_takes_its_donors_cost_model_and_the_others_the_cluster_wide_one() {
    let mut sim = quiet();
    let own = MigrationCost {
        overhead_ms: 700,
        bytes_per_sec: 1 << 20,
    };
    let donor = sim.cluster.shard_id(ShardIdx(0)).to_string();
    sim.migration_cost_by_donor.insert(donor, own);
    let (bytes, ms) = moved(&mut sim, 0, 1);
    assert!(bytes > 0);
    assert_eq!(ms, 700 + bytes * 1000 / (1 << 20));
    let set = &sim.cluster.settings;
    let (overhead, rate) = (set.migration_overhead_ms, set.migration_bytes_per_sec);
    assert_ne!((overhead, rate), (own.overhead_ms, own.bytes_per_sec));
    let (bytes, ms) = moved(&mut sim, 2, 1);
    assert!(bytes > 0);
    assert_eq!(ms, overhead + bytes * 1000 / rate);
}
