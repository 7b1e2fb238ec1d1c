//! `explain` of an `aggregate` (`{explain: {aggregate: …}}` or `{aggregate: …, explain: true}`),
//! as a mongos answers it (`s/query/cluster_aggregation_planner.cpp`, `appendExplainResults`):
//! the shards the pipeline's leading `$match` targets; when more than one answers, the pipeline
//! split where `sharded_agg_helpers.cpp` splits it — the streaming stages before the first
//! blocking one (`$sort`, `$group`, `$count`, `$limit`, `$skip`, `$facet`, `$sample`, …) run on
//! the shards, the rest on mongos after a `$mergeCursors` (`mergeType: "mongos"`), a `$group`'s
//! accumulators merged by their merging form (`$doingMerge`), a `$sort` merged in order and a
//! `$limit` applied on both sides; one shard: `splitPipeline: null`. Each shard's part is given
//! under `shards` by shard id, with its host and stages (the first a `$cursor` with the shard's
//! query plan).
//!
//! Simplified: the stages are shown as written (not in the server's serialized, optimized
//! form), and no execution statistics are given whatever the verbosity.

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

/// Stages a shard runs document by document: they stay in the shards' part until the first
/// stage that needs every document.
const STREAMING: &[&str] = &[
    "$match",
    "$project",
    "$addFields",
    "$set",
    "$unset",
    "$unwind",
    "$replaceRoot",
    "$replaceWith",
    "$redact",
];

/// A `$group` accumulator's merging form (`AccumulatorState::getMergingOperator` etc.).
fn merging(op: &str) -> &str {
    match op {
        "$push" => "$concatArrays",
        "$addToSet" => "$setUnion",
        other => other,
    }
}

/// The merging `$group` for a `$group` split between the shards and mongos.
fn merging_group(spec: &Document) -> Document {
    let mut out = doc! { "_id": "$$ROOT._id" };
    for (field, acc) in spec.iter().filter(|(k, _)| *k != "_id") {
        let op = match acc {
            Bson::Document(a) => a.keys().next().map_or("$first", String::as_str),
            _ => "$first",
        };
        let mut merged = Document::new();
        merged.insert(merging(op), format!("$$ROOT.{field}"));
        out.insert(field, merged);
    }
    out.insert("$doingMerge", true);
    out
}

/// The shards' part and mongos's part of a pipeline run on several shards.
fn split(ns: &str, stages: &[Document]) -> (Vec<Bson>, Vec<Bson>) {
    let at = stages
        .iter()
        .position(|s| {
            s.keys()
                .next()
                .is_none_or(|k| !STREAMING.contains(&k.as_str()))
        })
        .unwrap_or(stages.len());
    let mut shards: Vec<Bson> = stages[..at].iter().cloned().map(Bson::Document).collect();
    let mut merge_cursors = doc! {
        "compareWholeSortKey": false, "tailableMode": "normal", "nss": ns,
        "allowPartialResults": false,
    };
    let mut merger: Vec<Bson> = Vec::new();
    let mut rest = stages[at..].iter();
    match rest
        .next()
        .and_then(|s| s.iter().next().map(|(k, v)| (k.as_str(), v, s)))
    {
        Some(("$sort", Bson::Document(spec), s)) => {
            shards.push(Bson::Document(s.clone()));
            merge_cursors.insert("sort", spec.clone());
        }
        Some(("$group", Bson::Document(spec), s)) => {
            shards.push(Bson::Document(s.clone()));
            merger.push(Bson::Document(doc! { "$group": merging_group(spec) }));
        }
        Some(("$count", Bson::String(field), _)) => {
            shards.push(Bson::Document(
                doc! { "$group": { "_id": Bson::Null, field.as_str(): { "$sum": 1 } } },
            ));
            merger.push(Bson::Document(doc! { "$group": {
                "_id": "$$ROOT._id", field.as_str(): { "$sum": format!("$$ROOT.{field}") },
                "$doingMerge": true,
            } }));
            merger.push(Bson::Document(
                doc! { "$project": { "_id": false, field.as_str(): true } },
            ));
        }
        Some(("$limit", _, s)) => {
            shards.push(Bson::Document(s.clone()));
            merger.push(Bson::Document(s.clone()));
        }
        Some((_, _, s)) => merger.push(Bson::Document(s.clone())),
        None => {}
    }
    merger.extend(rest.cloned().map(Bson::Document));
    merger.insert(0, Bson::Document(doc! { "$mergeCursors": merge_cursors }));
    (shards, merger)
}

