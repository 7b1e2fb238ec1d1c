//! MongoDB's rules per release line, one test each, written to fail on the simulator's old
//! behaviour: the pause between balancer rounds, the ChunkTooBig limit, the default
//! `numInitialChunks` of a resharding, the release lines after 8.0.
#![allow(clippy::unwrap_used)]

use shardtop::cluster::{Event, EventKind, ServerVersion};
use shardtop::model::{KeyValue, ShardKey};
use shardtop::sim::{Simulator, scenario};

fn sim(version: &str, body: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "t", "description": "t", "seedPassage": "t", "serverVersion": "{version}", {body}}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    Simulator::from_scenario(&sc, 1, None).unwrap()
}

/// Five chunks on shard0000 of two shards, 4 MB written into them before the first round.
const LOPSIDED: &str = r#""shards": 2, "chunkSizeMb": 1,
    "collections": [{"ns": "a.b", "key": {"x": 1}, "initialLayout": {
        "splitPoints": [{"x": 10}, {"x": 20}, {"x": 30}, {"x": 40}],
        "shards": ["shard0000", "shard0000", "shard0000", "shard0000", "shard0000"]}}],
    "workloads": [{"ns": "a.b", "rate": 4000, "count": 20000, "docSize": 200,
        "fields": {"x": {"uniformInt": {"min": 0, "max": 50}}}}],
    "until": 120"#;

fn run(sim: &mut Simulator, until_ms: u64) -> Vec<Event> {
    sim.run_until(until_ms);
    sim.take_events()
}

