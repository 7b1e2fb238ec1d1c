//! Properties of single-document deletes and updates in the simulator (what `shardtop serve`
//! routes): over random inserts, deletes, in-place updates, shard-key moves and ticks (splits,
//! migrations), every chunk's documents and bytes are those of the live documents it owns — never
//! below zero, shard totals and the key index agree — every write is counted once, and replaying
//! the events onto the starting state gives the same chunks.
#![allow(clippy::unwrap_used)]

use bson::{Document, doc};
use proptest::prelude::*;
use shardtop::model::{ChunkStats, KeyValue, ShardIdx};
use shardtop::sim::{Simulator, scenario};

fn start(version: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "docs", "description": "", "seedPassage": "", "serverVersion": "{version}",
            "shards": 3, "chunkSizeMb": 1,
            "collections": [{{"ns": "db.c", "key": {{"x": 1}},
              "initialLayout": {{"splitPoints": [{{"x": 100}}, {{"x": 200}}],
                                "shards": ["shard0000", "shard0001", "shard0002"]}}}}],
            "until": 0}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.take_events();
    sim
}

fn check(sim: &Simulator, live: &[(Document, u64)], writes: u64) -> Result<(), TestCaseError> {
    let c = &sim.cluster.collections[0];
    prop_assert_eq!(c.table.check_invariants(), Ok(()));
    let mut total = ChunkStats::ZERO;
    for ch in c.table.iter() {
        total.add(ch.info.stats);
        // Each chunk holds exactly the live documents whose key it owns.
        let owned: Vec<&(Document, u64)> = live
            .iter()
            .filter(|(d, _)| {
                let key = sim.shard_key_of(0, d).unwrap();
                key >= *ch.min && key < *ch.max
            })
            .collect();
        prop_assert_eq!(ch.info.stats.docs, owned.len() as u64);
        prop_assert_eq!(
            ch.info.stats.bytes,
            owned.iter().map(|(_, b)| b).sum::<u64>()
        );
    }
    prop_assert_eq!(total.docs, live.len() as u64);
    prop_assert_eq!(total.writes, writes, "every write counted once");
    prop_assert_eq!(c.routed_writes.iter().sum::<u64>(), writes);
    let shards: u64 = (0..sim.cluster.shards.len())
        .map(|s| c.table.shard_totals(ShardIdx(s as u32)).stats.docs)
        .sum();
    prop_assert_eq!(shards, total.docs);
    let indexed = c.keys.stats(c.table.global_min(), c.table.global_max());
    prop_assert_eq!((indexed.docs, indexed.bytes), (total.docs, total.bytes));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn deletes_and_updates_keep_chunk_counts_exact(
        v in 0usize..2,
        ops in prop::collection::vec((0u8..6, 0i32..300, 1_000u64..60_000, any::<prop::sample::Index>()), 1..120),
    ) {
        let version = ["5.0", "8.0"][v];
        let mut sim = start(version);
        let mut replica = start(version);
        let mut live: Vec<(Document, u64)> = Vec::new();
        let (mut writes, mut next_id) = (0u64, 0i32);
        let mut events = Vec::new();
        for (op, x, bytes, pick) in ops {
            match op {
                0 | 1 => {
                    next_id += 1;
                    sim.insert(0, vec![KeyValue::Int32(x)], None, bytes);
                    live.push((doc! { "_id": next_id, "x": x }, bytes));
                    writes += 1;
                }
                2 if !live.is_empty() => {
                    let (d, b) = live.remove(pick.index(live.len()));
                    sim.delete_document(0, &d, b).unwrap();
                    writes += 1;
                }
                3 if !live.is_empty() => {
                    let at = pick.index(live.len());
                    let (old, b) = live[at].clone();
                    let mut new = old.clone();
                    new.insert("x", x);
                    new.insert("touched", true);
                    let moved = sim.update_document(0, &old, &new, b).unwrap();
                    prop_assert_eq!(moved, old.get("x") != new.get("x"));
                    live[at].0 = new;
                    writes += if moved { 2 } else { 1 };
                }
                _ => {
                    for _ in 0..20 {
                        sim.step();
                    }
                }
            }
            check(&sim, &live, writes)?;
            events.extend(sim.take_events());
        }
        // Let migrations end and every write be reported, then replay.
        sim.run_until(sim.now_ms() + 120_000);
        events.extend(sim.take_events());
        check(&sim, &live, writes)?;
        for e in &events {
            replica.cluster.apply(e).unwrap();
        }
        let stats = |s: &Simulator| -> Vec<(u64, u64, u32)> {
            s.cluster.collections[0]
                .table
                .iter()
                .map(|ch| (ch.info.stats.docs, ch.info.stats.bytes, ch.info.shard.0))
                .collect()
        };
        prop_assert_eq!(stats(&replica), stats(&sim));
    }
}
