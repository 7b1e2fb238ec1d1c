#![allow(clippy::unwrap_used)]
//! `configureCollectionBalancing` (a collection's own chunk size governs its balancing) and
//! `moveRange` with one bound (the range holds about the chunk size), in the simulator.

use shardtop::model::{KeyValue, ShardIdx, ShardKey};
use shardtop::sim::balancer::collection_balancing::BalancingRequest;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::record::{record_sim, sim_header};
use shardtop::trace::{ReadOptions, Replay};

/// One collection `{_id: 1}` on three shards, 1 MB chunks, `docs` ~1 KB documents with
/// `_id` 0, 1, 2, … inserted at 100/s, and the given actions.
fn scenario_with(version: &str, balancer: bool, docs: u64, actions: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "t", "description": "test", "seedPassage": "none", "serverVersion": "{version}", "shards": 3, "chunkSizeMb": 1,
        "balancer": {balancer},
        "collections": [{{"ns": "app.c", "key": {{"_id": 1}}}}],
        "workloads": [{{"ns": "app.c", "rate": 100, "count": {docs},
            "docSize": {{"min": 1000, "max": 1000}}, "fields": {{"_id": {{"sequence": {{}}}}}}}}],
        "actions": [{actions}], "until": 600}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    Simulator::from_scenario(&sc, 1, None).unwrap()
}

fn int(v: i64) -> ShardKey {
    ShardKey::from_values(vec![KeyValue::Int64(v)]).unwrap()
}

fn max_key() -> ShardKey {
    ShardKey::from_values(vec![KeyValue::MaxKey]).unwrap()
}

fn settle(sim: &mut Simulator) {
    let deadline = sim.now_ms() + 120_000;
    while !sim.cluster.balancer.in_flight.is_empty() && sim.now_ms() < deadline {
        sim.step();
    }
    assert!(sim.cluster.balancer.in_flight.is_empty());
}

#[test]
fn a_collection_chunk_size_governs_its_balancing() {
    // 10 MB on one shard: past 3 × 1 MB, the 7.0 balancer moves data …
    let mut plain = scenario_with("7.0", true, 10_000, "");
    plain.run_until(200_000);
    assert!(plain.cluster.balancer.completed > 0);
    // … but not past 3 × 64 MB, the collection's own chunk size.
    let action =
        r#"{"at": 0, "do": {"configureCollectionBalancing": {"ns": "app.c", "chunkSize": 64}}}"#;
    let mut own = scenario_with("7.0", true, 10_000, action);
    own.run_until(200_000);
    assert_eq!(own.cluster.balancer.completed, 0);
    assert_eq!(
        own.cluster.collections[0].balancing.max_chunk_size_bytes,
        Some(64 << 20)
    );
    assert!(
        own.cluster
            .balancer
            .why_not
            .iter()
            .any(|w| w.contains("app.c"))
    );
}

#[test]
fn the_command_follows_the_version_rules() {
    let req = |mb, merge| BalancingRequest {
        chunk_size_mb: mb,
        enable_auto_merger: merge,
        defragment: None,
    };
    let mut old = scenario_with("5.0", false, 0, "");
    assert_eq!(
        old.configure_collection_balancing("app.c", req(Some(2), None))
            .unwrap_err()
            .code,
        59
    );
    let mut six = scenario_with("6.0", false, 0, "");
    let err = six
        .configure_collection_balancing("app.c", req(None, Some(false)))
        .unwrap_err();
    assert_eq!(err.code, 40415, "{err}");
    six.configure_collection_balancing("app.c", req(Some(256), None))
        .unwrap();
    assert_eq!(six.cluster.chunk_size_of(0), 256 << 20);
    six.configure_collection_balancing("app.c", req(Some(0), None))
        .unwrap();
    assert_eq!(
        six.cluster.chunk_size_of(0),
        1 << 20,
        "0 goes back to the cluster's"
    );
    let defrag = BalancingRequest {
        defragment: Some(true),
        ..BalancingRequest::default()
    };
    six.configure_collection_balancing("app.c", defrag).unwrap();
    assert_eq!(
        six.cluster.collections[0]
            .defragmentation
            .map(shardtop::cluster::defragmentation::DefragmentationPhase::as_str),
        Some("mergeAndMeasureChunks")
    );
    assert!(
        six.configure_collection_balancing("app.c", req(Some(2048), None))
            .is_err()
    );
}