/// For each finished round: (candidates, moved, pause until the next round started).
fn pauses(events: &[Event]) -> Vec<(usize, usize, u64)> {
    let mut out = Vec::new();
    let mut ended: Option<(u64, usize, usize)> = None;
    for e in events {
        match &e.kind {
            EventKind::BalancerRound {
                candidates, moved, ..
            } => ended = Some((e.at_ms, *candidates, *moved)),
            EventKind::BalancerRoundStarted { .. } => {
                if let Some((at, candidates, moved)) = ended.take() {
                    out.push((candidates, moved, e.at_ms - at));
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn one_second_after_a_busy_round_ten_after_an_idle_one() {
    for version in ["4.4", "5.0", "6.0", "7.0", "8.0", "8.2", "9.0"] {
        let v: ServerVersion = version.parse().unwrap();
        let mut s = sim(version, LOPSIDED);
        let rounds = pauses(&run(&mut s, 120_000));
        assert!(
            rounds.iter().any(|r| r.2 == 1_000) && rounds.iter().any(|r| r.2 == 10_000),
            "{version}: {rounds:?}"
        );
        for (candidates, moved, pause) in rounds {
            // 4.4: `_balancedLastTime` counts moved chunks; 6.0+: a round with candidates does
            // not sleep, its successor waits `balancerMigrationsThrottlingMs`.
            let busy = if v < ServerVersion::V6_0 {
                moved > 0
            } else {
                candidates > 0
            };
            let expected = if busy { 1_000 } else { 10_000 };
            assert_eq!(
                pause, expected,
                "{version}: {candidates} candidates, {moved} moved"
            );
        }
    }
}

#[test]
fn from_6_0_a_round_whose_only_migration_failed_still_counts_as_busy() {
    let failed_round = |version: &str| {
        let sc = scenario::built_in("drain").unwrap().unwrap();
        let mut s = Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
        pauses(&run(&mut s, 30_000))
            .into_iter()
            .find(|(candidates, moved, _)| *candidates > 0 && *moved == 0)
    };
    assert_eq!(failed_round("8.0").map(|r| r.2), Some(1_000));
    assert_eq!(failed_round("6.0").map(|r| r.2), Some(1_000));
}

#[test]
fn before_6_0_a_round_whose_migration_failed_chunk_too_big_counts_as_busy() {
    // 4.4.6 and 5.0.7 `balancer.cpp` (`_moveChunks`): ChunkTooBig adds to `numChunksProcessed`,
    // so the next round comes after kShortBalanceRoundInterval (1 s), not 10 s.
    let body = r#""shards": 2, "chunkSizeMb": 1,
        "collections": [{"ns": "a.b", "key": {"x": 1}, "initialLayout": {
            "splitPoints": [{"x": 10}], "shards": ["shard0000", "shard0000"]}}],
        "workloads": [{"ns": "a.b", "rate": 100000, "count": 20000, "docSize": 200,
            "fields": {"x": {"const": 5}}}],
        "until": 30"#;
    for version in ["4.4", "5.0", "6.0", "8.0"] {
        let mut s = sim(version, body);
        let events = run(&mut s, 30_000);
        let failed_at = events.iter().find_map(|e| match &e.kind {
            EventKind::BalancerRound {
                moved: 0, failed, ..
            } if *failed > 0 => Some(e.at_ms),
            _ => None,
        });
        let failed_at = failed_at.unwrap_or_else(|| panic!("{version}: no failed round"));
        let next = events.iter().find_map(|e| match &e.kind {
            EventKind::BalancerRoundStarted { .. } if e.at_ms > failed_at => Some(e.at_ms),
            _ => None,
        });
        assert_eq!(next.map(|t| t - failed_at), Some(1_000), "{version}");
        assert!(
            s.cluster.collections[0].table.iter().any(|c| c.info.jumbo),
            "{version}: the chunk of one value is marked jumbo"
        );
    }
}

/// Moves the chunk [10, 20) of a collection holding `docs` documents of 200 bytes in it.
fn move_with(version: &str, docs: u64) -> Result<(), shardtop::cluster::MongoError> {
    let body = format!(
        r#""shards": 2, "chunkSizeMb": 1, "balancer": false,
        "collections": [{{"ns": "a.b", "key": {{"x": 1}}, "initialLayout": {{
            "splitPoints": [{{"x": 10}}, {{"x": 20}}], "shards": ["shard0000", "shard0000", "shard0000"]}}}}],
        "workloads": [{{"ns": "a.b", "rate": 100000, "count": {docs}, "docSize": 200,
            "fields": {{"x": {{"const": 15}}}}}}],
        "until": 10"#
    );
    let mut s = sim(version, &body);
    s.run_until(5_000);
    // Before 6.0 the auto-splitter found no split point in one value and gave up: no jumbo flag.
    assert!(s.cluster.collections[0].table.iter().all(|c| !c.info.jumbo));
    s.move_chunk(
        "a.b",
        &ShardKey::single(KeyValue::Int32(15)),
        None,
        "shard0001",
    )
}

#[test]
fn chunk_too_big_counts_documents_at_twice_the_chunk_size() {
    // 1 MiB ÷ 200 bytes = 5,242 documents a full chunk; the donor refuses more than 2 × that.
    for version in ["4.4", "5.0", "6.0", "8.0", "9.0"] {
        assert!(move_with(version, 10_000).is_ok(), "{version}: 1.9 × moves");
        let err = move_with(version, 11_000).unwrap_err();
        assert_eq!(err.code_name, "ChunkTooBig", "{version}");
        assert!(
            err.message.starts_with(
                "Cannot move chunk: the maximum number of documents for a chunk is 10484, the maximum chunk size is 1048576, average document size is 200. Found 11000 documents in chunk"
            ),
            "{version}: {}",
            err.message
        );
    }
}

#[test]
fn release_lines_after_8_0_have_their_wire_versions_and_newer_ones_are_refused() {
    for (v, wire) in [
        ("8.0", 25),
        ("8.1", 26),
        ("8.2", 27),
        ("8.3", 28),
        ("9.0", 29),
    ] {
        assert_eq!(v.parse::<ServerVersion>().unwrap().max_wire_version(), wire);
    }
    for bad in ["9.1", "10.0", "8.4", "4.2", "6.9"] {
        let err = bad.parse::<ServerVersion>().unwrap_err();
        assert!(err.contains("4.4 to 9.0"), "{bad}: {err}");
    }
}

#[test]
fn resharding_without_num_initial_chunks_keeps_the_chunk_count_in_5_0_and_takes_90_later() {
    let body = r#""shards": 2, "chunkSizeMb": 1,
        "collections": [{"ns": "a.b", "key": {"x": 1}, "keepDocuments": true, "initialLayout": {
            "splitPoints": [{"x": 10}, {"x": 20}, {"x": 30}], "shards": ["shard0000", "shard0001", "shard0000", "shard0001"]}}],
        "workloads": [{"ns": "a.b", "rate": 1000, "count": 1000, "docSize": 100,
            "fields": {"x": {"uniformInt": {"min": 0, "max": 40}}, "y": {"sequence": {}}}}],
        "actions": [{"at": 2, "do": {"reshardCollection": {"ns": "a.b", "key": {"y": 1}}}}],
        "until": 10"#;
    for (version, chunks) in [("5.0", 4), ("6.0", 90), ("8.0", 90)] {
        let mut s = sim(version, body);
        let started = run(&mut s, 3_000).into_iter().find_map(|e| match e.kind {
            EventKind::ReshardingStarted {
                num_initial_chunks, ..
            } => Some(num_initial_chunks),
            _ => None,
        });
        assert_eq!(started, Some(chunks), "{version}");
    }
}

#[test]
fn from_8_0_a_hashed_collection_gets_one_chunk_per_shard_in_a_fixed_shuffle() {
    let body = |n: u32| {
        format!(
            r#""shards": 4, "collections": [{{"ns": "a.b", "key": {{"h": "hashed"}}, "numInitialChunks": {n}}}], "until": 1"#
        )
    };
    let owners = |s: &Simulator| -> Vec<u32> {
        s.cluster.collections[0]
            .table
            .iter()
            .map(|c| c.info.shard.0)
            .collect()
    };
    // std::shuffle of [0, 1, 2, 3] with a default-seeded minstd_rand0 (libstdc++) is [2, 3, 1, 0];
    // numInitialChunks is deprecated and not used (SERVER-82611).
    for n in [4, 12] {
        assert_eq!(owners(&sim("8.0", &body(n))), [2, 3, 1, 0], "8.0, {n}");
        assert_eq!(owners(&sim("9.0", &body(n))), [2, 3, 1, 0], "9.0, {n}");
    }
    // 7.x: numInitialChunks chunks in contiguous blocks.
    assert_eq!(
        owners(&sim("7.0", &body(8))),
        [0, 0, 1, 1, 2, 2, 3, 3],
        "7.0"
    );
}

fn merges(events: &[Event]) -> Vec<(u64, usize)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Merge {
                chunks, auto: true, ..
            } => Some((e.at_ms, *chunks)),
            _ => None,
        })
        .collect()
}

fn auto_merge_run(version: &str, until_ms: u64) -> (Simulator, Vec<Event>) {
    let sc = scenario::built_in("auto-merge").unwrap().unwrap();
    let mut s = Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
    let events = run(&mut s, until_ms);
    (s, events)
}

#[test]
fn the_auto_merger_merges_after_its_interval_from_7_0_and_not_in_6_0() {
    for version in ["7.0", "8.0", "9.0"] {
        let (s, events) = auto_merge_run(version, 700_000);
        let m = merges(&events);
        // The pass at enable (t = 0) finds nothing older than the 300 s window; the next one,
        // after autoMergerIntervalSecs (600 here), merges each shard's run, 15 s apart.
        assert_eq!(m.len(), 3, "{version}: {m:?}");
        assert!(m.iter().all(|(_, n)| *n == 10), "{version}: {m:?}");
        assert!(m[0].0 > 600_000 && m[0].0 < 601_000, "{version}: {m:?}");
        assert_eq!(m[1].0 - m[0].0, 15_000, "{version}: autoMergerThrottlingMS");
        assert_eq!(m[2].0 - m[1].0, 15_000, "{version}");
        let coll = &s.cluster.collections[0];
        assert_eq!(coll.table.len(), 3);
        assert_eq!(coll.table.check_invariants(), Ok(()));
        let docs: u64 = coll.table.iter().map(|c| c.info.stats.docs).sum();
        assert_eq!(docs, 30_000, "documents are conserved across merges");
    }
    let (s, events) = auto_merge_run("6.0", 700_000);
    assert!(merges(&events).is_empty(), "6.0 has no AutoMerger");
    assert_eq!(s.cluster.collections[0].table.len(), 30);
}

#[test]
fn the_auto_merger_stops_with_the_balancer_and_honours_enable_auto_merge() {
    // Balancer stopped: no merges.
    let sc = scenario::built_in("auto-merge").unwrap().unwrap();
    let mut s = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    s.set_balancer(false);
    assert!(merges(&run(&mut s, 700_000)).is_empty());
    // config.settings automerge off: none either.
    let mut s = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    s.set_auto_merge(false);
    assert!(merges(&run(&mut s, 700_000)).is_empty());
    // configureCollectionBalancing {enableAutoMerger: false} on the collection.
    let mut s = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    s.configure_collection_balancing(
        "app.events",
        shardtop::sim::balancer::collection_balancing::BalancingRequest {
            chunk_size_mb: None,
            enable_auto_merger: Some(false),
            defragment: None,
        },
    )
    .unwrap();
    assert!(merges(&run(&mut s, 700_000)).is_empty());
}

#[test]
fn orphans_stay_on_the_donor_until_the_cleanup_delay_then_the_range_deleter_removes_them() {
    for (version, delay_s) in [
        ("4.4", 900),
        ("7.0", 900),
        ("8.0", 900),
        ("8.2", 3_600),
        ("9.0", 3_600),
    ] {
        let sc = scenario::built_in("orphans").unwrap().unwrap();
        let mut s = Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
        let events = run(&mut s, 60_000);
        s.set_balancer(false);
        let commits: Vec<(u64, u64)> = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::MigrationCommitted { moved, .. } => Some((e.at_ms, moved.docs)),
                _ => None,
            })
            .collect();
        assert!(!commits.is_empty(), "{version}");
        let moved: u64 = commits.iter().map(|c| c.1).sum();
        let donor = shardtop::model::ShardIdx(0);
        let coll = &s.cluster.collections[0];
        assert_eq!(
            coll.orphans_on(donor).0,
            moved,
            "{version}: orphans after the moves"
        );
        let owned: u64 = coll.table.iter().map(|c| c.info.stats.docs).sum();
        assert_eq!(owned, 20_000, "{version}: owned documents are conserved");
        // Before the first delay is over every orphan is still there; after the last, none is.
        s.run_until(commits[0].0 + delay_s * 1000 - 100);
        assert_eq!(
            s.cluster.collections[0].orphans_on(donor).0,
            moved,
            "{version}"
        );
        let last = commits[commits.len() - 1].0;
        let events = run(&mut s, last + delay_s * 1000 + 100);
        let deleted: u64 = events
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::RangeDeleted { docs, .. } => Some(docs),
                _ => None,
            })
            .sum();
        assert_eq!(deleted, moved, "{version}");
        assert_eq!(
            s.cluster.collections[0].orphans_on(donor),
            (0, 0),
            "{version}"
        );
    }
}

