//! Reads: `find` (filter, sort, projection, skip, limit, batchSize, singleBatch), `getMore`,
//! `killCursors`, `count` and `distinct` over the generated config database and the kept
//! documents of user collections ([`crate::serve::state::store`]). A read on a collection some of whose
//! documents are not kept carries a `shardtop` field saying how many and why.
//!
//! May import `write_path`, `catalog`, `state`, `query` and `reply`.

pub mod kept_cursor;

use std::collections::VecDeque;

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::catalog::blocking_sort;
use crate::serve::catalog::chunk_scope::{ChunkOrder, ChunkScope};
use crate::serve::catalog::chunks_cursor::ChunkCursor;
use crate::serve::catalog::config_db;
use crate::serve::catalog::reads::{
    BATCH_BYTES, DEFAULT_BATCH, documents, insert, open, take_batch, with_note,
};
use crate::serve::commands::find::kept_cursor::StoreCursor;
use crate::serve::query::{self, Projection};
use crate::serve::reply::raw_reply::Reply;
use crate::serve::reply::{self, Answer, ok, opt_count, opt_doc};
use crate::serve::state::Rest;
use crate::serve::state::State;
use crate::serve::state::cursors::Batch;

/// The filtered, sorted, skipped and limited documents of a read.
pub fn select(
    state: &State,
    db: &str,
    coll: &str,
    filter: Option<&Document>,
    sort: Option<&Document>,
    skip: Option<i64>,
    limit: Option<i64>,
) -> Result<Vec<Document>, MongoError> {
    if let Some(f) = filter {
        // Surface a bad filter even when there is nothing to match against.
        query::matches(&Document::new(), f)?;
    }
    let none = Document::new();
    let mut docs = crate::serve::query::in_sets::prepared(filter.unwrap_or(&none), || {
        selected(state, db, coll, filter)
    })?;
    if let Some(s) = sort {
        crate::serve::query::deadline::check()?;
        query::sort(&mut docs, s)?;
    }
    let skip = usize::try_from(skip.unwrap_or(0))
        .map_err(|_| MongoError::bad_value("skip value must be non-negative"))?;
    docs.drain(..skip.min(docs.len()));
    if let Some(l) = limit.filter(|l| *l != 0) {
        docs.truncate(l.unsigned_abs() as usize);
    }
    Ok(docs)
}

/// The documents of `db.coll` that `filter` matches, in natural order.
fn selected(
    state: &State,
    db: &str,
    coll: &str,
    filter: Option<&Document>,
) -> Result<Vec<Document>, MongoError> {
    let ns = format!("{db}.{coll}");
    let keep = |d: &Document| filter.is_none_or(|f| query::matches(d, f).unwrap_or(false));
    let mut seen = 0usize;
    let mut tick = || {
        seen += 1;
        crate::serve::query::deadline::check_every(seen)
    };
    Ok(if db == "config" {
        // Only the chunk documents the filter's lastmod/jumbo terms can match are built, and
        // they are moved, not copied.
        config_db::matching(state, coll, filter)
            .unwrap_or_default()
            .into_iter()
            .filter(|d| keep(d))
            .collect()
    } else if state.sessions.view(&ns).is_some() {
        let mut out = Vec::new();
        for d in documents(state, db, coll) {
            tick()?;
            if keep(&d) {
                out.push(d);
            }
        }
        out
    } else {
        let mut out = Vec::new();
        for (_, s) in state.store.iter(&ns) {
            tick()?;
            if keep(&s.doc) {
                out.push(s.doc.clone());
            }
        }
        out
    })
}

/// A cursor reply: `{cursor: {firstBatch|nextBatch, id, ns}, ok: 1}`.
fn cursor_reply(first: bool, batch: Batch, id: i64, ns: String) -> Reply {
    match batch {
        Batch::Docs(docs) => {
            let key = if first { "firstBatch" } else { "nextBatch" };
            Reply::Doc(ok(doc! { "cursor": { key: docs, "id": id, "ns": ns } }))
        }
        Batch::Encoded(batch) => Reply::Cursor {
            first,
            batch,
            id,
            ns,
            tail: Vec::new(),
        },
    }
}

