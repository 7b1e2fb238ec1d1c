#![allow(clippy::unwrap_used)]
//! `shardtop lab --example orders` reproduces seed 003's "Comparing candidate keys for orders":
//! `{_id: 1}` sends every insert to one shard and broadcasts the customer queries; `{city: 1}`
//! has eight values and at most eight or nine chunks; `{customerId: "hashed"}` spreads writes
//! evenly, keeps customer X on one shard and broadcasts the customer range; `{customerId: 1,
//! placedAt: 1}` spreads them and keeps every customer query on one shard; the date-only query
//! is a broadcast under all four. And the JSON has the contract's fields.

use std::sync::OnceLock;

use shardtop::lab::input::example;
use shardtop::lab::report::markdown;
use shardtop::lab::report::{CandidateReport, Report};
use shardtop::lab::trial::run::ClusterSpec;
use shardtop::lab::trial::{Arrival, Trial};
use shardtop::model::KeyPattern;
use shardtop::model::targeting::TargetKind;

fn report() -> &'static Report {
    static REPORT: OnceLock<Report> = OnceLock::new();
    REPORT.get_or_init(|| {
        let keys: Vec<KeyPattern> = example::CANDIDATES
            .iter()
            .map(|k| KeyPattern::parse_json(k).unwrap())
            .collect();
        let unique = vec![KeyPattern::parse_json(example::UNIQUE_INDEX).unwrap()];
        let spec = ClusterSpec::new(3, 1, shardtop::cluster::ServerVersion::DEFAULT);
        let arrival = Arrival {
            from_empty: false,
            initial_docs: example::ORDERS / 2,
            rate_per_sec: 1000.0,
        };
        let mut trial = Trial::new(spec, arrival, &keys, &unique).unwrap();
        let mut docs = example::orders(example::SEED).map(|d| {
            let n = bson::to_vec(&d).unwrap().len() as u64;
            Ok::<_, ()>((d, n))
        });
        trial.run_to_end(&mut docs).unwrap();
        trial.finish(&example::traffic(), &unique)
    })
}

fn candidate(i: usize) -> &'static CandidateReport {
    &report().candidates[i]
}

/// Seed 003's queries, in the example traffic's order.
const CUSTOMER: usize = 0;
const CUSTOMER_RANGE: usize = 1;
const CUSTOMER_DATES: usize = 2;
const DATES: usize = 3;

fn broadcast(c: &CandidateReport, q: usize) -> bool {
    c.queries[q].kind == TargetKind::ShardMerge && c.queries[q].shards == 3
}

fn single(c: &CandidateReport, q: usize) -> bool {
    c.queries[q].kind == TargetKind::SingleShard && c.queries[q].shards == 1
}

#[test]
fn an_object_id_key_sends_every_insert_to_one_shard_and_broadcasts_the_customer_queries() {
    let c = candidate(0);
    assert!(c.max_shard_share >= 0.99, "{:?}", c.shares);
    assert!(c.hottest_chunk_share >= 0.99);
    assert_eq!(c.characteristics.monotonicity.as_str(), "monotonic");
    assert!(c.characteristics.is_unique);
    for q in [CUSTOMER, CUSTOMER_RANGE, CUSTOMER_DATES] {
        assert!(broadcast(c, q), "{:?}", c.queries[q]);
    }
    assert_eq!(c.max_chunks, None);
    assert!(
        c.verdict
            .starts_with("writes: all inserts to one shard (monotonic)"),
        "{}",
        c.verdict
    );
    assert!(
        c.verdict
            .ends_with("divisibility: no ceiling (new values keep arriving)"),
        "{}",
        c.verdict
    );
    // No shard key in the customer's filters: analyzeShardKey's scatter-gather.
    assert!(
        c.verdict
            .contains("scatter-gather (no shard key in the filter)"),
        "{}",
        c.verdict
    );
    // The balancer moves ranges off the shard taking the inserts.
    assert!(c.migrations > 0);
}

#[test]
fn a_city_key_has_eight_values_and_at_most_eight_chunks_with_data() {
    let c = candidate(1);
    assert_eq!(c.characteristics.num_distinct_values, 8);
    assert!(c.chunks <= 9, "{} chunks", c.chunks);
    // One chunk a value at most (the chunk below the first city holds none).
    assert_eq!(c.max_chunks, Some(8));
    assert!(c.jumbo > 0);
    // Each city's orders are about 2.7 MB, over the 1 MB chunk size (seed 003: "about 2 MB").
    assert_eq!(c.indivisible_values, 8);
    assert_eq!(candidate(2).indivisible_values, 0);
    for q in [CUSTOMER, CUSTOMER_RANGE, CUSTOMER_DATES, DATES] {
        assert!(broadcast(c, q));
    }
    assert!(c.verdict.contains("writes: 8 hot spots"), "{}", c.verdict);
    assert!(c.verdict.contains("8 chunks max"), "{}", c.verdict);
    assert!(
        c.verdict
            .contains("the most common value is over the chunk size"),
        "{}",
        c.verdict
    );
    // The most common values are the cities, each about an eighth.
    assert_eq!(c.characteristics.most_common_values.len(), 5);
    for (_, n) in &c.characteristics.most_common_values {
        assert!((20_000..30_000).contains(n), "{n}");
    }
}