#[test]
fn move_range_with_only_max_moves_about_a_chunk_from_the_top() {
    let mut sim = scenario_with("7.0", false, 5_000, "");
    sim.run_until(60_000);
    let to = sim.cluster.shard_id(ShardIdx(2)).to_string();
    sim.move_range("app.c", None, Some(&max_key()), &to, false)
        .unwrap();
    settle(&mut sim);
    let table = &sim.cluster.collections[0].table;
    assert_eq!(table.len(), 2);
    let top = table.chunk(1);
    assert_eq!(top.info.shard, ShardIdx(2));
    assert_eq!(*top.max, max_key());
    // The range holds at most the chunk size and most of it.
    let bytes = top.info.stats.bytes;
    assert!(bytes <= 1 << 20 && bytes > 900 << 10, "{bytes}");
    assert!(table.chunk(0).info.stats.docs > 3_000);
}

#[test]
fn move_range_with_only_a_min_inside_a_chunk_splits_it_off() {
    let mut sim = scenario_with("8.0", false, 5_000, "");
    sim.run_until(60_000);
    let to = sim.cluster.shard_id(ShardIdx(1)).to_string();
    sim.move_range("app.c", Some(&int(1_000)), None, &to, false)
        .unwrap();
    settle(&mut sim);
    let table = &sim.cluster.collections[0].table;
    assert_eq!(
        table.len(),
        3,
        "[MinKey, 1000) [1000, ~2000) [~2000, MaxKey)"
    );
    assert_eq!(*table.chunk(1).min, int(1_000));
    assert_eq!(table.chunk(1).info.shard, ShardIdx(1));
    assert_eq!(table.chunk(0).info.shard, table.chunk(2).info.shard);
    let docs = table.chunk(1).info.stats.docs;
    assert!((900..=1_049).contains(&docs), "{docs}");
}

#[test]
fn move_range_refusals() {
    let mut sim = scenario_with("7.0", false, 3_000, "");
    sim.run_until(40_000);
    sim.split_at("app.c", int(1_000)).unwrap();
    let to = sim.cluster.shard_id(ShardIdx(2)).to_string();
    // Across two chunks.
    assert!(
        sim.move_range("app.c", Some(&int(500)), Some(&int(1_500)), &to, false)
            .is_err()
    );
    let mut old = scenario_with("5.0", false, 0, "");
    let to = old.cluster.shard_id(ShardIdx(1)).to_string();
    let err = old
        .move_range("app.c", None, Some(&max_key()), &to, false)
        .unwrap_err();
    assert_eq!(err.code, 59);
}

#[test]
fn a_replay_keeps_the_collection_settings() {
    let action = r#"{"at": 1, "do": {"configureCollectionBalancing": {"ns": "app.c", "chunkSize": 32, "enableAutoMerger": false}}}"#;
    let mut sim = scenario_with("8.0", true, 100, action);
    let dir = std::env::temp_dir().join(format!("shardtop-ccb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.ndjson");
    let header = sim_header(&sim, "sim:t", "t", 1);
    record_sim(&mut sim, 5_000, &path, &header, |_, _| {}).unwrap();
    let mut replay = Replay::open(&path, ReadOptions::default()).unwrap();
    replay.seek(replay.end_ms()).unwrap();
    let got = replay.state().collections[0].balancing;
    assert_eq!(got, sim.cluster.collections[0].balancing);
    assert_eq!(got.max_chunk_size_bytes, Some(32 << 20));
    assert_eq!(got.auto_merge, Some(false));
    std::fs::remove_dir_all(&dir).unwrap();
}
