//! `aggregate` with the stages mongosh's helpers, the drivers and applications send:
//! `$match`, `$sort`, `$skip`, `$limit`, `$project` (inclusion, exclusion, computed fields),
//! `$addFields`/`$set`, `$unset`, `$replaceRoot`, `$unwind`, `$group` (`$sum`, `$avg`, `$min`,
//! `$max`, `$first`, `$last`, `$push`, `$addToSet`), `$count`, `$facet`, `$lookup` (see
//! [`lookup`]),
//! `$shardedDataDistribution` (6.0+, on admin), `$listClusterCatalog` (8.1+, see
//! [`list_cluster_catalog`]), `$currentOp` (on admin, see
//! [`current_op`]) and `$changeStream` (see [`change_stream`]), over the generated
//! config database or a user collection's kept documents (a `shardtop` field says when some are
//! not kept). Other stages are refused as a server refuses an unknown stage.
//!
//! May import `write_path`, `catalog`, `state`, `query` and `reply`, and the cursor helpers of
//! `find` and the `$changeStream` of `change_stream`.

pub mod change_stream;
pub mod chunk_sort;
pub mod coll_stats;
pub mod current_op;
pub mod current_op_resharding;
pub mod list_cluster_catalog;
pub mod lookup;

use crate::serve::reply::number;
use std::collections::VecDeque;

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::catalog::reads::{self, open_cursor};
use crate::serve::catalog::{chunk_counts, chunk_pipeline, sampled_queries};
use crate::serve::query::pipeline::{apply, bad, unknown_stage};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

/// `aggregate`.
pub fn aggregate(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let coll = match cmd.get("aggregate") {
        Some(Bson::String(s)) => Some(s.clone()),
        Some(Bson::Int32(1) | Bson::Int64(1)) => None,
        _ => {
            return Err(reply::type_mismatch(
                "aggregate needs a collection name or 1",
            ));
        }
    };
    let Some(Bson::Array(pipeline)) = cmd.get("pipeline") else {
        return Err(reply::type_mismatch(
            "'pipeline' option must be specified as an array",
        ));
    };
    let mut stages = pipeline.iter().map(|s| match s {
        Bson::Document(d) if d.len() == 1 => Ok(d),
        _ => Err(bad(
            "A pipeline stage specification object must contain exactly one field.",
        )),
    });
    let first_is_coll_stats = matches!(
        pipeline.first(),
        Some(Bson::Document(d)) if d.contains_key("$collStats")
    );
    let first_is_current_op = matches!(
        pipeline.first(),
        Some(Bson::Document(d)) if d.contains_key("$currentOp")
    );
    if first_is_current_op && (coll.is_some() || db != "admin") {
        return Err(reply::invalid_namespace(
            "$currentOp must be run against the 'admin' database with {aggregate: 1}",
        ));
    }
    if first_is_coll_stats && let Some(c) = &coll {
        let ns = format!("{db}.{c}");
        let stats = coll_stats::coll_stats(state, &ns)?;
        let mut rest = Vec::new();
        for s in stages.skip(1) {
            rest.push(s?);
        }
        let mut docs = stats;
        for stage in rest {
            docs = apply(stage, docs)?;
        }
        return finish(state, cmd, &ns, docs);
    }
    if let Some(Bson::Document(first)) = pipeline.first()
        && let Some(spec) = first.get("$changeStream")
    {
        let mut rest = Vec::new();
        for s in stages.skip(1) {
            rest.push(s?.clone());
        }
        return change_stream::open(state, db, coll.as_deref(), spec, rest, cmd);
    }
    if db == "config"
        && coll.as_deref() == Some("chunks")
        && let Some(answer) = chunk_counts(state, cmd, pipeline)
    {
        return answer;
    }
    let mut docs: Vec<Document> = match &coll {
        Some(c) => reads::documents(state, db, c),
        None => Vec::new(),
    };
    let mut rest = Vec::new();
    if let Some(first) = stages.next() {
        let first = first?;
        match first.keys().next().map(String::as_str) {
            Some("$currentOp") if coll.is_none() && db == "admin" => {
                docs = current_op::current_op(state, &first["$currentOp"])?;
            }
            Some("$listSampledQueries") if coll.is_none() && db == "admin" => {
                docs = sampled_queries::list(state, &first["$listSampledQueries"])?;
            }
            Some("$listClusterCatalog") => {
                docs = list_cluster_catalog::list(state, db, coll.is_some(), first)?;
            }
            // `db/pipeline/document_source_documents.cpp`: literal documents, `aggregate: 1`.
            Some("$documents") if coll.is_none() => docs = literal_documents(&first["$documents"])?,
            Some("$shardedDataDistribution") if coll.is_none() && db == "admin" => {
                docs = sharded_data_distribution(state)?;
            }
            _ => rest.push(first),
        }
    }
    for s in stages {
        rest.push(s?);
    }
    for stage in rest {
        docs = lookup::run(state, db, stage, docs)?;
    }
    let ns = coll
        .as_ref()
        .map_or_else(|| format!("{db}.$cmd.aggregate"), |c| format!("{db}.{c}"));
    let reply = finish(state, cmd, &ns, docs)?;
    Ok(match &coll {
        Some(c) => reads::with_note(state, db, c, reply),
        None => reply,
    })
}

