//! A migration onto a shard that still holds that range's orphans: the recipient waits for the
//! range deleter up to `receiveChunkWaitForRangeDeleterTimeoutMS` (10 s), then the migration fails
//! (OperationFailed); a range deleted within the wait lets the copy start 1 s after it. A range is
//! never owned by a shard and orphaned on it at once.
// `db/s/migration_destination_manager.cpp` (`_migrateDriver` step 1),
// `db/s/sharding_runtime_d_params.idl` (`receiveChunkWaitForRangeDeleterTimeoutMS`, 10,000).
#![allow(clippy::unwrap_used)]

use shardtop::cluster::{Event, EventKind};
use shardtop::model::{KeyValue, ShardIdx, ShardKey};
use shardtop::sim::{Simulator, scenario};

/// `a.b` with 1,000 documents in `[MinKey, 10)`, both chunks on shard0000, the balancer off;
/// the first chunk moved to shard0001 (committed), its orphans left on shard0000.
fn moved_once(version: &str, cleanup_delay_secs: Option<u64>) -> Simulator {
    let text = format!(
        r#"{{"name": "t", "description": "t", "seedPassage": "t", "serverVersion": "{version}",
        "shards": 2, "chunkSizeMb": 64, "balancer": false,
        "collections": [{{"ns": "a.b", "key": {{"x": 1}}, "initialLayout": {{
            "splitPoints": [{{"x": 10}}], "shards": ["shard0000", "shard0000"]}}}}],
        "workloads": [{{"ns": "a.b", "rate": 100000, "count": 1000, "docSize": 200,
            "fields": {{"x": {{"const": 5}}}}}}],
        "until": 100}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    let mut s = Simulator::from_scenario(&sc, 1, None).unwrap();
    s.cluster.settings.orphan_cleanup_delay_secs = cleanup_delay_secs;
    s.run_until(1_000);
    s.move_chunk("a.b", &five(), None, "shard0001").unwrap();
    s.run_until(5_000);
    assert_eq!(owner(&s), ShardIdx(1));
    assert_eq!(s.cluster.collections[0].orphans_on(ShardIdx(0)).0, 1000);
    s.take_events();
    s
}

fn five() -> ShardKey {
    ShardKey::single(KeyValue::Int32(5))
}

fn owner(s: &Simulator) -> ShardIdx {
    let t = &s.cluster.collections[0].table;
    t.chunk(t.route(&five())).info.shard
}

/// Steps to `until_ms`, checking at every tick that no shard owns `[MinKey, 10)` while it holds
/// orphans of it.
fn run_checked(s: &mut Simulator, until_ms: u64) -> Vec<Event> {
    while s.now_ms() < until_ms {
        s.step();
        let o = owner(s);
        assert_eq!(
            s.cluster.collections[0].orphans_on(o).0,
            0,
            "at {} ms the owner of the range also holds its orphans",
            s.now_ms()
        );
    }
    s.take_events()
}

#[test]
fn moving_a_range_back_onto_its_orphans_fails_after_ten_seconds() {
    for version in ["4.4", "6.0", "8.0", "9.0"] {
        let mut s = moved_once(version, None);
        let started = s.now_ms();
        s.move_chunk("a.b", &five(), None, "shard0000").unwrap();
        let events = run_checked(&mut s, started + 20_000);
        let failed = events.iter().find_map(|e| match &e.kind {
            EventKind::MigrationFailed { error, .. } => Some((e.at_ms, error.clone())),
            _ => None,
        });
        let (at, error) = failed.unwrap_or_else(|| panic!("{version}: no failure"));
        assert!(
            (started + 10_000..started + 10_200).contains(&at),
            "{version}: failed at {at}, started at {started}"
        );
        assert_eq!(error.code_name, "OperationFailed", "{version}");
        assert!(error.message.contains("ExceededTimeLimit"), "{version}");
        assert_eq!(
            owner(&s),
            ShardIdx(1),
            "{version}: the range stays where it was"
        );
        assert!(
            !events
                .iter()
                .any(|e| matches!(e.kind, EventKind::MigrationCommitted { .. })),
            "{version}"
        );
    }
}

#[test]
fn a_range_deleted_within_the_wait_lets_the_migration_go_on() {
    for version in ["4.4", "8.0", "9.0"] {
        // Orphans kept 8 s: the move back, 4 s after the first commit, waits about 4 s + 1 s.
        let mut s = moved_once(version, Some(8));
        s.move_chunk("a.b", &five(), None, "shard0000").unwrap();
        let until = s.now_ms() + 20_000;
        let events = run_checked(&mut s, until);
        let deleted = events.iter().find_map(|e| match &e.kind {
            EventKind::RangeDeleted { shard, .. } if *shard == ShardIdx(0) => Some(e.at_ms),
            _ => None,
        });
        let committed = events.iter().find_map(|e| match &e.kind {
            EventKind::MigrationCommitted { .. } => Some(e.at_ms),
            _ => None,
        });
        let (deleted, committed) = (deleted.unwrap(), committed.unwrap());
        assert!(
            committed >= deleted + 1_000,
            "{version}: {deleted} {committed}"
        );
        assert_eq!(owner(&s), ShardIdx(0), "{version}");
    }
}
