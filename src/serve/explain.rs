//! `explain` of a `find`, answered like a mongos: the shards the filter targets, worked out with
//! [`crate::model::targeting`] on the collection's routing table, under `queryPlanner.winningPlan`
//! (`SINGLE_SHARD` when one shard answers, `SHARD_MERGE` when several do), and per-shard
//! `executionStats` for the `executionStats` and `allPlansExecution` verbosities.
//!
//! Documents are not kept, so every count (`nReturned`, keys and documents examined) is zero and
//! the reply says so in a `shardtop` field. A collection that is not sharded goes to its
//! database's primary shard, as mongos sends it.

use bson::{Bson, Document, doc};

use super::reply::{self, Answer, ok, opt_doc};
use super::state::State;
use crate::model::{ShardIdx, TargetKind, target};
use crate::sim::SimError;

/// What the reply says about its counts.
const NOTE: &str = "documents are not kept; counts are zero";

/// The verbosities `explain` accepts.
const VERBOSITIES: &[&str] = &["queryPlanner", "executionStats", "allPlansExecution"];

/// `{explain: {find: coll, filter, …}, verbosity}` on the collection's database.
pub fn explain(state: &State, db: &str, cmd: &Document) -> Answer {
    let explained = reply::doc_arg(cmd, "explain")?;
    let verbosity = match cmd.get("verbosity") {
        None => "allPlansExecution".to_string(),
        Some(Bson::String(v)) if VERBOSITIES.contains(&v.as_str()) => v.clone(),
        Some(v) => {
            return Err(SimError::bad_value(format!(
                "Enumeration value '{v}' for field 'verbosity' is not a valid value."
            )));
        }
    };
    let name = explained.keys().next().cloned().unwrap_or_default();
    if name != "find" {
        return Err(SimError::command_not_supported(format!(
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
        let per_shard: Vec<Bson> = shards
            .iter()
            .map(|s| {
                Bson::Document(doc! {
                    "shardName": shard_name(state, *s),
                    "executionSuccess": true,
                    "nReturned": 0,
                    "executionTimeMillis": 0,
                    "totalKeysExamined": 0,
                    "totalDocsExamined": 0,
                    "executionStages": counted(&plan),
                })
            })
            .collect();
        answer.insert(
            "executionStats",
            doc! {
                "nReturned": 0,
                "executionTimeMillis": 0,
                "totalKeysExamined": 0,
                "totalDocsExamined": 0,
                "executionStages": {
                    "stage": stage,
                    "nReturned": 0,
                    "executionTimeMillis": 0,
                    "totalKeysExamined": 0,
                    "totalDocsExamined": 0,
                    "totalChildMillis": 0,
                    "shards": per_shard,
                },
                "shardtop": NOTE,
            },
        );
    }
    let mut command = explained.clone();
    command.insert("$db", db);
    answer.insert("command", command);
    answer.insert("shardtop", NOTE);
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

/// `plan` with zero counts on every stage, as `executionStages` shows it.
fn counted(plan: &Document) -> Document {
    let mut d = plan.clone();
    d.insert("nReturned", 0);
    d.insert("works", 0);
    if let Ok(input) = plan.get_document("inputStage") {
        d.insert("inputStage", counted(input));
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