/// `find`.
pub fn find(state: &mut State, db: &str, cmd: &Document) -> Result<Reply, MongoError> {
    let coll = reply::first_string(cmd, "find")?;
    let filter = opt_doc(cmd, "filter")?;
    let projection = opt_doc(cmd, "projection")?
        .map(Projection::parse)
        .transpose()?;
    let limit = opt_count(cmd, "limit")?;
    let sort = opt_doc(cmd, "sort")?.filter(|s| !s.is_empty());
    if db == "config" && coll == "chunks" {
        let scope = ChunkScope::of(state, filter);
        let order = match sort {
            None => Some(ChunkOrder::Key),
            // An order of one collection's chunks its routing table gives (as the config
            // server's `{uuid: 1, min: 1}` and `{uuid: 1, lastmod: 1}` indexes do).
            Some(s) if scope != ChunkScope::All => ChunkOrder::of(s),
            Some(_) => None,
        };
        if let Some(order) = order {
            return find_chunks(state, cmd, filter, projection, limit, scope, order);
        }
    }
    let ns = format!("{db}.{coll}");
    if db != "config" && sort.is_none() && state.sessions.view(&ns).is_none() {
        return find_kept(state, &ns, cmd, filter, projection, limit);
    }
    let docs = match sort {
        Some(sort) if db == "config" && coll == "chunks" => {
            let how = LazyFind::of(cmd, filter, limit)?;
            let scope = ChunkScope::of(state, filter);
            let cursor = ChunkCursor::new(filter, None, 0, None).scoped(scope, ChunkOrder::Key);
            let allow = blocking_sort::disk_use_allowed(cmd, state.sim.cluster.version);
            blocking_sort::sorted(state, cursor, sort, how.skip, how.left, allow)?
        }
        _ => select(
            state,
            db,
            &coll,
            filter,
            sort,
            opt_count(cmd, "skip")?,
            limit,
        )?,
    };
    let mut docs: VecDeque<Document> = match projection {
        Some(p) => docs.iter().map(|d| p.apply(d)).collect(),
        None => docs.into(),
    };
    let batch = opt_count(cmd, "batchSize")?
        .map_or(DEFAULT_BATCH, |n| n.max(0) as usize)
        .max(usize::from(limit.is_some_and(|l| l < 0)));
    let single = reply::flag(cmd, "singleBatch") || limit.is_some_and(|l| l < 0);
    let first = take_batch(&mut docs, if batch == 0 { 0 } else { batch });
    let id = if single { 0 } else { open(state, &ns, docs) };
    let reply = doc! { "cursor": { "firstBatch": first, "id": id, "ns": ns } };
    Ok(Reply::Doc(ok(with_note(state, db, &coll, reply))))
}

/// How a lazy `find` reads: its skip, the documents its limit leaves, its first batch's size,
/// and whether it is one batch only.
struct LazyFind {
    skip: usize,
    left: Option<usize>,
    batch: usize,
    single: bool,
}

impl LazyFind {
    fn of(
        cmd: &Document,
        filter: Option<&Document>,
        limit: Option<i64>,
    ) -> Result<Self, MongoError> {
        if let Some(f) = filter {
            // Surface a bad filter even when there is nothing to match against.
            query::matches(&Document::new(), f)?;
        }
        let skip = usize::try_from(opt_count(cmd, "skip")?.unwrap_or(0))
            .map_err(|_| MongoError::bad_value("skip value must be non-negative"))?;
        Ok(Self {
            skip,
            left: limit.filter(|l| *l != 0).map(|l| l.unsigned_abs() as usize),
            batch: opt_count(cmd, "batchSize")?
                .map_or(DEFAULT_BATCH, |n| n.max(0) as usize)
                .max(usize::from(limit.is_some_and(|l| l < 0))),
            single: reply::flag(cmd, "singleBatch") || limit.is_some_and(|l| l < 0),
        })
    }

