//! Properties of the simulator over generated scenarios: documents are conserved, routing-table
//! invariants hold after every tick, a shard is in at most one migration, the same seed gives the
//! same run.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use shardtop::cluster::SummaryOptions;
use shardtop::model::{ChunkStats, ShardIdx};
use shardtop::sim::{Simulator, scenario};

const VERSIONS: [&str; 5] = ["4.4", "5.0", "6.0", "7.0", "8.0"];

fn key_and_fields(kind: usize) -> (&'static str, &'static str) {
    match kind {
        0 => (r#"{"_id": 1}"#, r#"{"_id": {"objectId": {}}}"#),
        1 => (r#"{"x": 1}"#, r#"{"x": {"uniform": {"min": 0, "max": 1}}}"#),
        2 => (
            r#"{"u": "hashed"}"#,
            r#"{"u": {"randomString": {"length": 6}}}"#,
        ),
        3 => (
            r#"{"c": 1}"#,
            r#"{"c": {"choice": {"values": ["a", "b", "c", "d"], "weights": [5, 2, 2, 1]}}}"#,
        ),
        4 => (
            r#"{"c": 1, "n": 1}"#,
            r#"{"c": {"choice": {"values": [1, 2, 3]}}, "n": {"sequence": {}}}"#,
        ),
        _ => (
            r#"{"r": 1, "h": "hashed"}"#,
            r#"{"r": {"choice": {"values": ["EU", "US"]}}, "h": {"uuid": {}}}"#,
        ),
    }
}

fn scenario_text(
    version: &str,
    shards: u32,
    kind: usize,
    rate: u32,
    doc: u32,
    with_actions: bool,
) -> String {
    let (key, fields) = key_and_fields(kind);
    let find = match kind {
        0 => r#"{"_id": {"$oid": "6955b905c2c636f1a3e23d64"}}"#,
        1 => r#"{"x": 0.5}"#,
        2 => r#"{"u": "abc"}"#,
        3 => r#"{"c": "a"}"#,
        4 => r#"{"c": 2, "n": 10}"#,
        _ => r#"{"r": "EU", "h": 1}"#,
    };
    let actions = if with_actions {
        format!(
            r#"[{{"at": 12, "do": {{"splitFind": {{"ns": "db.c", "find": {find}}}}}}},
               {{"at": 20, "do": {{"moveChunk": {{"ns": "db.c", "find": {find}, "to": "shard0000"}}}}}},
               {{"at": 25, "do": {{"balancerStop": {{}}}}}},
               {{"at": 35, "do": {{"addShard": {{"id": "extra"}}}}}},
               {{"at": 40, "do": {{"balancerStart": {{}}}}}}]"#
        )
    } else {
        "[]".into()
    };
    format!(
        r#"{{"name": "prop", "description": "d", "seedPassage": "p", "serverVersion": "{version}",
            "shards": {shards}, "chunkSizeMb": 1,
            "collections": [{{"ns": "db.c", "key": {key}}}],
            "workloads": [{{"ns": "db.c", "rate": {rate}, "count": 20000, "docSize": {{"min": {doc}, "max": {}}}, "fields": {fields}}}],
            "actions": {actions}, "until": 60}}"#,
        doc * 2
    )
}

fn check(sim: &Simulator) -> Result<(), TestCaseError> {
    for c in &sim.cluster.collections {
        prop_assert_eq!(c.table.check_invariants(), Ok(()));
        let mut total = ChunkStats::ZERO;
        for ch in c.table.iter() {
            total.add(ch.info.stats);
        }
        let routed: u64 = c.routed_writes.iter().sum();
        prop_assert_eq!(total.docs, routed, "documents are conserved");
        prop_assert_eq!(total.writes, routed, "writes follow their chunks");
        let indexed = c.keys.stats(c.table.global_min(), c.table.global_max());
        prop_assert_eq!(
            (indexed.docs, indexed.bytes),
            (total.docs, total.bytes),
            "key index agrees"
        );
        let per_shard: u64 = (0..sim.cluster.shards.len())
            .map(|s| c.table.shard_totals(ShardIdx(s as u32)).stats.docs)
            .sum();
        prop_assert_eq!(per_shard, total.docs);
    }
    let mut busy = vec![0; sim.cluster.shards.len()];
    for m in &sim.cluster.balancer.in_flight {
        busy[m.from.index()] += 1;
        busy[m.to.index()] += 1;
    }
    prop_assert!(
        busy.iter().all(|&n| n <= 1),
        "a shard is in at most one migration: {:?}",
        busy
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_after_every_tick(
        v in 0usize..5, shards in 1u32..5, kind in 0usize..6, rate in 100u32..3000,
        doc in 100u32..1500, actions in any::<bool>(), seed in 0u64..1000,
    ) {
        let text = scenario_text(VERSIONS[v], shards, kind, rate, doc, actions);
        let sc = scenario::parse(&text).unwrap();
        let mut sim = Simulator::from_scenario(&sc, seed, None).unwrap();
        for _ in 0..600 {
            sim.step();
            sim.take_events();
            check(&sim)?;
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_run(kind in 0usize..6, v in 0usize..5, seed in 0u64..1000) {
        let text = scenario_text(VERSIONS[v], 3, kind, 1500, 800, true);
        let sc = scenario::parse(&text).unwrap();
        let once = || {
            let mut sim = Simulator::from_scenario(&sc, seed, None).unwrap();
            sim.run_until(60_000);
            let n = sim.take_events().len();
            (serde_json::to_string(&sim.cluster.summary_json(&SummaryOptions { source: "x".into(), chunks: true, writes_unknown: false })).unwrap(), n)
        };
        prop_assert_eq!(once(), once());
    }
}
