#![allow(clippy::unwrap_used)]
//! `reshardCollection` (seed 003 "Changing your mind"): the unique-index refusal, the minimum
//! duration, the short critical section, the new incarnation and layout, the targeting it buys,
//! and the abort when the critical section cannot finish in time.

use bson::{Bson, doc};
use shardtop::cluster::{Event, EventKind, ServerVersion};
use shardtop::model::{KeyPattern, ShardIdx, ShardKey, TargetKind, target};
use shardtop::sim::{Simulator, scenario};

fn start(name: &str, version: Option<&str>) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    let v = version.map(|v| v.parse::<ServerVersion>().unwrap());
    Simulator::from_scenario(&sc, sc.seed, v).unwrap()
}

/// Runs `sim` to `until_ms`, keeping every event.
fn run(sim: &mut Simulator, until_ms: u64) -> Vec<Event> {
    let mut events = sim.take_events();
    while sim.now_ms() < until_ms {
        sim.run_until((sim.now_ms() + 10_000).min(until_ms));
        events.extend(sim.take_events());
    }
    events
}

fn reshard_run() -> (Simulator, Vec<Event>) {
    let mut sim = start("reshard", None);
    let events = run(&mut sim, 400_000);
    (sim, events)
}

fn date(millis: i64) -> Bson {
    Bson::DateTime(bson::DateTime::from_millis(millis))
}

#[test]
fn the_first_attempt_is_refused_by_the_unique_index_with_the_seed_message() {
    let mut sim = start("reshard", None);
    let events = run(&mut sim, 13_000);
    let expected = "Recipient shard shA reached an unrecoverable error :: caused by :: can't shard collection 'shop.orders' with unique index on { customerId: 1, orderNo: 1 }, proposed shard key { customerId: 1, placedAt: 1 } and collation {}. Uniqueness can't be maintained unless shard key is a prefix and has simple collation";
    let aborted: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ReshardingAborted { error, .. } => Some(error.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(aborted.len(), 1);
    assert_eq!(aborted[0].message, expected);
    assert_eq!(aborted[0].code_name, "InvalidOptions");
    assert!(
        sim.action_errors()
            .iter()
            .any(|e| e.starts_with("t=12s reshardCollection") && e.ends_with(expected)),
        "{:?}",
        sim.action_errors()
    );
    let coll = sim.cluster.collection("shop.orders").unwrap();
    assert_eq!(coll.pattern.to_string(), r#"{"customerId":"hashed"}"#);
    assert!(coll.resharding.is_none());
}

#[test]
fn after_dropping_the_index_resharding_takes_the_minimum_duration_and_a_short_critical_section() {
    let (sim, events) = reshard_run();
    let started = events
        .iter()
        .find(|e| matches!(e.kind, EventKind::ReshardingStarted { .. }))
        .unwrap();
    assert_eq!(started.at_ms, 16_000);
    let (at, millis, critical, layout) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ReshardingCommitted {
                millis,
                critical_section_ms,
                layout,
                ..
            } => Some((e.at_ms, *millis, *critical_section_ms, layout.clone())),
            _ => None,
        })
        .unwrap();
    assert!(millis >= 300_000, "{millis} ms");
    assert_eq!(at - started.at_ms, millis);
    assert!(critical > 0 && critical < 5_000, "{critical} ms");
    // The balancer left the collection alone while it was being resharded.
    assert!(!events.iter().any(|e| e.at_ms >= started.at_ms
        && e.at_ms < at
        && matches!(e.kind, EventKind::MigrationStarted { .. })));
    let coll = sim.cluster.collection("shop.orders").unwrap();
    assert_eq!(coll.pattern.to_string(), r#"{"customerId":1,"placedAt":1}"#);
    assert_eq!(coll.incarnation, 2, "a new uuid, epoch and timestamp");
    assert_eq!(layout.len(), 90, "numInitialChunks defaults to 90");
    for s in 0..3 {
        let t = coll.table.shard_totals(ShardIdx(s));
        assert_eq!(t.chunks, 30, "30 chunks per shard as in the seed");
        assert!(t.stats.docs > 60_000, "{s}: {}", t.stats.docs);
    }
    let docs: u64 = layout.iter().map(|(_, _, st)| st.docs).sum();
    assert!(docs >= 200_000, "every order was copied: {docs}");
}

#[test]
fn chunk_operations_wait_while_the_collection_is_resharded() {
    let mut sim = start("reshard", None);
    run(&mut sim, 200_000);
    let coll = sim.cluster.collection("shop.orders").unwrap();
    assert!(coll.resharding.is_some());
    let key = coll.table.chunk(0).min.clone();
    let to = if coll.table.chunk(0).info.shard == ShardIdx(1) {
        "shC"
    } else {
        "shB"
    };
    let err = sim.move_chunk("shop.orders", &key, None, to).unwrap_err();
    assert_eq!(err.code_name, "ConflictingOperationInProgress");
    let err = sim
        .reshard_collection(
            "shop.orders",
            KeyPattern::parse(&doc! {"customerId": 1}).unwrap(),
            None,
        )
        .unwrap_err();
    assert_eq!(err.code_name, "ReshardCollectionInProgress");
}

#[test]
fn after_resharding_the_seed_queries_are_targeted_as_designed() {
    let (sim, _) = reshard_run();
    let coll = sim.cluster.collection("shop.orders").unwrap();
    let (p, t) = (&coll.pattern, &coll.table);
    let single = |filter: bson::Document| {
        let got = target(p, t, &filter);
        assert_eq!(got.kind, TargetKind::SingleShard, "{filter}: {got:?}");
        assert_eq!(got.shards.len(), 1);
    };
    single(doc! {"customerId": 4242});
    single(doc! {"customerId": {"$gte": 100, "$lt": 150}});
    let june = 1_780_272_000_000; // 2026-06-01
    single(doc! {"customerId": 4242, "placedAt": {"$gte": date(june)}});
    let all = target(
        p,
        t,
        &doc! {"placedAt": {"$gte": date(june + 92 * 86_400_000)}},
    );
    assert_eq!(all.kind, TargetKind::ShardMerge);
    assert_eq!(all.shards, vec![ShardIdx(0), ShardIdx(1), ShardIdx(2)]);
    // Under the hashed key the customer range was a broadcast.
    let before = start("reshard", None);
    let old = before.cluster.collection("shop.orders").unwrap();
    let range = doc! {"customerId": {"$gte": 100, "$lt": 150}};
    assert_eq!(target(&old.pattern, &old.table, &range).shards.len(), 3);
}

#[test]
fn resharding_does_not_exist_before_5_0() {
    let mut sim = start("reshard", Some("4.4"));
    run(&mut sim, 20_000);
    assert!(
        sim.action_errors()
            .iter()
            .any(|e| e.contains("CommandNotFound") && e.contains("reshardCollection")),
        "{:?}",
        sim.action_errors()
    );
    let coll = sim.cluster.collection("shop.orders").unwrap();
    assert!(coll.resharding.is_none());
}

/// A one-shard collection resharded after 20 s; `extra` adds scenario fields, `workload` is the
/// write load.
fn small(extra: &str, workload: &str) -> Simulator {
    let text = format!(
        r#"{{"name": "t", "description": "t", "seedPassage": "t", "shards": 1,
        "reshardingMinimumOperationDurationMillis": 20000, {extra}
        "collections": [{{"ns": "a.b", "key": {{"x": 1}}}}],
        "workloads": [{{"ns": "a.b", "rate": 1000, "count": 1000, "docSize": 100,
                        "fields": {{"x": {{"sequence": {{}}}}, "y": {{"sequence": {{}}}}}}}}{workload}],
        "actions": [{{"at": 1, "do": {{"reshardCollection": {{"ns": "a.b", "key": {{"y": 1}}, "numInitialChunks": 4}}}}}}],
        "until": 40}}"#
    );
    let sc = scenario::parse(&text).unwrap();
    Simulator::from_scenario(&sc, 1, None).unwrap()
}

