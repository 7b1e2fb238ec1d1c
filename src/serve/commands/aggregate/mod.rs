//! `aggregate` with the stages mongosh's helpers and the drivers' `countDocuments` send:
//! `$match`, `$sort`, `$skip`, `$limit`, `$project` (inclusion, exclusion, field references,
//! `$ifNull`, `$literal`), `$group` (`$sum`, `$min`, `$max`, `$first`, `$last`, `$push`), `$count`,
//! `$shardedDataDistribution` (6.0+, on admin), `$currentOp` (on admin, see
//! [`crate::serve::commands::aggregate::current_op`]) and `$changeStream` (see [`crate::serve::commands::change_stream`]), over the generated
//! config database or a user collection's kept documents (a `shardtop` field says when some are
//! not kept). Other stages are refused as a server refuses an unknown stage.

pub mod coll_stats;
pub mod current_op;
pub mod current_op_resharding;

use crate::serve::reply::number;
use std::collections::VecDeque;

use bson::{Bson, Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::commands::find::{self, open_cursor};
use crate::serve::query::{self, Projection, compare, get_path};
use crate::serve::reply::{self, Answer, ok};
use crate::serve::state::State;

pub(crate) fn unknown_stage(name: &str) -> MongoError {
    MongoError {
        code: 40324,
        code_name: "Location40324",
        message: format!("Unrecognized pipeline stage name: '{name}'"),
    }
}

fn bad(m: impl Into<String>) -> MongoError {
    MongoError::bad_value(m)
}

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
        let stats = crate::serve::commands::aggregate::coll_stats::coll_stats(state, &ns)?;
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
        return crate::serve::commands::change_stream::open(
            state,
            db,
            coll.as_deref(),
            spec,
            rest,
            cmd,
        );
    }
    if db == "config"
        && coll.as_deref() == Some("chunks")
        && let Some(answer) = chunk_counts(state, cmd, pipeline)
    {
        return answer;
    }
    let mut docs: Vec<Document> = match &coll {
        Some(c) => find::documents(state, db, c),
        None => Vec::new(),
    };
    let mut rest = Vec::new();
    if let Some(first) = stages.next() {
        let first = first?;
        match first.keys().next().map(String::as_str) {
            Some("$currentOp") if coll.is_none() && db == "admin" => {
                docs = crate::serve::commands::aggregate::current_op::current_op(
                    state,
                    &first["$currentOp"],
                )?;
            }
            Some("$listSampledQueries") if coll.is_none() && db == "admin" => {
                docs = crate::serve::commands::query_analyzer::list(
                    state,
                    &first["$listSampledQueries"],
                )?;
            }
            // `db/pipeline/document_source_documents.cpp`: literal documents, `aggregate: 1`.
            Some("$documents") if coll.is_none() => docs = literal_documents(&first["$documents"])?,
            Some("$shardedDataDistribution") if coll.is_none() && db == "admin" => {
                if state.sim.cluster.version < ServerVersion::V6_0 {
                    return Err(unknown_stage("$shardedDataDistribution"));
                }
                docs = sharded_data_distribution(state);
            }
            _ => rest.push(first),
        }
    }
    for s in stages {
        rest.push(s?);
    }
    for stage in rest {
        docs = apply(stage, docs)?;
    }
    let ns = coll
        .as_ref()
        .map_or_else(|| format!("{db}.$cmd.aggregate"), |c| format!("{db}.{c}"));
    let reply = finish(state, cmd, &ns, docs)?;
    Ok(match &coll {
        Some(c) => find::with_note(state, db, c, reply),
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

/// A `config.chunks` pipeline the routing table answers (`chunk_counts`), or whose leading
/// `$match` builds only the fields it reads (`chunk_pipeline`), then its other stages.
fn chunk_counts(state: &mut State, cmd: &Document, pipeline: &[Bson]) -> Option<Answer> {
    let (mut docs, consumed) = match crate::serve::catalog::chunk_counts::answer(state, pipeline) {
        Some(docs) => (docs, 2),
        None => match crate::serve::catalog::chunk_pipeline::matched(state, pipeline)? {
            Ok(docs) => (docs, 1),
            Err(e) => return Some(Err(e)),
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

pub(crate) fn apply(
    stage: &Document,
    mut docs: Vec<Document>,
) -> Result<Vec<Document>, MongoError> {
    let Some((name, arg)) = stage.iter().next() else {
        return Ok(docs);
    };
    match (name.as_str(), arg) {
        ("$match", Bson::Document(f)) => crate::serve::query::in_sets::prepared(f, || {
            let mut out = Vec::new();
            for (i, d) in docs.into_iter().enumerate() {
                crate::serve::query::deadline::check_every(i)?;
                if query::matches(&d, f)? {
                    out.push(d);
                }
            }
            Ok(out)
        }),
        ("$sort", Bson::Document(s)) => {
            query::sort(&mut docs, s)?;
            Ok(docs)
        }
        ("$skip", n) => {
            let n = count_of(n, "$skip")?;
            docs.drain(..n.min(docs.len()));
            Ok(docs)
        }
        ("$limit", n) => {
            docs.truncate(count_of(n, "$limit")?);
            Ok(docs)
        }
        ("$count", Bson::String(field)) => count_field(field).map(|()| {
            if docs.is_empty() {
                Vec::new()
            } else {
                vec![doc! { field: docs.len() as i32 }]
            }
        }),
        ("$project", Bson::Document(p)) => project(p, &docs),
        ("$group", Bson::Document(g)) => group(g, &docs),
        ("$sample", spec) => crate::serve::query::sample::sample(spec, docs),
        (other, _) if other.starts_with('$') => Err(unknown_stage(other)),
        (other, _) => Err(unknown_stage(other)),
    }
}

/// `$count`'s field name, checked as `DocumentSourceCount` checks it
/// (src/mongo/db/pipeline/document_source_count.cpp).
fn count_field(field: &str) -> Result<(), MongoError> {
    let refused = if field.is_empty() {
        Some((
            40157,
            "Location40157",
            "the count field must be a non-empty string",
        ))
    } else if field.starts_with('$') {
        Some((
            40158,
            "Location40158",
            "the count field cannot be a $-prefixed path",
        ))
    } else if field.contains('\0') {
        Some((
            40159,
            "Location40159",
            "the count field cannot contain a null byte",
        ))
    } else if field.contains('.') {
        Some((40160, "Location40160", "the count field cannot contain '.'"))
    } else {
        None
    };
    match refused {
        Some((code, code_name, m)) => Err(MongoError {
            code,
            code_name,
            message: m.to_string(),
        }),
        None => Ok(()),
    }
}

fn count_of(n: &Bson, stage: &str) -> Result<usize, MongoError> {
    match n {
        Bson::Int32(n) if *n >= 0 => Ok(*n as usize),
        Bson::Int64(n) if *n >= 0 => Ok(*n as usize),
        Bson::Double(d) if *d >= 0.0 && d.fract() == 0.0 => Ok(*d as usize),
        _ => Err(bad(format!("invalid argument to {stage} stage"))),
    }
}

/// Evaluates an expression: `"$path"`, `{$ifNull: [a, b]}`, `{$literal: v}`, a document of
/// expressions, or a constant.
fn eval(doc: &Document, expr: &Bson) -> Result<Bson, MongoError> {
    Ok(match expr {
        Bson::String(s) if s.starts_with('$') => {
            get_path(doc, &s[1..]).cloned().unwrap_or(Bson::Null)
        }
        Bson::Document(d) => match d.iter().next() {
            Some((op, arg)) if op == "$literal" => arg.clone(),
            // `db/pipeline/expression.cpp` (`ExpressionToHashedIndexKey`): the hashed index's
            // value of the argument, a long (a missing value hashes as null).
            Some((op, arg)) if op == "$toHashedIndexKey" => {
                let v = eval(doc, arg)?;
                Bson::Int64(crate::model::hash::hash64(
                    &crate::model::extjson::from_bson(&v),
                ))
            }
            Some((op, Bson::Array(args))) if op == "$ifNull" && args.len() >= 2 => {
                let mut value = Bson::Null;
                for a in args {
                    value = eval(doc, a)?;
                    if !matches!(value, Bson::Null) {
                        break;
                    }
                }
                value
            }
            Some((op, _)) if op.starts_with('$') => {
                return Err(MongoError {
                    code: 168,
                    code_name: "InvalidPipelineOperator",
                    message: format!("Unrecognized expression '{op}'"),
                });
            }
            _ => {
                let mut out = Document::new();
                for (k, v) in d {
                    out.insert(k, eval(doc, v)?);
                }
                Bson::Document(out)
            }
        },
        other => other.clone(),
    })
}

fn project(spec: &Document, docs: &[Document]) -> Result<Vec<Document>, MongoError> {
    let computed = spec
        .iter()
        .any(|(_, v)| matches!(v, Bson::String(_) | Bson::Document(_)));
    if !computed {
        let p = Projection::parse(spec)?;
        return Ok(docs.iter().map(|d| p.apply(d)).collect());
    }
    let keep_id = !matches!(spec.get("_id"), Some(Bson::Int32(0) | Bson::Boolean(false)));
    docs.iter()
        .map(|d| {
            let mut out = Document::new();
            if keep_id
                && !spec.contains_key("_id")
                && let Some(id) = d.get("_id")
            {
                out.insert("_id", id.clone());
            }
            for (k, v) in spec {
                match v {
                    Bson::Int32(0) | Bson::Boolean(false) => {}
                    Bson::Int32(_) | Bson::Int64(_) | Bson::Boolean(true) | Bson::Double(_) => {
                        if let Some(x) = get_path(d, k) {
                            out.insert(k, x.clone());
                        }
                    }
                    expr => {
                        out.insert(k, eval(d, expr)?);
                    }
                }
            }
            Ok(out)
        })
        .collect()
}

fn add(a: &Bson, b: &Bson) -> Bson {
    match (a, b) {
        (Bson::Int32(x), Bson::Int32(y)) => x
            .checked_add(*y)
            .map_or(Bson::Int64(i64::from(*x) + i64::from(*y)), Bson::Int32),
        (Bson::Int32(x), Bson::Int64(y)) | (Bson::Int64(y), Bson::Int32(x)) => {
            Bson::Int64(i64::from(*x) + y)
        }
        (Bson::Int64(x), Bson::Int64(y)) => Bson::Int64(x + y),
        (x, y) => Bson::Double(as_f64(x) + as_f64(y)),
    }
}

fn as_f64(b: &Bson) -> f64 {
    match b {
        Bson::Int32(n) => f64::from(*n),
        Bson::Int64(n) => *n as f64,
        Bson::Double(d) => *d,
        _ => 0.0,
    }
}

fn group(spec: &Document, docs: &[Document]) -> Result<Vec<Document>, MongoError> {
    let id_expr = spec
        .get("_id")
        .ok_or_else(|| bad("a group specification must include an _id"))?;
    // Each group's `_id` in BSON order once, so a document's is compared without converting
    // every group's again.
    let mut groups: Vec<(crate::model::KeyValue, Document)> = Vec::new();
    for d in docs {
        let id = eval(d, id_expr)?;
        let key = crate::model::extjson::from_bson(&id);
        let found = groups.iter().position(|(g, _)| *g == key);
        let at = found.unwrap_or_else(|| {
            groups.push((key, doc! { "_id": id }));
            groups.len() - 1
        });
        let out = &mut groups[at].1;
        for (field, acc) in spec.iter().filter(|(k, _)| *k != "_id") {
            let Bson::Document(acc) = acc else {
                return Err(bad(format!(
                    "The field '{field}' must be an accumulator object"
                )));
            };
            let Some((op, arg)) = acc.iter().next() else {
                return Err(bad(format!(
                    "The field '{field}' must specify one accumulator"
                )));
            };
            let value = eval(d, arg)?;
            let previous = out.get(field).cloned();
            let next = match (op.as_str(), previous) {
                ("$sum", prev) => {
                    let v = if matches!(value, Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_)) {
                        value
                    } else {
                        Bson::Int32(0)
                    };
                    add(&prev.unwrap_or(Bson::Int32(0)), &v)
                }
                ("$min", Some(p)) if compare(&p, &value).is_le() => p,
                ("$max", Some(p)) if compare(&p, &value).is_ge() => p,
                ("$min" | "$max" | "$last", _) | ("$first", None) => value,
                ("$first", Some(p)) => p,
                ("$push", prev) => {
                    let mut items = match prev {
                        Some(Bson::Array(a)) => a,
                        _ => Vec::new(),
                    };
                    items.push(value);
                    Bson::Array(items)
                }
                (other, _) => {
                    return Err(MongoError {
                        code: 15952,
                        code_name: "Location15952",
                        message: format!("unknown group operator '{other}'"),
                    });
                }
            };
            out.insert(field, next);
        }
    }
    Ok(groups.into_iter().map(|(_, d)| d).collect())
}

/// `$shardedDataDistribution`: per sharded collection and per shard that owns a chunk or holds
/// orphans, the owned and orphaned documents, and their sizes as the stage computes them
/// (`avgObjSize` × count, the average taken over owned and orphaned documents together).
// 6.0.x-era and 8.0-era `db/pipeline/document_source_sharded_data_distribution.cpp`; numbers as
// `appendNumber` and `$multiply` give them (int32 when they fit, int64 otherwise).
fn sharded_data_distribution(state: &State) -> Vec<Document> {
    let cluster = &state.sim.cluster;
    // 8.0: unsplittable (and untracked) collections are left out
    // (`matchingShardedCollection.unsplittable: {$ne: true}`).
    state
        .catalog()
        .iter()
        .filter(|c| c.placement == crate::cluster::Placement::Sharded)
        .map(|c| {
            let shards: Vec<Bson> = (0..cluster.shards.len())
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
        .collect()
}