#[test]
fn a_hashed_customer_key_is_even_keeps_a_customer_on_one_shard_and_broadcasts_the_range() {
    let c = candidate(2);
    assert!(c.max_shard_share < 0.4, "{:?}", c.shares);
    assert!(single(c, CUSTOMER));
    assert!(single(c, CUSTOMER_DATES));
    assert!(broadcast(c, CUSTOMER_RANGE));
    assert_eq!(c.characteristics.coefficient, Some(0.0));
    assert!(c.verdict.starts_with("writes: even"), "{}", c.verdict);
    assert!(
        c.verdict.contains("no range targeting on customerId"),
        "{}",
        c.verdict
    );
    // analyzeShardKey: equality on the key is single-shard, the rest spans the key space.
    let r = &c.distribution.reads;
    assert!((r.percent(r.single) - 80.0).abs() < 1e-9);
    assert!((r.percent(r.scatter) - 20.0).abs() < 1e-9);
}

#[test]
fn a_compound_customer_key_spreads_writes_and_keeps_every_customer_query_on_one_shard() {
    let c = candidate(3);
    assert!(c.max_shard_share < 0.4, "{:?}", c.shares);
    for q in [CUSTOMER, CUSTOMER_RANGE, CUSTOMER_DATES] {
        assert!(single(c, q), "{:?}", c.queries[q]);
    }
    assert!(c.verdict.contains("spread across customerId values"));
    assert_eq!(c.characteristics.monotonicity.as_str(), "not monotonic");
    // The unique index starts with customerId: only the customer keys allow it.
    let allowed: Vec<bool> = report()
        .candidates
        .iter()
        .map(|c| c.unique_indexes[0].1)
        .collect();
    assert_eq!(allowed, [false, false, true, false]);
}

#[test]
fn the_date_only_query_is_a_broadcast_under_every_key() {
    for c in &report().candidates {
        assert!(broadcast(c, DATES), "{:?}", c.key);
    }
}

#[test]
fn the_writes_without_the_shard_key_and_the_customer_change_are_counted() {
    // The update by _id is single-shard only under {_id: 1}; changing customerId is a shard-key
    // update under the customer keys (weights 8 and 2).
    let w = |i: usize| candidate(i).distribution.writes;
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} != {b}");
    close(w(0).percent(w(0).single), 80.0);
    close(w(0).percent(w(0).shard_key_updates), 0.0);
    for i in [2, 3] {
        close(w(i).percent(w(i).shard_key_updates), 20.0);
    }
    close(w(1).percent(w(1).single_without_key), 100.0);
}

#[test]
fn the_json_and_the_table_have_every_field() {
    let json = report().to_json();
    assert_eq!(json["format"], "shardtop-lab");
    assert_eq!(json["version"], 1);
    assert_eq!(json["documents"], 200_000);
    assert_eq!(json["serverVersion"], "8.0");
    let c = &json["candidates"][2];
    assert_eq!(c["key"], serde_json::json!({"customerId": "hashed"}));
    for f in [
        "numDocsTotal",
        "numDocsSampled",
        "numDistinctValues",
        "isUnique",
        "mostCommonValues",
        "monotonicity",
        "avgDocSizeBytes",
    ] {
        assert!(!c["keyCharacteristics"][f].is_null(), "{f}");
    }
    assert_eq!(
        c["keyCharacteristics"]["monotonicity"]["type"],
        "not monotonic"
    );
    assert_eq!(
        c["queries"][0]["filter"],
        serde_json::json!({"customerId": 4242})
    );
    assert_eq!(c["queries"][0]["targeting"], "SINGLE_SHARD");
    assert_eq!(c["reads"]["percentageOfSingleShardReads"], 80.0);
    assert_eq!(c["writes"]["shards"].as_array().unwrap().len(), 3);
    assert!(c["writes"]["maxShardShare"].as_f64().unwrap() < 0.4);
    assert_eq!(json["candidates"][1]["maxChunks"], 8);
    assert!(json["candidates"][0]["maxChunks"].is_null());
    assert_eq!(
        json["candidates"][2]["uniqueIndexes"][0],
        serde_json::json!({"key": {"customerId": 1, "orderNo": 1}, "allowed": true})
    );
    let table = markdown::table(report());
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 6);
    assert!(rows[0].contains("`find({customerId: 4242})`"));
    assert!(rows[0].contains(r#"`find({placedAt: {$gte: ISODate("2026-09-01")}})`"#));
    assert!(
        rows[3].starts_with("| `{city: 1}` | 8 hot spots | scatter-gather |"),
        "{}",
        rows[3]
    );
    assert!(
        rows[4].starts_with("| `{customerId: \"hashed\"}` | even | one shard | scatter-gather |"),
        "{}",
        rows[4]
    );
    assert!(c["keyCharacteristics"].get("numDocs").is_none());
    assert_eq!(
        c["keyCharacteristics"]["numDocsTotal"],
        c["keyCharacteristics"]["numDocsSampled"]
    );
}