fn outcome(events: &[Event]) -> (usize, Vec<String>) {
    let commits = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::ReshardingCommitted { .. }))
        .count();
    let aborts = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ReshardingAborted { error, .. } => Some(error.code_name.to_string()),
            _ => None,
        })
        .collect();
    (commits, aborts)
}

#[test]
fn a_light_load_commits_with_the_requested_chunks() {
    let mut sim = small("", "");
    let events = run(&mut sim, 40_000);
    assert_eq!(outcome(&events), (1, vec![]));
    let coll = sim.cluster.collection("a.b").unwrap();
    assert_eq!(coll.table.len(), 4);
    assert_eq!(coll.pattern.to_string(), r#"{"y":1}"#);
}

#[test]
fn a_critical_section_timeout_below_its_cost_aborts_and_keeps_the_old_layout() {
    let mut sim = small(r#""reshardingCriticalSectionTimeoutMillis": 50,"#, "");
    let before: Vec<ShardKey> = sim.cluster.collections[0]
        .table
        .iter()
        .map(|c| c.min.clone())
        .collect();
    let events = run(&mut sim, 40_000);
    assert_eq!(
        outcome(&events),
        (0, vec!["ReshardingCriticalSectionTimeout".to_string()])
    );
    let coll = sim.cluster.collection("a.b").unwrap();
    assert_eq!(coll.pattern.to_string(), r#"{"x":1}"#);
    assert_eq!(coll.incarnation, 1);
    let after: Vec<ShardKey> = coll.table.iter().map(|c| c.min.clone()).collect();
    assert_eq!(before, after);
    assert!(coll.resharding.is_none());
    assert!(
        sim.action_errors()
            .iter()
            .any(|e| e.contains("ReshardingCriticalSectionTimeout"))
    );
}

/// When the critical section starts and when the resharding commits, with a steady write load.
fn critical_section_under_load(extra: &str) -> (u64, u64, u64) {
    let steady = r#", {"ns": "a.b", "rate": 1500, "start": 2, "stop": 35, "docSize": 100,
        "fields": {"x": {"sequence": {"start": 5000}}, "y": {"sequence": {"start": 5000}}}}"#;
    let mut sim = small(extra, steady);
    let events = run(&mut sim, 40_000);
    assert_eq!(outcome(&events), (1, vec![]));
    let (at, critical) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ReshardingCommitted {
                critical_section_ms,
                ..
            } => Some((e.at_ms, *critical_section_ms)),
            _ => None,
        })
        .unwrap();
    let coll = sim.cluster.collection("a.b").unwrap();
    let docs: u64 = (0..coll.table.len())
        .map(|i| coll.table.chunk(i).info.stats.docs)
        .sum();
    assert_eq!(docs, 1000 + 1500 * 33, "no write is lost");
    (at - critical, at, critical)
}