    /// The first batch of `rest`, and a cursor over what it has left.
    fn answer(&self, state: &mut State, ns: &str, mut rest: Rest) -> Result<Reply, MongoError> {
        let first = rest.next_batch(state, self.batch, BATCH_BYTES)?;
        let id = if self.single || rest.done(state) {
            0
        } else {
            insert(state, ns, rest)
        };
        Ok(cursor_reply(true, first, id, ns.to_string()))
    }
}

/// `find` on kept documents without a sort (outside a transaction's view): batches read as
/// they are asked for.
fn find_kept(
    state: &mut State,
    ns: &str,
    cmd: &Document,
    filter: Option<&Document>,
    projection: Option<Projection>,
    limit: Option<i64>,
) -> Result<Reply, MongoError> {
    let how = LazyFind::of(cmd, filter, limit)?;
    let cursor = StoreCursor::new(ns, filter, projection, how.skip, how.left);
    let mut reply = how.answer(state, ns, Rest::Lazy(Box::new(cursor)))?;
    if let (Reply::Cursor { tail, .. }, Some(note)) = (&mut reply, state.read_note(ns)) {
        crate::wire::encode::element(tail, "shardtop", &Bson::String(note));
    }
    Ok(reply)
}

/// `find` on `config.chunks` read in an order the routing tables give (key order for an
/// unsorted read): batches built as they are asked for.
fn find_chunks(
    state: &mut State,
    cmd: &Document,
    filter: Option<&Document>,
    projection: Option<Projection>,
    limit: Option<i64>,
    scope: ChunkScope,
    order: ChunkOrder,
) -> Result<Reply, MongoError> {
    let how = LazyFind::of(cmd, filter, limit)?;
    let cursor = ChunkCursor::new(filter, projection, how.skip, how.left).scoped(scope, order);
    how.answer(state, "config.chunks", Rest::Lazy(Box::new(cursor)))
}

/// `getMore`'s arguments: the cursor id and the batch size (`usize::MAX` when not given).
pub fn get_more_args(cmd: &Document) -> Result<(i64, usize), MongoError> {
    let id = match cmd.get("getMore") {
        Some(Bson::Int64(id)) => *id,
        _ => {
            return Err(reply::type_mismatch(
                "BSON field 'getMore' is the wrong type, expected type 'long'",
            ));
        }
    };
    let n = opt_count(cmd, "batchSize")?.map_or(usize::MAX, |n| n.max(1) as usize);
    Ok((id, n))
}

/// `getMore` on cursor `id` of `find` or `aggregate` (change streams answer their own, see
/// `commands::aggregate::change_stream::get_more`): at most `n` documents.
pub fn get_more(state: &mut State, id: i64, n: usize) -> Result<Reply, MongoError> {
    let mut cursor = state
        .cursors
        .take(id)
        .ok_or_else(|| reply::cursor_not_found(id))?;
    let batch = match cursor.rest.next_batch(state, n, BATCH_BYTES) {
        Ok(b) => b,
        Err(e) => {
            state.cursors.put_back(id, cursor);
            return Err(e);
        }
    };
    let ns = cursor.ns.clone();
    let next = if cursor.rest.done(state) {
        0
    } else {
        state.cursors.put_back(id, cursor);
        id
    };
    Ok(cursor_reply(false, batch, next, ns))
}

