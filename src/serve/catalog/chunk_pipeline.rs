//! An aggregation on `config.chunks` that starts with `$match`: the chunk documents are built one
//! at a time, only with the fields the pipeline reads, and only those the match keeps are
//! collected — so a `$match` + `$group` over a million chunks neither builds a million whole
//! documents nor holds them. The fields come from the stages the pipeline has (`$match`,
//! `$group`, `$project` by inclusion or computed fields, `$sort`, `$skip`, `$limit`, `$count`);
//! any other stage, or an exclusion projection, needs whole documents (the general path).

use std::collections::BTreeSet;

use bson::{Bson, Document};

use crate::cluster::{MongoError, Placement};
use crate::serve::catalog::chunk_docs::{ChunkDocs, ChunkFields};
use crate::serve::query;
use crate::serve::query::chunk_filter::ChunkPrefilter;
use crate::serve::state::State;

/// The documents the leading `$match` keeps, with the fields the whole pipeline reads; `None`
/// when the pipeline's fields cannot be told (the caller builds whole documents).
pub fn matched(state: &State, pipeline: &[Bson]) -> Option<Result<Vec<Document>, MongoError>> {
    let Some(Bson::Document(first)) = pipeline.first() else {
        return None;
    };
    let filter = first.get_document("$match").ok()?;
    if let Err(e) = query::matches(&Document::new(), filter) {
        return Some(Err(e));
    }
    // What must be built per chunk (refused when the pipeline's fields cannot be told): terms on
    // what every chunk of a collection shares are decided once per collection.
    let (shared, per_chunk): (Document, Document) = filter
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .partition(|(k, _)| PER_COLLECTION.contains(&k.as_str()));
    let mut wanted = BTreeSet::new();
    for stage in &pipeline[1..] {
        stage_fields(stage.as_document()?, &mut wanted)?;
    }
    filter_fields(&per_chunk, &mut wanted)?;
    let want = ChunkFields::of(wanted.iter().map(String::as_str));
    let shared_fields = ChunkFields::of(PER_COLLECTION.iter().copied());
    let cluster = &state.sim.cluster;
    let v = cluster.version;
    let pre = ChunkPrefilter::of(Some(filter));
    let mut out = Vec::new();
    for c in state
        .catalog()
        .iter()
        .filter(|c| c.placement != Placement::Untracked)
    {
        let docs = ChunkDocs::of(state, c);
        if !shared.is_empty() {
            let Some(first) = c.table.iter().next() else {
                continue;
            };
            let common = docs.partial(state, c, v, first, shared_fields);
            if !query::matches(&common, &shared).unwrap_or(false) {
                continue;
            }
        }
        for ch in c.table.iter().filter(|ch| pre.admits(ch.info)) {
            let d = docs.partial(state, c, v, ch, want);
            match query::matches(&d, &per_chunk) {
                Ok(true) => out.push(d),
                Ok(false) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
    Some(Ok(out))
}

/// The fields every chunk document of one collection has alike.
const PER_COLLECTION: &[&str] = &["uuid", "ns", "lastmodEpoch"];

/// Adds the top-level fields `stage` reads; `None` when they cannot be told.
fn stage_fields(stage: &Document, out: &mut BTreeSet<String>) -> Option<()> {
    let (name, arg) = stage.iter().next()?;
    match (name.as_str(), arg) {
        ("$match", Bson::Document(f)) => filter_fields(f, out),
        ("$group", Bson::Document(g)) => {
            for (_, v) in g {
                expr_fields(v, out);
            }
            Some(())
        }
        ("$project", Bson::Document(p)) => {
            for (k, v) in p {
                match v {
                    Bson::Int32(0) | Bson::Int64(0) | Bson::Boolean(false) if k != "_id" => {
                        return None;
                    }
                    Bson::Int32(0) | Bson::Int64(0) | Bson::Boolean(false) => {}
                    Bson::Int32(_) | Bson::Int64(_) | Bson::Boolean(true) | Bson::Double(_) => {
                        out.insert(top(k));
                    }
                    other => expr_fields(other, out),
                }
            }
            if !p.contains_key("_id") {
                out.insert("_id".to_string());
            }
            Some(())
        }
        ("$sort", Bson::Document(s)) => {
            out.extend(s.keys().map(|k| top(k)));
            Some(())
        }
        ("$skip" | "$limit" | "$count", _) => Some(()),
        _ => None,
    }
}

fn filter_fields(f: &Document, out: &mut BTreeSet<String>) -> Option<()> {
    for (k, v) in f {
        match k.as_str() {
            "$and" | "$or" | "$nor" => {
                let Bson::Array(items) = v else {
                    return None;
                };
                for i in items {
                    let Bson::Document(d) = i else {
                        return None;
                    };
                    filter_fields(d, out)?;
                }
            }
            "$comment" => {}
            k if k.starts_with('$') => return None,
            k => {
                out.insert(top(k));
            }
        }
    }
    Some(())
}

/// The fields an expression reads: its `"$path"` strings, at any depth.
fn expr_fields(v: &Bson, out: &mut BTreeSet<String>) {
    match v {
        Bson::String(s) if s.starts_with('$') && !s.starts_with("$$") => {
            out.insert(top(&s[1..]));
        }
        Bson::Document(d) => d.values().for_each(|x| expr_fields(x, out)),
        Bson::Array(a) => a.iter().for_each(|x| expr_fields(x, out)),
        _ => {}
    }
}

fn top(path: &str) -> String {
    path.split('.').next().unwrap_or(path).to_string()
}