#[test]
fn the_critical_section_waits_until_the_remaining_time_is_under_the_threshold() {
    // 1,500 writes/s against one recipient applying 2,000/s: about 0.75–1.5 s behind. Under
    // 2,000 ms (8.0) the critical section starts when cloning is done…
    let (start, _, critical) = critical_section_under_load(r#""serverVersion": "8.0","#);
    assert!((21_000..22_000).contains(&start), "8.0 started at {start}");
    assert!(critical < 5_000);
    // …over 500 ms (8.1+) it waits until the writes stop at 35 s.
    for v in ["8.1", "8.2", "9.0"] {
        let (start, _, _) = critical_section_under_load(&format!(r#""serverVersion": "{v}","#));
        assert!((35_000..37_500).contains(&start), "{v} started at {start}");
    }
}

#[test]
fn changing_a_shard_key_value_moves_the_document_to_the_owning_shard() {
    let mut sim = start("reshard", None);
    let events = run(&mut sim, 11_500);
    let (from, to) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ShardKeyUpdated { from, to, .. } => Some((from.clone(), to.clone())),
            _ => None,
        })
        .unwrap();
    let coll = sim.cluster.collection("shop.orders").unwrap();
    let owner = |k: &ShardKey| coll.table.chunk(coll.table.route(k)).info.shard;
    let hashed = |id: i64| {
        coll.pattern
            .key_of(vec![shardtop::model::KeyValue::Int64(id)])
            .unwrap()
    };
    assert_eq!(from, hashed(4242));
    assert_eq!(to, hashed(4247));
    assert_ne!(
        owner(&from),
        owner(&to),
        "4242 and 4247 hash to different shards"
    );
    // The state just before (no other write between 11 s and 11.5 s): one document less on the
    // old shard, one more on the new one, a write on each.
    let mut before = start("reshard", None);
    run(&mut before, 11_000);
    let old = before.cluster.collection("shop.orders").unwrap();
    let docs = |c: &shardtop::cluster::Collection, s: ShardIdx| c.table.shard_totals(s).stats.docs;
    let (a, b) = (owner(&from), owner(&to));
    assert_eq!(docs(coll, a) + 1, docs(old, a));
    assert_eq!(docs(coll, b), docs(old, b) + 1);
    assert_eq!(coll.writes_to(a), old.writes_to(a) + 1);
    assert_eq!(coll.writes_to(b), old.writes_to(b) + 1);
}

#[test]
fn from_8_2_resharding_to_a_hashed_prefix_splits_like_an_empty_hashed_collection() {
    // Seed 003's 9.0.2 output: a 90-chunk request to a hashed key ends as one chunk per shard.
    let resharded = |version: &str| {
        let text = format!(
            r#"{{"name": "t", "description": "t", "seedPassage": "t", "shards": 3,
            "serverVersion": "{version}", "reshardingMinimumOperationDurationMillis": 5000,
            "collections": [{{"ns": "a.b", "key": {{"x": 1}}}}],
            "workloads": [{{"ns": "a.b", "rate": 1000, "count": 1000, "docSize": 100,
                "fields": {{"x": {{"sequence": {{}}}}, "y": {{"sequence": {{}}}}}}}}],
            "actions": [{{"at": 2, "do": {{"reshardCollection": {{"ns": "a.b",
                "key": {{"y": "hashed"}}, "numInitialChunks": 90}}}}}}],
            "until": 40}}"#
        );
        let sc = scenario::parse(&text).unwrap();
        let mut sim = Simulator::from_scenario(&sc, 1, None).unwrap();
        let events = run(&mut sim, 40_000);
        assert_eq!(outcome(&events), (1, vec![]), "{version}");
        let coll = sim.cluster.collection("a.b").unwrap();
        assert_eq!(coll.pattern.to_string(), r#"{"y":"hashed"}"#);
        let mut shards: Vec<u32> = coll.table.iter().map(|c| c.info.shard.0).collect();
        shards.sort_unstable();
        shards
    };
    assert_eq!(resharded("8.0").len(), 90, "8.0 honours numInitialChunks");
    assert_eq!(resharded("8.1").len(), 90, "8.1");
    for version in ["8.2", "8.3", "9.0"] {
        assert_eq!(resharded(version), [0, 1, 2], "{version}");
    }
}
