#![allow(clippy::unwrap_used)]
use super::*;
use crate::sim::scenario::built_in;

/// The scenario at `t1_ms`, and its cluster at `t0_ms`.
fn states(name: &str, t0_ms: u64, t1_ms: u64) -> (crate::cluster::Cluster, Simulator) {
    let sc = built_in(name).unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(t0_ms);
    let before = sim.cluster.clone();
    sim.run_until(t1_ms);
    (before, sim)
}

fn docs(sim: &Simulator, c: usize) -> u64 {
    (sim.cluster.collections[c].table.iter())
        .map(|ch| ch.info.stats.docs)
        .sum()
}

/// The documents a fork of `sim` with `g`'s inserts gains in 10 s.
fn inserted_in_10_s(sim: &Simulator, g: &Growth) -> u64 {
    let mut fork = Simulator::over(sim.cluster.clone());
    apply(&mut fork, 0, g).unwrap();
    let at = docs(&fork, 0);
    fork.run_until(fork.now_ms() + 10_000);
    docs(&fork, 0) - at
}

#[test]
fn a_scenario_s_growth_is_its_insert_rate_and_a_fork_continues_it() {
    // `random`: 200 inserts a second of 60-byte documents, `x` a uniform Double.
    let (before, sim) = states("random", 10_000, 40_000);
    let then = before.collection("test.random").unwrap();
    let g = growth(then, &sim.cluster.collections[0], 30_000);
    assert_eq!((g.docs, g.bytes), (6_000, 6_000 * 60));
    assert!((g.ranges.iter().map(|r| r.2).sum::<f64>() - 6_000.0).abs() < 1e-9);
    assert_eq!(inserted_in_10_s(&sim, &g), 2_000, "200 a second for 10 s");
}

#[test]
fn a_fork_inserts_only_where_the_key_space_grew() {
    // `ascending`: ObjectIds in time order, so only the top of the key space grows.
    let (before, sim) = states("ascending", 60_000, 120_000);
    let g = growth(
        before.collection("app.events").unwrap(),
        &sim.cluster.collections[0],
        60_000,
    );
    assert!(g.docs > 0 && !g.ranges.is_empty(), "{g:?}");
    let grown = |k: &ShardKey| g.ranges.iter().any(|(lo, hi, _)| k >= lo && k < hi);
    let mut fork = Simulator::over(sim.cluster.clone());
    apply(&mut fork, 0, &g).unwrap();
    let table = |s: &Simulator| {
        (s.cluster.collections[0].table.iter())
            .map(|ch| (ch.min.clone(), ch.info.stats.docs))
            .collect::<Vec<_>>()
    };
    let at = table(&fork);
    fork.run_until(fork.now_ms() + 5_000);
    assert!(docs(&fork, 0) > at.iter().map(|c| c.1).sum::<u64>());
    // Every chunk that gained documents starts in a range that grew (or splits one that did).
    for (min, n) in table(&fork) {
        let was = at.iter().find(|c| c.0 == min).map_or(0, |c| c.1);
        assert!(
            n <= was || grown(&min),
            "{min:?} gained {} outside {:?}",
            n - was,
            g.ranges
        );
    }
}

#[test]
fn a_hashed_key_s_inserts_spread_over_the_hashed_values() {
    let (before, sim) = states("hashed", 10_000, 40_000);
    let g = growth(
        before.collection("app.users").unwrap(),
        &sim.cluster.collections[0],
        30_000,
    );
    assert_eq!(g.docs, 3_000);
    assert_eq!(inserted_in_10_s(&sim, &g), 1_000);
}

#[test]
fn a_live_session_s_growth_is_the_difference_of_its_totals_placed_by_the_heat_source() {
    let (before, sim) = states("random", 10_000, 40_000);
    let then = Totals::of(&before);
    let per_shard = then.by_ns.get("test.random").unwrap();
    let coll = &sim.cluster.collections[0];
    let (g, placed) = growth_by_shard(per_shard, &sim.cluster, coll, 30_000);
    assert_eq!(
        (g.docs, g.bytes, placed),
        (6_000, 6_000 * 60, Placed::ByHeat)
    );
    // The heat window holds the last 60 s of writes, each range one chunk written to.
    assert!(g.ranges.iter().all(|r| r.2 > 0.0) && !g.ranges.is_empty());
    assert_eq!(inserted_in_10_s(&sim, &g), 2_000, "200 a second for 10 s");
}

#[test]
fn without_heat_each_shard_s_growth_is_spread_over_its_own_chunks() {
    let (before, mut sim) = states("ascending", 60_000, 120_000);
    let then = Totals::of(&before);
    sim.cluster.collections[0].window = crate::cluster::window::WriteWindow::new();
    let per_shard = then.by_ns.get("app.events").unwrap().clone();
    let coll = &sim.cluster.collections[0];
    let (g, placed) = growth_by_shard(&per_shard, &sim.cluster, coll, 60_000);
    assert_eq!(placed, Placed::ByShard);
    let grew = |shard: &str| {
        let i = sim
            .cluster
            .shards
            .iter()
            .position(|s| s.shard.id == shard)
            .unwrap();
        let now = coll.table.shard_totals(ShardIdx(i as u32)).stats.docs;
        let was = per_shard.iter().find(|t| t.0 == shard).map_or(0, |t| t.1);
        now.saturating_sub(was)
    };
    let positive: u64 = sim.cluster.shards.iter().map(|s| grew(&s.shard.id)).sum();
    let spread: f64 = g.ranges.iter().map(|r| r.2).sum();
    assert!(positive > 0 && (spread - positive as f64).abs() < 1e-6 * positive as f64);
    // Every chunk inside a range belongs to a shard that grew.
    for ch in coll.table.iter() {
        if g.ranges
            .iter()
            .any(|(lo, hi, _)| ch.min >= lo && ch.min < hi)
        {
            let id = &sim.cluster.shards[ch.info.shard.index()].shard.id;
            assert!(grew(id) > 0, "{id} did not grow");
        }
    }
}
