//! A collection's routing table as a mongos caches it, refreshed incrementally: the first load
//! reads every chunk; each later refresh asks only for chunks whose `lastmod` is at least the
//! cached collection version and replaces the cached chunks they cover (a split, merge or
//! migration always gives the chunks it creates a newer version; the chunk at the cached version
//! comes back unchanged and is skipped). A changed incarnation (uuid, epoch, timestamp: drop,
//! refine, reshard) or key pattern needs a full reload, and so does an answer that does not tile
//! the ranges it replaces (a read that raced a commit).
//!
//! The table is the model's `RoutingTable`, kept by the poller in its cluster between polls, so
//! a refresh costs the changed chunks, not the whole table. Marking a chunk jumbo changes no
//! version (a mongos does not care), so the jumbo flags are read separately — `{jumbo: true}`, a
//! handful of documents, but a scan of the collection's chunk entries on the config server, so
//! not at every poll — and remembered here.

use std::time::Instant;

use bson::Document;

use super::client::{LiveClient, LiveError};
use super::config::{ChunkRow, CollectionDoc, ConfigError, Incarnation};
use super::snapshot::ShardList;
use crate::model::{ChunkInfo, KeyPattern, RangePatch, RoutingTable, ShardKey};

/// What the poller remembers of a collection besides its table.
#[derive(Clone, Debug)]
pub struct CachedRouting {
    pub ns: String,
    pub incarnation: Incarnation,
    pub pattern: KeyPattern,
    /// Lower bounds of the chunks the table may have marked jumbo: those of the last
    /// `{jumbo: true}` read, and any changed chunk that came marked since.
    pub jumbo: Vec<ShardKey>,
    /// When the jumbo flags were last read.
    pub jumbo_read: Instant,
}

impl CachedRouting {
    /// A cache after a full load (which read every jumbo flag).
    pub fn new(coll: &CollectionDoc, jumbo: Vec<ShardKey>) -> Self {
        Self {
            ns: coll.ns.clone(),
            incarnation: coll.incarnation.clone(),
            pattern: coll.key.clone(),
            jumbo,
            jumbo_read: Instant::now(),
        }
    }

    /// Applies an incremental refresh to `table`: the patches, then the jumbo flags when they
    /// were re-read (`jumbo`: the lower bounds of every jumbo chunk now).
    pub fn patch(
        &mut self,
        table: &mut RoutingTable,
        patches: Vec<RangePatch>,
        jumbo: Option<Vec<ShardKey>>,
    ) -> Result<(), crate::model::RoutingError> {
        for p in &patches {
            let marked = p.chunks.iter().filter(|(_, info)| info.jumbo);
            self.jumbo.extend(marked.map(|(min, _)| min.clone()));
        }
        table.replace_ranges(patches)?;
        if let Some(now) = jumbo {
            apply_jumbo(table, &self.jumbo, &now);
            self.jumbo = now;
            self.jumbo_read = Instant::now();
        }
        Ok(())
    }

    /// Whether `coll` describes a different routing table (a full reload is needed).
    pub fn is_stale_for(&self, coll: &CollectionDoc) -> bool {
        self.incarnation != coll.incarnation || self.pattern != coll.key
    }
}

/// A changed chunk (`changed`: its bounds) that does not line up with the cached chunk that
/// holds `at` (one of its bounds): both named with their fields, in mongosh notation.
fn gap(
    ns: &str,
    pattern: &KeyPattern,
    table: &RoutingTable,
    changed: (&ShardKey, &ShardKey),
    at: &ShardKey,
) -> ConfigError {
    use super::inconsistency::range;
    let cached = table.chunk(table.route(at));
    ConfigError(format!(
        "config.chunks of {ns}: the changed chunk {} does not line up with the cached chunk {}          (a gap or overlap at {}: the read raced a commit)",
        range(pattern, changed.0, changed.1),
        range(pattern, cached.min, cached.max),
        crate::model::shell_text::document(&pattern.bound_to_document(at)),
    ))
}

/// A full load, fed chunk by chunk in any order: chunks that arrive in key order (as a sorted
/// or freshly split collection returns them) are checked as they come; otherwise they are
/// sorted at the end.
pub struct FullLoad {
    ns: String,
    pattern: KeyPattern,
    global_min: ShardKey,
    global_max: ShardKey,
    rows: Vec<(ShardKey, ChunkInfo)>,
    /// The upper bound of the last chunk, while every chunk so far followed the previous one.
    last_max: Option<ShardKey>,
    /// Every chunk's upper bound, once one arrived out of order.
    maxes: Option<Vec<ShardKey>>,
    jumbo: Vec<ShardKey>,
}

impl FullLoad {
    pub fn new(ns: &str, pattern: &KeyPattern) -> Self {
        Self {
            ns: ns.to_string(),
            pattern: pattern.clone(),
            global_min: pattern.global_min(),
            global_max: pattern.global_max(),
            rows: Vec::new(),
            last_max: None,
            maxes: None,
            jumbo: Vec::new(),
        }
    }

    pub fn push(&mut self, row: ChunkRow) {
        if row.info.jumbo {
            self.jumbo.push(row.min.clone());
        }
        if self.maxes.is_none() {
            let expected = self.last_max.as_ref().unwrap_or(&self.global_min);
            if row.min == *expected {
                self.last_max = Some(row.max);
                self.rows.push((row.min, row.info));
                return;
            }
            // Out of order: the upper bounds so far are the next chunks' lower bounds.
            let mut maxes: Vec<ShardKey> =
                self.rows.iter().skip(1).map(|(m, _)| m.clone()).collect();
            maxes.extend(self.last_max.take());
            self.maxes = Some(maxes);
        }
        if let Some(maxes) = self.maxes.as_mut() {
            maxes.push(row.max);
        }
        self.rows.push((row.min, row.info));
    }

