//! `explain` of a `find` (and of an `aggregate`: see [`aggregate`]), answered like a mongos: the shards the filter targets, worked out with
//! [`crate::model::targeting`] on the collection's routing table, under `queryPlanner.winningPlan`
//! (`SINGLE_SHARD` when one shard answers, `SHARD_MERGE` when several do), and per-shard
//! `executionStats` for the `executionStats` and `allPlansExecution` verbosities.
//!
//! The counts come from the kept documents, each on the shard owning its chunk today:
//! `nReturned` is the documents matching the filter (then `skip` and `limit`, as a shard applies
//! them); `totalDocsExamined` is every document on the shard for a `COLLSCAN`, or — when the
//! plan scans the shard key's index — those within the index bounds: the filter's conditions on
//! the shard-key fields in order, past a field only while it is matched by equality
//! (`totalKeysExamined` the same). When some of the collection's documents are
//! not kept the reply says so in a `shardtop` field. A collection that is not sharded goes to its
//! database's primary shard, as mongos sends it.

pub mod aggregate;

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::{ShardIdx, TargetKind, target};
use crate::serve::query;
use crate::serve::reply::{self, Answer, ok, opt_doc};
use crate::serve::state::State;

/// The verbosities `explain` accepts.
const VERBOSITIES: &[&str] = &["queryPlanner", "executionStats", "allPlansExecution"];

/// `{explain: {find: coll, filter, …}, verbosity}` on the collection's database.
pub fn explain(state: &State, db: &str, cmd: &Document) -> Answer {
    let explained = reply::doc_arg(cmd, "explain")?;
    let verbosity = match cmd.get("verbosity") {
        None => "allPlansExecution".to_string(),
        Some(Bson::String(v)) if VERBOSITIES.contains(&v.as_str()) => v.clone(),
        Some(v) => {
            return Err(MongoError::bad_value(format!(
                "Enumeration value '{v}' for field 'verbosity' is not a valid value."
            )));
        }
    };
    let name = explained.keys().next().cloned().unwrap_or_default();
    if name == "aggregate" {
        return aggregate::explain(state, db, explained);
    }
    if name != "find" {
        return Err(MongoError::command_not_supported(format!(
            "shardtop serve explains find and aggregate only, not '{name}'"
        )));
    }
    let coll = reply::first_string(explained, "find")?;
    let filter = opt_doc(explained, "filter")?.cloned().unwrap_or_default();
    // A bad filter fails the explain as it fails the find.
    crate::serve::query::matches(&Document::new(), &filter)?;
    let ns = format!("{db}.{coll}");
    let (kind, shards, plan) = targets(state, db, &ns, &filter);
    let stage = kind.stage();
    let shard_plans: Vec<Bson> = shards
        .iter()
        .map(|s| {
            Bson::Document(doc! {
                "shardName": shard_name(state, *s),
                "connectionString": connection_string(state, *s),
                "namespace": ns.as_str(),
                "parsedQuery": filter.clone(),
                "winningPlan": plan.clone(),
                "rejectedPlans": [],
            })
        })
        .collect();
    let mut answer = doc! {
        "queryPlanner": {
            "mongosPlannerVersion": 1,
            "winningPlan": { "stage": stage, "shards": shard_plans },
        },
    };
    if verbosity != "queryPlanner" {
        let limits = (
            reply::opt_count(explained, "skip")?.unwrap_or(0).max(0) as u64,
            reply::opt_count(explained, "limit")?.filter(|l| *l != 0),
        );
        let counts = shard_counts(state, db, &ns, &filter, &shards, &plan, limits);
        // Counters as a server appends them (`appendNumber`: int32 when they fit).
        let total = |f: fn(&Counts) -> u64| counts.iter().map(f).sum::<u64>() as i64;
        let num = |n: i64| reply::number(n.max(0) as u64);
        let mut returned = (total(|n| n.returned) - limits.0 as i64).max(0);
        if let Some(l) = limits.1 {
            returned = returned.min(l.abs());
        }
        let per_shard: Vec<Bson> = shards
            .iter()
            .zip(&counts)
            .map(|(s, n)| {
                Bson::Document(doc! {
                    "shardName": shard_name(state, *s),
                    "executionSuccess": true,
                    "nReturned": reply::number(n.returned),
                    "executionTimeMillis": 0,
                    "totalKeysExamined": reply::number(n.keys),
                    "totalDocsExamined": reply::number(n.docs),
                    "executionStages": counted(&plan, n),
                })
            })
            .collect();
        let mut stats = doc! {
            "nReturned": num(returned),
            "executionTimeMillis": 0,
            "totalKeysExamined": num(total(|n| n.keys)),
            "totalDocsExamined": num(total(|n| n.docs)),
            "executionStages": {
                "stage": stage,
                "nReturned": num(returned),
                "executionTimeMillis": 0,
                "totalKeysExamined": num(total(|n| n.keys)),
                "totalDocsExamined": num(total(|n| n.docs)),
                "totalChildMillis": 0,
                "shards": per_shard,
            },
        };
        if let Some(note) = state.read_note(&ns) {
            stats.insert("shardtop", note);
        }
        answer.insert("executionStats", stats);
    }
    let mut command = explained.clone();
    command.insert("$db", db);
    answer.insert("command", command);
    if let Some(note) = state.read_note(&ns) {
        answer.insert("shardtop", note);
    }
    Ok(ok(answer))
}

