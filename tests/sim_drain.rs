//! removeShard: draining round by round, a jumbo chunk blocking completion, refusals.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::EventKind;
use shardtop::cluster::SummaryOptions;
use shardtop::model::ShardIdx;
use shardtop::sim::drain::RemoveShardState;
use shardtop::sim::{Simulator, scenario};

fn start(name: &str) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    Simulator::from_scenario(&sc, sc.seed, None).unwrap()
}

#[test]
fn a_drain_moves_chunks_round_by_round_and_a_jumbo_chunk_blocks_it() {
    let mut sim = start("drain");
    sim.run_until(299_000);
    let drains: Vec<u64> = sim
        .take_events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::MigrationStarted { reason, .. } if reason.is_drain() => Some(e.at_ms),
            _ => None,
        })
        .collect();
    assert!(
        drains.len() >= 3 && drains.windows(2).all(|w| w[1] > w[0]),
        "one drain migration per round: {drains:?}"
    );
    let shard = ShardIdx(3);
    assert!(sim.cluster.shards[3].shard.draining, "still draining");
    assert_eq!(
        sim.owned_chunks(shard),
        (1, 1),
        "only the jumbo chunk is left"
    );
    assert!(
        sim.cluster
            .balancer
            .why_not
            .iter()
            .any(|w| w.contains("only jumbo chunks")),
        "{:?}",
        sim.cluster.balancer.why_not
    );
    assert_eq!(
        sim.remove_shard("shard0003").unwrap(),
        RemoveShardState::Ongoing {
            chunks: 1,
            jumbo: 1
        }
    );

    sim.run_until(400_000);
    assert!(
        sim.cluster.shards[3].removed,
        "removed once the jumbo chunk was moved by force"
    );
    let json = sim.cluster.summary_json(&SummaryOptions {
        source: "x".into(),
        chunks: false,
        writes_unknown: false,
    });
    let ids: Vec<&str> = json["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["shard0000", "shard0001", "shard0002"]);
    assert_eq!(sim.cluster.collections[0].table.check_invariants(), Ok(()));
    assert!(
        sim.cluster.collections[0]
            .table
            .iter()
            .all(|c| !c.info.jumbo),
        "forceJumbo cleared the flag"
    );
}

#[test]
fn remove_shard_refuses_the_last_shard_and_a_second_drain() {
    let mut sim = start("drain");
    assert_eq!(
        sim.remove_shard("shard0003").unwrap(),
        RemoveShardState::Started
    );
    assert_eq!(
        sim.remove_shard("shard0002").unwrap_err().code_name,
        "ConflictingOperationInProgress"
    );
    assert_eq!(
        sim.remove_shard("nope").unwrap_err().code_name,
        "ShardNotFound"
    );
    let sc = scenario::parse(r#"{"name": "one", "description": "d", "seedPassage": "p", "shards": 1, "collections": [], "until": 1}"#).unwrap();
    let mut one = Simulator::from_scenario(&sc, 1, None).unwrap();
    assert_eq!(
        one.remove_shard("shard0000").unwrap_err().code_name,
        "IllegalOperation"
    );
}