    /// The table, with the lower bounds of its jumbo chunks and what is inconsistent in the
    /// chunks (a gap, an overlap, a missing end: the table then holds them sorted by lower
    /// bound, see [`super::inconsistency`]); an error only when there is no chunk at all.
    pub fn finish(mut self) -> Result<Loaded, ConfigError> {
        if self.rows.is_empty() {
            return Err(ConfigError(format!(
                "config.chunks of {}: the collection has no chunks (MissingRoutingTable)",
                self.ns
            )));
        }
        let tiles = self.maxes.is_none() && self.last_max.as_ref() == Some(&self.global_max);
        let (rows, inconsistencies) = if tiles {
            (std::mem::take(&mut self.rows), Vec::new())
        } else {
            let rows = std::mem::take(&mut self.rows);
            let maxes = self.maxes.take().unwrap_or_else(|| {
                let mut maxes: Vec<ShardKey> =
                    rows.iter().skip(1).map(|(m, _)| m.clone()).collect();
                maxes.extend(self.last_max.take());
                maxes
            });
            let chunks = rows
                .into_iter()
                .zip(maxes)
                .map(|((min, info), max)| (min, max, info))
                .collect();
            let (found, rows) = super::inconsistency::check(&self.ns, &self.pattern, chunks);
            (rows, found)
        };
        let table = RoutingTable::from_chunks(rows, self.global_max)
            .map_err(|e| ConfigError(format!("config.chunks of {}: {e}", self.ns)))?;
        Ok(Loaded {
            table,
            jumbo: self.jumbo,
            inconsistencies,
        })
    }
}

/// A collection's table after a full load.
pub struct Loaded {
    pub table: RoutingTable,
    /// The lower bounds of its jumbo chunks.
    pub jumbo: Vec<ShardKey>,
    /// Empty when its chunks tile the key space.
    pub inconsistencies: Vec<crate::cluster::Inconsistency>,
}

/// The patches that bring `table` up to date with `changed` (the chunks with `lastmod` at least
/// its version); an error when they do not tile the ranges they replace.
pub fn patches(
    ns: &str,
    pattern: &KeyPattern,
    table: &RoutingTable,
    mut changed: Vec<ChunkRow>,
) -> Result<Vec<RangePatch>, ConfigError> {
    changed.retain(|row| {
        table.find_by_min(&row.min).is_none_or(|i| {
            let c = table.chunk(i);
            *c.max != row.max || c.info.version != row.info.version
        })
    });
    changed.sort_by(|a, b| a.min.cmp(&b.min));
    let mut out: Vec<RangePatch> = Vec::new();
    let mut run_max: Option<ShardKey> = None;
    for row in changed {
        let continues = run_max.as_ref() == Some(&row.min);
        if !continues {
            close_run(ns, pattern, table, out.last_mut(), run_max.take())?;
            let start = table
                .find_by_min(&row.min)
                .ok_or_else(|| gap(ns, pattern, table, (&row.min, &row.max), &row.min))?;
            out.push(RangePatch {
                range: start..start,
                chunks: Vec::new(),
            });
        }
        run_max = Some(row.max);
        if let Some(p) = out.last_mut() {
            p.chunks.push((row.min, row.info));
        }
    }
    close_run(ns, pattern, table, out.last_mut(), run_max)?;
    Ok(out)
}

/// Ends the patch being built at the cached chunk boundary `max`.
fn close_run(
    ns: &str,
    pattern: &KeyPattern,
    table: &RoutingTable,
    patch: Option<&mut RangePatch>,
    max: Option<ShardKey>,
) -> Result<(), ConfigError> {
    let (Some(patch), Some(max)) = (patch, max) else {
        return Ok(());
    };
    let end = if max == *table.global_max() {
        Some(table.len())
    } else {
        table.find_by_min(&max)
    };
    match end {
        Some(end) if end > patch.range.start => {
            patch.range.end = end;
            Ok(())
        }
        _ => {
            let min = patch.chunks.last().map_or(&max, |(min, _)| min);
            Err(gap(ns, pattern, table, (min, &max), &max))
        }
    }
}

/// Clears the jumbo flags of `old` and sets those of `new` (lower bounds of chunks).
fn apply_jumbo(table: &mut RoutingTable, old: &[ShardKey], new: &[ShardKey]) {
    for min in old {
        if let Some(i) = table.find_by_min(min) {
            table.set_jumbo(i, false);
        }
    }
    for min in new {
        if let Some(i) = table.find_by_min(min) {
            table.set_jumbo(i, true);
        }
    }
}

/// The chunk documents of `coll` that `filter` matches, each parsed as the driver delivers it
/// (never held as documents).
pub(super) async fn rows(
    client: &LiveClient,
    coll: &CollectionDoc,
    filter: Document,
    shards: &mut ShardList,
) -> Result<Vec<ChunkRow>, LiveError> {
    let mut out = Vec::new();
    client
        .scan("config", "chunks", filter, |raw| {
            let row = ChunkRow::parse_raw(raw, &coll.key, &mut |s| shards.index_of(s));
            out.push(row.map_err(super::poller::bad)?);
            Ok(())
        })
        .await?;
    Ok(out)
}
