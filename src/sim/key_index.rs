//! The distinct shard-key values a collection holds, with their document counts and bytes: what
//! `splitVector`, `autoSplitVector` and `dataSize` read from a shard's index. Split points, medians
//! and moveRange bounds come from here, so a range holding one key value is indivisible exactly as
//! in MongoDB.

use std::collections::BTreeMap;
use std::ops::Bound;

use crate::model::{ChunkStats, ShardKey};

/// Documents and bytes for one key value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyCount {
    pub docs: u64,
    pub bytes: u64,
}

/// An ordered multiset of shard-key values.
#[derive(Clone, Debug, Default)]
pub struct KeyIndex {
    keys: BTreeMap<ShardKey, KeyCount>,
}

impl KeyIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of distinct values.
    pub fn distinct(&self) -> usize {
        self.keys.len()
    }

    pub fn insert(&mut self, key: ShardKey, bytes: u64) {
        let entry = self.keys.entry(key).or_default();
        entry.docs += 1;
        entry.bytes += bytes;
    }

    /// Removes one document of `key` with `bytes`; false if the key is absent.
    pub fn remove(&mut self, key: &ShardKey, bytes: u64) -> bool {
        let Some(entry) = self.keys.get_mut(key) else {
            return false;
        };
        entry.docs -= 1;
        entry.bytes = entry.bytes.saturating_sub(bytes);
        if entry.docs == 0 {
            self.keys.remove(key);
        }
        true
    }

    fn range(
        &self,
        min: &ShardKey,
        max: &ShardKey,
    ) -> std::collections::btree_map::Range<'_, ShardKey, KeyCount> {
        self.keys
            .range((Bound::Included(min.clone()), Bound::Excluded(max.clone())))
    }

    /// Documents and bytes in `[min, max)` (writes are not tracked here: zero).
    pub fn stats(&self, min: &ShardKey, max: &ShardKey) -> ChunkStats {
        let mut s = ChunkStats::ZERO;
        for (_, c) in self.range(min, max) {
            s.docs += c.docs;
            s.bytes += c.bytes;
        }
        s
    }

    /// `splitVector`: points cutting `[min, max)` into pieces of about `piece_bytes`. As in
    /// MongoDB, a cut goes before the key value during which the running size crosses the limit
    /// (never at `min`, never inside one value), so a range holding one value yields no point.
    pub fn split_points(&self, min: &ShardKey, max: &ShardKey, piece_bytes: u64) -> Vec<ShardKey> {
        let mut points = Vec::new();
        let mut acc = 0u64;
        for (key, count) in self.range(min, max) {
            if acc > 0 && key > min && acc + count.bytes >= piece_bytes.max(1) {
                points.push(key.clone());
                acc = 0;
            }
            acc += count.bytes;
        }
        points
    }

    /// The median key of `[min, max)` by document count, usable as a split point (strictly above
    /// `min`); `None` when the range holds fewer than two distinct values.
    pub fn median(&self, min: &ShardKey, max: &ShardKey) -> Option<ShardKey> {
        let total = self.stats(min, max).docs;
        let mut acc = 0u64;
        let mut last = None;
        for (i, (key, count)) in self.range(min, max).enumerate() {
            if i > 0 && acc * 2 >= total {
                return Some(key.clone());
            }
            acc += count.docs;
            last = (i > 0).then_some(key);
        }
        last.cloned()
    }

    /// The end of a range starting at `min` worth about `target_bytes` (the moveRange bound the
    /// donor picks, by the same rule as [`Self::split_points`]), or `None` when the rest of
    /// `[min, max)` is within the target (move it all).
    pub fn range_end(&self, min: &ShardKey, max: &ShardKey, target_bytes: u64) -> Option<ShardKey> {
        let mut acc = 0u64;
        for (key, count) in self.range(min, max) {
            if acc > 0 && key > min && acc + count.bytes >= target_bytes.max(1) {
                return Some(key.clone());
            }
            acc += count.bytes;
        }
        None
    }

    /// Replaces every entry (after the shard key is refined or the collection resharded).
    pub fn rebuild(&mut self, entries: impl IntoIterator<Item = (ShardKey, u64)>) {
        self.keys.clear();
        for (k, bytes) in entries {
            self.insert(k, bytes);
        }
    }
}

impl KeyIndex {
    /// The greatest key value in `[min, max)`.
    pub fn last_in(&self, min: &ShardKey, max: &ShardKey) -> Option<ShardKey> {
        self.range(min, max).next_back().map(|(k, _)| k.clone())
    }
}
