//! The range a 6.0+ migration moves when given only its lower bound — the balancer's moves, a
//! drain's, `moveRange {min}` — is cut by the donor's `autoSplitVector` with limit 1
//! (`db/s/migration_source_manager.cpp` `computeOtherBound`, `db/s/auto_split_vector.cpp`).
//! Issue 50's examples with 1,000-byte documents and 1 MB chunks (`maxDocsPerChunk` 1,048):
//! 1,200 documents move whole, 1,500 are cut at the 750th, 5,000 move 1,047.

use shardtop::cluster::EventKind;
use shardtop::model::{KeyValue, ShardIdx, ShardKey};
use shardtop::sim::{Simulator, scenario};

/// One collection `{_id: 1}` on three shards, 1 MB chunks, `docs` 1,000-byte documents with
/// `_id` 1, 2, 3, … in one chunk on the first shard, the balancer off.
fn one_chunk(version: &str, docs: u64) -> Simulator {
    let text = format!(
        r#"{{"name": "t", "description": "test", "seedPassage": "none", "serverVersion": "{version}", "shards": 3, "chunkSizeMb": 1,
        "balancer": false,
        "collections": [{{"ns": "app.c", "key": {{"_id": 1}}}}],
        "workloads": [{{"ns": "app.c", "rate": 1000, "count": {docs},
            "docSize": {{"min": 1000, "max": 1000}}, "fields": {{"_id": {{"sequence": {{}}}}}}}}],
        "until": 600}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    let mut sim = Simulator::from_scenario(&sc, 1, None).unwrap();
    sim.run_until(docs + 1_000);
    let coll = &sim.cluster.collections[0];
    assert_eq!(coll.table.len(), 1);
    assert_eq!(coll.table.chunk(0).info.stats.docs, docs);
    sim
}

fn min_key() -> ShardKey {
    ShardKey::single(KeyValue::MinKey)
}

fn settle(sim: &mut Simulator) {
    let deadline = sim.now_ms() + 120_000;
    while !sim.cluster.balancer.in_flight.is_empty() && sim.now_ms() < deadline {
        sim.step();
    }
    assert!(sim.cluster.balancer.in_flight.is_empty());
}

/// The documents of the first migration that commits from now on.
fn first_migration_docs(sim: &mut Simulator) -> u64 {
    sim.take_events();
    let deadline = sim.now_ms() + 120_000;
    while sim.now_ms() < deadline {
        sim.step();
        for e in sim.take_events() {
            if let EventKind::MigrationCommitted { moved, .. } = e.kind {
                return moved.docs;
            }
        }
    }
    panic!("no migration committed");
}

/// `moveRange {min: MinKey}` of the only chunk to the second shard: the documents moved.
fn move_range_from_min(version: &str, docs: u64) -> u64 {
    let mut sim = one_chunk(version, docs);
    let to = sim.cluster.shard_id(ShardIdx(1)).to_string();
    sim.move_range("app.c", Some(&min_key()), None, &to, false)
        .unwrap();
    settle(&mut sim);
    let table = &sim.cluster.collections[0].table;
    let moved: u64 = (0..table.len())
        .map(|i| table.chunk(i))
        .filter(|c| c.info.shard == ShardIdx(1))
        .map(|c| c.info.stats.docs)
        .sum();
    moved
}

/// `db/s/auto_split_vector.cpp`: a leftover under 80 % that re-spreading would leave under
/// `maxDocsPerChunk - maxDocsPerNewChunk` is absorbed.
#[test]
fn auto_split_vector_cpp_1200_documents_move_whole() {
    for version in ["6.0", "7.0", "8.0"] {
        assert_eq!(move_range_from_min(version, 1_200), 1_200, "{version}");
    }
}

/// `db/s/auto_split_vector.cpp`: a leftover under 80 % is re-spread — the cut falls at `_id`
/// 750, the 750th document, so [MinKey, 750) holds 749.
#[test]
fn auto_split_vector_cpp_1500_documents_are_cut_at_the_750th() {
    let mut sim = one_chunk("8.0", 1_500);
    let to = sim.cluster.shard_id(ShardIdx(2)).to_string();
    sim.move_range("app.c", Some(&min_key()), None, &to, false)
        .unwrap();
    settle(&mut sim);
    let table = &sim.cluster.collections[0].table;
    assert_eq!(table.len(), 2);
    assert_eq!(*table.chunk(1).min, ShardKey::single(KeyValue::Int64(750)));
    assert_eq!(table.chunk(0).info.shard, ShardIdx(2));
    assert_eq!(table.chunk(0).info.stats.docs, 749);
}

/// `db/s/auto_split_vector.cpp`: the scan stops at `limit + 1` points with its count at 0, so
/// the last is dropped: the first point (the 1,048th document) ends the range.
#[test]
fn auto_split_vector_cpp_5000_documents_move_1047() {
    assert_eq!(move_range_from_min("8.0", 5_000), 1_047);
}

/// `db/s/balancer/balancer_policy.cpp` (6.0+: `moveRange` without `max` for an imbalance) and
/// `migration_source_manager.cpp`: the balancer's first move of a 5,000-document chunk.
#[test]
fn migration_source_manager_cpp_the_balancer_moves_what_auto_split_vector_cuts() {
    for version in ["6.0", "8.0"] {
        let mut sim = one_chunk(version, 5_000);
        sim.set_balancer(true);
        assert_eq!(first_migration_docs(&mut sim), 1_047, "{version}");
    }
}

/// `db/s/balancer/balancer_policy.cpp` (7.0+: a drain's move is a `moveRange` without `max`):
/// a 1,200-document chunk leaves the draining shard whole.
#[test]
fn migration_source_manager_cpp_a_drain_moves_a_small_leftover_with_the_range() {
    let mut sim = one_chunk("8.0", 1_200);
    sim.set_balancer(true);
    let id = sim.cluster.shard_id(ShardIdx(0)).to_string();
    let primary_elsewhere = sim.cluster.shard_id(ShardIdx(1)).to_string();
    let _ = sim.move_primary("app", &primary_elsewhere);
    sim.remove_shard(&id).unwrap();
    assert_eq!(first_migration_docs(&mut sim), 1_200);
}