/// `$documents: [{…}, …]`: each element must be an object.
fn literal_documents(arg: &Bson) -> Result<Vec<Document>, MongoError> {
    let Bson::Array(items) = arg else {
        return Err(bad(
            "error during $documents: the argument must evaluate to an array",
        ));
    };
    items
        .iter()
        .map(|i| match i {
            Bson::Document(d) => Ok(d.clone()),
            _ => Err(bad(
                "error during $documents: each element must be an object",
            )),
        })
        .collect()
}

/// A `config.chunks` pipeline the routing table answers (`chunk_counts`), whose leading sort
/// is read in an index order or top-k (`chunk_sort`), or whose leading `$match` builds only the
/// fields it reads (`chunk_pipeline`), then its other stages.
fn chunk_counts(state: &mut State, cmd: &Document, pipeline: &[Bson]) -> Option<Answer> {
    let (mut docs, consumed) = match chunk_sort::read(state, cmd, pipeline) {
        Some(Ok(read)) => read,
        Some(Err(e)) => return Some(Err(e)),
        None => match chunk_counts::answer(state, pipeline) {
            Some(docs) => (docs, 2),
            None => match chunk_pipeline::matched(state, pipeline)? {
                Ok(docs) => (docs, 1),
                Err(e) => return Some(Err(e)),
            },
        },
    };
    for s in pipeline.iter().skip(consumed) {
        let Bson::Document(stage) = s else {
            return Some(Err(bad(
                "A pipeline stage specification object must contain exactly one field.",
            )));
        };
        docs = match apply(stage, docs) {
            Ok(d) => d,
            Err(e) => return Some(Err(e)),
        };
    }
    Some(finish(state, cmd, "config.chunks", docs))
}

/// Opens the reply cursor over the pipeline's result.
fn finish(state: &mut State, cmd: &Document, ns: &str, docs: Vec<Document>) -> Answer {
    let batch = match reply::opt_doc(cmd, "cursor")? {
        Some(c) => reply::opt_count(c, "batchSize")?,
        None => return Err(bad("The 'cursor' option is required")),
    };
    let mut left: VecDeque<Document> = docs.into();
    let (first, id) = open_cursor(state, ns, &mut left, batch);
    Ok(ok(
        doc! { "cursor": { "firstBatch": first, "id": id, "ns": ns } },
    ))
}

/// `$shardedDataDistribution`: per sharded collection and per shard that owns a chunk or holds
/// orphans, the owned and orphaned documents, and their sizes as the stage computes them
/// (`avgObjSize` × count, the average taken over owned and orphaned documents together).
// 6.0.x-era and 8.0-era `db/pipeline/document_source_sharded_data_distribution.cpp`; numbers as
// `appendNumber` and `$multiply` give them (int32 when they fit, int64 otherwise).
fn sharded_data_distribution(state: &State) -> Result<Vec<Document>, MongoError> {
    if state.sim.cluster.version < ServerVersion::V6_0 {
        return Err(unknown_stage("$shardedDataDistribution"));
    }
    let cluster = &state.sim.cluster;
    // 8.0: unsplittable (and untracked) collections are left out
    // (`matchingShardedCollection.unsplittable: {$ne: true}`).
    Ok(state
        .catalog()
        .iter()
        .filter(|c| c.placement == crate::cluster::Placement::Sharded)
        .map(|c| {
            // A removed shard is no longer asked (the stage runs on the shards `config.shards`
            // lists), whatever orphans it still held.
            let shards: Vec<Bson> = (0..cluster.shards.len())
                .filter(|&i| !cluster.shards[i].removed)
                .map(|i| crate::model::ShardIdx(i as u32))
                .filter_map(|s| {
                    let t = c.table.shard_totals(s);
                    let (orphan_docs, orphan_bytes) = c.orphans_on(s);
                    let docs = t.stats.docs + orphan_docs;
                    let avg = (t.stats.bytes + orphan_bytes)
                        .checked_div(docs)
                        .unwrap_or(0);
                    (t.chunks > 0 || orphan_docs > 0).then(|| {
                        Bson::Document(doc! {
                            "shardName": cluster.shard_id(s),
                            "numOrphanedDocs": number(orphan_docs),
                            "numOwnedDocuments": number(t.stats.docs),
                            "ownedSizeBytes": number(avg * t.stats.docs),
                            "orphanedSizeBytes": number(avg * orphan_docs),
                        })
                    })
                })
                .collect();
            doc! { "ns": &c.ns, "shards": shards }
        })
        .collect())
}