/// `killCursors`.
pub fn kill_cursors(state: &mut State, cmd: &Document) -> Answer {
    let ids = match cmd.get("cursors") {
        Some(Bson::Array(a)) => a.clone(),
        _ => return Err(reply::failed_to_parse("killCursors needs a cursors array")),
    };
    let (mut killed, mut not_found) = (Vec::new(), Vec::new());
    for id in ids {
        let Bson::Int64(n) = id else {
            return Err(reply::type_mismatch("cursor ids must be longs"));
        };
        if state.cursors.kill(n) || state.streams.kill(n) {
            killed.push(Bson::Int64(n));
        } else {
            not_found.push(Bson::Int64(n));
        }
    }
    Ok(ok(doc! {
        "cursorsKilled": killed, "cursorsNotFound": not_found,
        "cursorsAlive": [], "cursorsUnknown": [],
    }))
}

/// `count`: without a query on a user collection, the collection's document count (the
/// simulator's for a sharded one, whether kept or not, its orphans included); otherwise over the
/// kept documents.
pub fn count(state: &State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "count")?;
    let query = opt_doc(cmd, "query")?;
    let (skip, limit) = (opt_count(cmd, "skip")?, opt_count(cmd, "limit")?);
    if db != "config" && query.is_none_or(Document::is_empty) {
        let ns = format!("{db}.{coll}");
        let total = match state.sim.cluster.collection(&ns) {
            // A count without a predicate is each shard's fast count, orphans included
            // (SERVER-33753; `s/commands/cluster_count_cmd.cpp` sums the shards' answers):
            // the owned documents and those a range deletion has not yet removed, on the
            // shards `config.shards` still lists.
            Some(c) => {
                let owned: u64 = c.table.iter().map(|ch| ch.info.stats.docs).sum();
                let orphans: u64 = (0..state.sim.cluster.shards.len())
                    .filter(|&i| !state.sim.cluster.shards[i].removed)
                    .map(|i| c.orphans_on(crate::model::ShardIdx(i as u32)).0)
                    .sum();
                (owned + orphans) as i64
            }
            None => state.unsharded.get(&ns).map_or(0, |u| u.count as i64),
        };
        let mut n = (total - skip.unwrap_or(0).max(0)).max(0);
        if let Some(l) = limit.filter(|l| *l != 0) {
            n = n.min(l.abs());
        }
        return Ok(ok(doc! { "n": reply::number(n as u64) }));
    }
    if db == "config"
        && coll == "chunks"
        && skip.is_none()
        && limit.is_none()
        && let Some(q) = query
    {
        // One collection's chunks: counted from the routing table, as from an index.
        let pipeline = [
            Bson::Document(doc! { "$match": q.clone() }),
            Bson::Document(doc! { "$group": { "_id": 1, "n": { "$sum": 1 } } }),
        ];
        if let Some(rows) = crate::serve::catalog::chunk_counts::answer(state, &pipeline) {
            let n = rows
                .first()
                .and_then(|d| d.get("n").cloned())
                .unwrap_or(Bson::Int32(0));
            return Ok(ok(doc! { "n": n }));
        }
    }
    let docs = select(state, db, &coll, query, None, skip, limit)?;
    // 8.0 `s/commands/cluster_count_cmd.cpp`: `appendNumber("n", total)`.
    let reply = doc! { "n": reply::number(docs.len() as u64) };
    Ok(ok(with_note(state, db, &coll, reply)))
}

/// `distinct`.
pub fn distinct(state: &State, db: &str, cmd: &Document) -> Answer {
    let coll = reply::first_string(cmd, "distinct")?;
    let key = reply::string_arg(cmd, "key")?;
    let docs = select(state, db, &coll, opt_doc(cmd, "query")?, None, None, None)?;
    let mut values: Vec<Bson> = Vec::new();
    for d in &docs {
        let found = match query::get_path(d, &key) {
            Some(Bson::Array(items)) => items.clone(),
            Some(v) => vec![v.clone()],
            None => Vec::new(),
        };
        for v in found {
            if !values
                .iter()
                .any(|x| query::compare(x, &v) == std::cmp::Ordering::Equal)
            {
                values.push(v);
            }
        }
    }
    values.sort_by(query::compare);
    Ok(ok(with_note(state, db, &coll, doc! { "values": values })))
}
