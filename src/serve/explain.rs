//! `explain` of a `find`, answered like a mongos: the shards the filter targets, worked out with
//! [`crate::model::targeting`] on the collection's routing table, under `queryPlanner.winningPlan`
//! (`SINGLE_SHARD` when one shard answers, `SHARD_MERGE` when several do), and per-shard
//! `executionStats` for the `executionStats` and `allPlansExecution` verbosities.
//!
//! The counts come from the kept documents, each on the shard owning its chunk today:
//! `nReturned` is the documents matching the filter (then `skip` and `limit`, as a shard applies
//! them); `totalDocsExamined` is every document on the shard for a `COLLSCAN`, or — when the
//! plan scans the shard key's index — those whose first shard-key field satisfies the filter's
//! conditions on it (`totalKeysExamined` the same). When some of the collection's documents are
//! not kept the reply says so in a `shardtop` field. A collection that is not sharded goes to its
//! database's primary shard, as mongos sends it.

use bson::{Bson, Document, doc};

use super::query;
use super::reply::{self, Answer, ok, opt_doc};
use super::state::State;
use crate::cluster::MongoError;
use crate::model::{ShardIdx, TargetKind, target};

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
    if name != "find" {
        return Err(MongoError::command_not_supported(format!(
            "shardtop serve explains find only, not '{name}'"
        )));
    }
    let coll = reply::first_string(explained, "find")?;
    let filter = opt_doc(explained, "filter")?.cloned().unwrap_or_default();
    // A bad filter fails the explain as it fails the find.
    super::query::matches(&Document::new(), &filter)?;
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
        let total = |f: fn(&Counts) -> u64| counts.iter().map(f).sum::<u64>() as i64;
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
                    "nReturned": n.returned as i64,
                    "executionTimeMillis": 0,
                    "totalKeysExamined": n.keys as i64,
                    "totalDocsExamined": n.docs as i64,
                    "executionStages": counted(&plan, n),
                })
            })
            .collect();
        let mut stats = doc! {
            "nReturned": returned,
            "executionTimeMillis": 0,
            "totalKeysExamined": total(|n| n.keys),
            "totalDocsExamined": total(|n| n.docs),
            "executionStages": {
                "stage": stage,
                "nReturned": returned,
                "executionTimeMillis": 0,
                "totalKeysExamined": total(|n| n.keys),
                "totalDocsExamined": total(|n| n.docs),
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
            "inputStage": { "stage": "IXSCAN", "keyPattern": key.clone(), "indexName": super::handshake::index_name(&key) },
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
    // The filter's conditions on the first shard-key field: what an index scan bounds.
    let on_key: Document = coll
        .and_then(|c| c.pattern.fields().first())
        .and_then(|f| {
            filter
                .get(&*f.path)
                .map(|v| (f.path.to_string(), v.clone()))
        })
        .into_iter()
        .collect();
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

/// `plan` with the shard's counts on every stage, as `executionStages` shows it.
fn counted(plan: &Document, n: &Counts) -> Document {
    let mut d = plan.clone();
    d.insert("nReturned", n.returned as i64);
    d.insert("works", n.docs as i64 + 1);
    match plan.get_str("stage") {
        Ok("IXSCAN") => {
            d.insert("keysExamined", n.keys as i64);
        }
        Ok("FETCH" | "COLLSCAN") => {
            d.insert("docsExamined", n.docs as i64);
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