#[test]
fn a_collection_with_no_balance_is_skipped_drains_included() {
    let sc = scenario::built_in("drain").unwrap().unwrap();
    let mut s = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    s.set_balancing_allowed("shop.orders", false).unwrap();
    let events = run(&mut s, 100_000);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::MigrationStarted { .. })),
        "no migration of a noBalance collection"
    );
    assert!(
        s.cluster
            .balancer
            .why_not
            .iter()
            .any(|w| w.contains("noBalance")),
        "{:?}",
        s.cluster.balancer.why_not
    );
    s.set_balancing_allowed("shop.orders", true).unwrap();
    let events = run(&mut s, 140_000);
    assert!(events.iter().any(
        |e| matches!(&e.kind, EventKind::MigrationStarted { reason, .. } if reason.is_drain())
    ));
}

#[test]
fn attempt_to_balance_jumbo_chunks_lets_the_balancer_move_a_chunk_over_the_limit() {
    let sc = scenario::built_in("drain").unwrap().unwrap();
    let mut s = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    s.set_attempt_to_balance_jumbo_chunks(true);
    let events = run(&mut s, 20_500);
    assert!(
        !events.iter().any(|e| matches!(
            e.kind,
            EventKind::MigrationFailed { .. } | EventKind::JumboMarked { .. }
        )),
        "the whale moves instead of failing with ChunkTooBig"
    );
    let whale = ShardKey::single(KeyValue::Int32(3500));
    let t = &s.cluster.collections[0].table;
    let moving = s
        .cluster
        .balancer
        .in_flight
        .iter()
        .any(|m| m.min == *t.chunk(t.route(&whale)).min);
    assert!(moving, "{:?}", s.cluster.balancer.in_flight);
}