/// The explain of `{aggregate: coll, pipeline, …}` on `db`.
pub fn explain(state: &State, db: &str, cmd: &Document) -> Answer {
    let coll = match cmd.get("aggregate") {
        Some(Bson::String(c)) => c.clone(),
        _ => {
            return Err(reply::type_mismatch(
                "explain of an aggregate needs a collection name",
            ));
        }
    };
    let Some(Bson::Array(pipeline)) = cmd.get("pipeline") else {
        return Err(reply::type_mismatch(
            "'pipeline' option must be specified as an array",
        ));
    };
    let mut stages = Vec::with_capacity(pipeline.len());
    for s in pipeline {
        match s {
            Bson::Document(d) if d.len() == 1 => stages.push(d.clone()),
            _ => {
                return Err(MongoError::bad_value(
                    "A pipeline stage specification object must contain exactly one field.",
                ));
            }
        }
    }
    let ns = format!("{db}.{coll}");
    // The leading `$match` is what the shards' cursors read with and what targets them.
    let filter = match stages.first().and_then(|s| s.get("$match")) {
        Some(Bson::Document(f)) => f.clone(),
        _ => Document::new(),
    };
    crate::serve::query::matches(&Document::new(), &filter)?;
    let (_, shards, plan) = super::targets(state, db, &ns, &filter);
    let (shard_part, merger_part) = if shards.len() > 1 {
        let (s, m) = split(&ns, &stages);
        (s, Some(m))
    } else {
        (stages.iter().cloned().map(Bson::Document).collect(), None)
    };
    let cursor = doc! { "$cursor": { "queryPlanner": {
        "namespace": ns.as_str(), "parsedQuery": filter.clone(), "winningPlan": plan,
        "rejectedPlans": [],
    } } };
    let leading_match = stages.first().is_some_and(|s| s.contains_key("$match"));
    let mut per_shard = Document::new();
    for s in &shards {
        let mut stages: Vec<Bson> = vec![Bson::Document(cursor.clone())];
        // The leading `$match` is the cursor's query, not a stage of its own.
        stages.extend(shard_part.iter().skip(usize::from(leading_match)).cloned());
        let host = super::connection_string(state, *s);
        let host = host
            .split_once('/')
            .map_or(host.clone(), |(_, h)| h.to_string());
        per_shard.insert(
            super::shard_name(state, *s),
            doc! { "host": host, "stages": stages },
        );
    }
    let mut answer = Document::new();
    match merger_part {
        Some(m) => {
            answer.insert("mergeType", "mongos");
            answer.insert(
                "splitPipeline",
                doc! { "shardsPart": shard_part, "mergerPart": m },
            );
        }
        None => {
            answer.insert("splitPipeline", Bson::Null);
        }
    }
    answer.insert("shards", per_shard);
    Ok(ok(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_split_into_its_partial_and_merging_forms() {
        let stages = vec![
            doc! { "$match": { "a": 1 } },
            doc! { "$group": { "_id": "$k", "n": { "$sum": 1 }, "xs": { "$push": "$x" } } },
            doc! { "$sort": { "n": -1 } },
        ];
        let (shards, merger) = split("db.c", &stages);
        assert_eq!(shards.len(), 2);
        assert_eq!(merger.len(), 3);
        assert_eq!(
            merger[1],
            Bson::Document(doc! { "$group": {
                "_id": "$$ROOT._id", "n": { "$sum": "$$ROOT.n" },
                "xs": { "$concatArrays": "$$ROOT.xs" }, "$doingMerge": true,
            } })
        );
    }
}