/// How the filter is dispatched, to which shards, and the plan each shard runs.
fn targets(
    state: &State,
    db: &str,
    ns: &str,
    filter: &Document,
) -> (TargetKind, Vec<ShardIdx>, Document) {
    let cluster = &state.sim.cluster;
    let Some(c) = cluster.collection_index(ns) else {
        let primary = cluster.databases.get(db).copied().unwrap_or(ShardIdx(0));
        let plan = doc! { "stage": "COLLSCAN", "filter": filter.clone(), "direction": "forward" };
        return (TargetKind::SingleShard, vec![primary], plan);
    };
    let coll = &cluster.collections[c];
    let t = target(&coll.pattern, &coll.table, filter);
    let key = coll.pattern.to_document();
    let on_key = coll
        .pattern
        .fields()
        .first()
        .is_some_and(|f| mentions(filter, &f.path));
    let input = if on_key {
        doc! {
            "stage": "FETCH",
            "inputStage": { "stage": "IXSCAN", "keyPattern": key.clone(), "indexName": crate::serve::catalog::indexes::index_name(&key) },
        }
    } else {
        doc! { "stage": "COLLSCAN", "filter": filter.clone(), "direction": "forward" }
    };
    let plan = doc! { "stage": "SHARDING_FILTER", "inputStage": input };
    (t.kind, t.shards, plan)
}

/// Whether `filter` names `path` at its top level or inside `$and`/`$or`.
fn mentions(filter: &Document, path: &str) -> bool {
    filter.iter().any(|(k, v)| match (k.as_str(), v) {
        ("$and" | "$or", Bson::Array(branches)) => branches
            .iter()
            .any(|b| matches!(b, Bson::Document(d) if mentions(d, path))),
        _ => k == path,
    })
}

/// One shard's counts.
#[derive(Clone, Copy, Default)]
struct Counts {
    returned: u64,
    docs: u64,
    keys: u64,
}

/// The counts of each of `shards` over the kept documents of `ns` (see the module docs).
fn shard_counts(
    state: &State,
    db: &str,
    ns: &str,
    filter: &Document,
    shards: &[ShardIdx],
    plan: &Document,
    (skip, limit): (u64, Option<i64>),
) -> Vec<Counts> {
    let cluster = &state.sim.cluster;
    let index = cluster.collection_index(ns);
    let coll = index.map(|c| &cluster.collections[c]);
    let primary = cluster.databases.get(db).copied().unwrap_or(ShardIdx(0));
    let by_index = plan
        .get_document("inputStage")
        .is_ok_and(|i| i.get_str("stage") == Ok("FETCH"));
    let on_key = coll
        .map(|c| index_bounds(&c.pattern, filter))
        .unwrap_or_default();
    let mut counts = vec![Counts::default(); shards.len()];
    for (_, stored) in state.store.iter(ns) {
        let shard = match (index, coll) {
            (Some(i), Some(c)) => match state.sim.shard_key_of(i, &stored.doc) {
                Ok(key) => c.table.chunk(c.table.route(&key)).info.shard,
                Err(_) => continue,
            },
            _ => primary,
        };
        let Some(at) = shards.iter().position(|s| *s == shard) else {
            continue;
        };
        let n = &mut counts[at];
        let scanned = !by_index || query::matches(&stored.doc, &on_key).unwrap_or(false);
        if scanned {
            n.docs += 1;
            n.keys += u64::from(by_index);
        }
        if scanned && query::matches(&stored.doc, filter).unwrap_or(false) {
            n.returned += 1;
        }
    }
    if let Some(l) = limit {
        // mongos asks each shard for `limit + skip` documents and skips itself.
        for n in &mut counts {
            n.returned = n.returned.min(l.unsigned_abs() + skip);
        }
    }
    counts
}

/// The filter's conditions an index scan on the shard key bounds: each field's in key order,
/// going on past a field only while its condition is an equality (a point interval).
fn index_bounds(pattern: &crate::model::KeyPattern, filter: &Document) -> Document {
    let mut out = Document::new();
    for f in pattern.fields() {
        let Some(v) = filter.get(&*f.path) else {
            break;
        };
        let point = crate::serve::write_path::apply::equality(filter, &f.path).is_some();
        if f.hashed && !point {
            // A hashed field's index holds hashes: a range on the value bounds nothing.
            break;
        }
        out.insert(f.path.to_string(), v.clone());
        if !point {
            break;
        }
    }
    out
}

/// `plan` with the shard's counts on every stage, as `executionStages` shows it.
fn counted(plan: &Document, n: &Counts) -> Document {
    let mut d = plan.clone();
    d.insert("nReturned", reply::number(n.returned));
    d.insert("works", reply::number(n.docs + 1));
    match plan.get_str("stage") {
        Ok("IXSCAN") => {
            d.insert("keysExamined", reply::number(n.keys));
        }
        Ok("FETCH" | "COLLSCAN") => {
            d.insert("docsExamined", reply::number(n.docs));
        }
        _ => {}
    }
    if let Ok(input) = plan.get_document("inputStage") {
        d.insert("inputStage", counted(input, n));
    }
    d
}

fn shard_name(state: &State, s: ShardIdx) -> String {
    state.sim.cluster.shards.get(s.index()).map_or_else(
        || format!("shard{:04}", s.index()),
        |sh| sh.shard.id.clone(),
    )
}

fn connection_string(state: &State, s: ShardIdx) -> String {
    let id = shard_name(state, s);
    format!("{id}/{id}.shardtop.sim:27018")
}