#[test]
fn force_redistribution_reshards_to_the_same_key_from_7_2_only() {
    let body = r#""shards": 3, "chunkSizeMb": 1, "reshardingMinimumOperationDurationMillis": 20000,
        "collections": [{"ns": "a.b", "key": {"x": 1}, "keepDocuments": true}],
        "workloads": [{"ns": "a.b", "rate": 2000, "count": 2000, "docSize": 100,
            "fields": {"x": {"uniformInt": {"min": 0, "max": 1000}}}}],
        "until": 60"#;
    let key = || shardtop::model::KeyPattern::parse_json(r#"{"x": 1}"#).unwrap();
    // The same key without the option: nothing to do.
    let mut s = sim("8.0", body);
    s.run_until(2_000);
    s.reshard_collection_with("a.b", key(), Some(3), false)
        .unwrap();
    assert!(s.cluster.collections[0].resharding.is_none());
    // With it: a full resharding, a new incarnation whose chunks are spread over the shards.
    s.reshard_collection_with("a.b", key(), Some(3), true)
        .unwrap();
    assert!(s.cluster.collections[0].resharding.is_some());
    s.run_until(40_000);
    let coll = &s.cluster.collections[0];
    assert!(coll.resharding.is_none());
    assert_eq!(coll.incarnation, 2);
    let owners: std::collections::BTreeSet<u32> =
        coll.table.iter().map(|c| c.info.shard.0).collect();
    assert_eq!(owners.len(), 3, "re-placed over every shard");
    // 7.0 has no such option.
    let mut old = sim("7.0", body);
    old.run_until(2_000);
    let err = old
        .reshard_collection_with("a.b", key(), None, true)
        .unwrap_err();
    assert_eq!(err.code, 40415, "{err}");
}

/// 4.4.6 `db/s/chunk_splitter.cpp` (`findExtremeKeyForShard`, doSplitAtLower, `nToSkip` 1): the
/// auto-splitter's top-chunk split at the MinKey end cuts at the second document's key, so the
/// new MinKey chunk holds one document, not none.
#[test]
fn chunk_splitter_cpp_the_min_key_split_leaves_one_document() {
    for version in ["4.4", "5.0"] {
        let text = format!(
            r#"{{"name": "t", "description": "test", "seedPassage": "none", "serverVersion": "{version}", "shards": 2, "chunkSizeMb": 1,
            "balancer": false,
            "collections": [{{"ns": "app.c", "key": {{"_id": 1}}}}],
            "workloads": [{{"ns": "app.c", "rate": 1000, "count": 1500,
                "docSize": {{"min": 1000, "max": 1000}}, "fields": {{"_id": {{"sequence": {{}}}}}}}}],
            "until": 600}}"#
        );
        let sc = scenario::parse(&text).unwrap();
        let mut sim = Simulator::from_scenario(&sc, 1, None).unwrap();
        sim.run_until(3_000);
        let table = &sim.cluster.collections[0].table;
        assert!(table.len() >= 2, "{version}: split");
        let first = table.chunk(0);
        assert_eq!(
            *first.max,
            ShardKey::single(KeyValue::Int64(2)),
            "{version}"
        );
        assert_eq!(first.info.stats.docs, 1, "{version}");
    }
}
