//! A collection's routing table as a mongos caches it, refreshed incrementally: the first load
//! reads every chunk; each later refresh asks only for chunks whose `lastmod` is at least the
//! cached collection version and lets each replace the cached chunks it overlaps (a split, merge
//! or migration always gives the chunks it creates a newer version). A changed incarnation
//! (uuid, epoch, timestamp: drop, refine, reshard) or key pattern needs a full reload.
//!
//! Marking a chunk jumbo changes no version (a mongos does not care), so the jumbo flags are
//! read separately — `{jumbo: true}`, a handful of documents — and set with `set_jumbo`.

use std::collections::BTreeMap;

use super::config::{ChunkDoc, CollectionDoc, ConfigError, Incarnation};
use crate::model::{ChunkVersion, KeyPattern, ShardKey};

/// The cached chunks of one collection, by lower bound.
#[derive(Clone, Debug)]
pub struct CachedRouting {
    pub ns: String,
    pub incarnation: Incarnation,
    pub pattern: KeyPattern,
    chunks: BTreeMap<ShardKey, ChunkDoc>,
    version: ChunkVersion,
}

impl CachedRouting {
    /// A full load: every chunk of the collection.
    pub fn load(coll: &CollectionDoc, chunks: Vec<ChunkDoc>) -> Result<Self, ConfigError> {
        let mut cache = Self {
            ns: coll.ns.clone(),
            incarnation: coll.incarnation.clone(),
            pattern: coll.key.clone(),
            chunks: BTreeMap::new(),
            version: ChunkVersion::default(),
        };
        cache.apply(chunks);
        cache.check()?;
        Ok(cache)
    }

    /// Whether `coll` describes a different routing table (a full reload is needed).
    pub fn is_stale_for(&self, coll: &CollectionDoc) -> bool {
        self.incarnation != coll.incarnation || self.pattern != coll.key
    }

    /// The collection version: refreshes ask for chunks with `lastmod` at least this.
    pub fn version(&self) -> ChunkVersion {
        self.version
    }

    /// Applies changed chunks (as returned by `lastmod >= version`, any order); returns how many
    /// cached chunks they replaced.
    pub fn apply(&mut self, mut changed: Vec<ChunkDoc>) -> usize {
        changed.sort_by_key(|c| c.version);
        let mut replaced = 0;
        for chunk in changed {
            let first = self
                .chunks
                .range(..=chunk.min.clone())
                .next_back()
                .filter(|(_, c)| c.max > chunk.min)
                .map_or_else(|| chunk.min.clone(), |(k, _)| k.clone());
            let overlapping: Vec<ShardKey> = self
                .chunks
                .range(first..)
                .take_while(|(k, _)| **k < chunk.max)
                .map(|(k, _)| k.clone())
                .collect();
            for k in overlapping {
                self.chunks.remove(&k);
                replaced += 1;
            }
            self.version = self.version.max(chunk.version);
            self.chunks.insert(chunk.min.clone(), chunk);
        }
        replaced
    }

    /// Marks exactly the chunks starting at `mins` jumbo (the answer of a `{jumbo: true}` query).
    pub fn set_jumbo(&mut self, mins: &[ShardKey]) {
        for (min, chunk) in &mut self.chunks {
            chunk.jumbo = mins.contains(min);
        }
    }

    /// The chunks in key order.
    pub fn chunks(&self) -> impl ExactSizeIterator<Item = &ChunkDoc> {
        self.chunks.values()
    }

    /// The chunks cover MinKey to MaxKey without gaps or overlaps.
    pub fn check(&self) -> Result<(), ConfigError> {
        let mut at = self.pattern.global_min();
        for c in self.chunks.values() {
            if c.min != at {
                return Err(ConfigError(format!(
                    "config.chunks of {}: a gap or overlap at {:?} (expected a chunk starting at {:?})",
                    self.ns, c.min, at
                )));
            }
            at = c.max.clone();
        }
        if at != self.pattern.global_max() {
            return Err(ConfigError(format!(
                "config.chunks of {}: the last chunk ends at {at:?}, not at MaxKey",
                self.ns
            )));
        }
        Ok(())
    }
}
