//! The distinct shard-key values a collection holds, with their document counts and bytes: what
//! `splitVector`, `autoSplitVector` and `dataSize` read from a shard's index. Split points, medians
//! and the entries `autoSplitVector` scans for moveRange bounds come from here, so a range holding
//! one key value is indivisible exactly as in MongoDB.
//!
//! Inserts are appended to an unsorted buffer and merged into the sorted list only when a question
//! is asked (a split, a migration): inserting is O(1), and questions are rare next to writes.

use std::cell::RefCell;

use crate::model::{ChunkStats, ShardKey};

/// Documents and bytes for one key value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyCount {
    pub docs: u64,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default)]
struct Inner {
    /// Distinct keys, sorted.
    sorted: Vec<(ShardKey, KeyCount)>,
    /// Inserted since the last merge, unsorted: key and bytes of one document each.
    pending: Vec<(ShardKey, u64)>,
}

impl Inner {
    fn settle(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut pending = std::mem::take(&mut self.pending);
        pending.sort_by(|a, b| a.0.cmp(&b.0));
        if self
            .sorted
            .last()
            .is_none_or(|(last, _)| *last < pending[0].0)
        {
            // Ascending keys: everything new goes after what is there.
            for (key, bytes) in pending {
                match self.sorted.last_mut() {
                    Some((last, c)) if *last == key => {
                        c.docs += 1;
                        c.bytes += bytes;
                    }
                    _ => self.sorted.push((key, KeyCount { docs: 1, bytes })),
                }
            }
            return;
        }
        let old = std::mem::take(&mut self.sorted);
        let mut merged: Vec<(ShardKey, KeyCount)> = Vec::with_capacity(old.len() + pending.len());
        let mut old = old.into_iter();
        for (key, bytes) in pending {
            // The old keys up to this one (an equal one included) move over in one run, found
            // by a binary search: a settle costs a comparison per new key and its logarithm,
            // not one per key held (the lab settles often, each time with few new keys).
            let n = old.as_slice().partition_point(|(k, _)| *k <= key);
            merged.extend(old.by_ref().take(n));
            match merged.last_mut() {
                Some((last, c)) if *last == key => {
                    c.docs += 1;
                    c.bytes += bytes;
                }
                _ => merged.push((key, KeyCount { docs: 1, bytes })),
            }
        }
        merged.extend(old);
        self.sorted = merged;
    }

    /// The index range of keys in `[min, max)`.
    fn span(&self, min: &ShardKey, max: &ShardKey) -> std::ops::Range<usize> {
        let lo = self.sorted.partition_point(|(k, _)| k < min);
        let hi = lo + self.sorted[lo..].partition_point(|(k, _)| k < max);
        lo..hi
    }
}

/// An ordered multiset of shard-key values.
#[derive(Clone, Debug, Default)]
pub struct KeyIndex {
    inner: RefCell<Inner>,
}

impl KeyIndex {
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `f` with the settled, sorted entries in `[min, max)` (one per distinct value, with
    /// its documents: an index scan of the range, grouped by value).
    pub fn with_range<T>(
        &self,
        min: &ShardKey,
        max: &ShardKey,
        f: impl FnOnce(&[(ShardKey, KeyCount)]) -> T,
    ) -> T {
        let mut inner = self.inner.borrow_mut();
        inner.settle();
        let span = inner.span(min, max);
        f(&inner.sorted[span])
    }

    /// Number of distinct values.
    pub fn distinct(&self) -> usize {
        let mut inner = self.inner.borrow_mut();
        inner.settle();
        inner.sorted.len()
    }

    /// Distinct values whose documents together hold more than `bytes`: each alone is a chunk
    /// too large that can never be split.
    pub fn values_over(&self, bytes: u64) -> u64 {
        let mut inner = self.inner.borrow_mut();
        inner.settle();
        inner.sorted.iter().filter(|(_, c)| c.bytes > bytes).count() as u64
    }

    /// Adds `count` documents of one key value at once (a fork's estimate of what a chunk holds
    /// when only its totals were read); cheapest in ascending key order.
    pub fn insert_count(&mut self, key: ShardKey, count: KeyCount) {
        let inner = self.inner.get_mut();
        inner.settle();
        if inner.sorted.last().is_none_or(|(last, _)| *last < key) {
            inner.sorted.push((key, count));
            return;
        }
        match inner.sorted.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => {
                inner.sorted[i].1.docs += count.docs;
                inner.sorted[i].1.bytes += count.bytes;
            }
            Err(i) => inner.sorted.insert(i, (key, count)),
        }
    }

    pub fn insert(&mut self, key: ShardKey, bytes: u64) {
        self.inner.get_mut().pending.push((key, bytes));
    }

    /// Removes one document of `key` with `bytes`; false if the key is absent.
    pub fn remove(&mut self, key: &ShardKey, bytes: u64) -> bool {
        let inner = self.inner.get_mut();
        inner.settle();
        let Ok(i) = inner.sorted.binary_search_by(|(k, _)| k.cmp(key)) else {
            return false;
        };
        let entry = &mut inner.sorted[i].1;
        entry.docs -= 1;
        entry.bytes = entry.bytes.saturating_sub(bytes);
        if entry.docs == 0 {
            inner.sorted.remove(i);
        }
        true
    }

    /// Documents and bytes in `[min, max)` (writes are not tracked here: zero).
    pub fn stats(&self, min: &ShardKey, max: &ShardKey) -> ChunkStats {
        self.with_range(min, max, |entries| {
            let mut s = ChunkStats::ZERO;
            for (_, c) in entries {
                s.docs += c.docs;
                s.bytes += c.bytes;
            }
            s
        })
    }

    /// `splitVector`: points cutting `[min, max)` into pieces of about `piece_bytes`. As in
    /// MongoDB, a cut goes before the key value during which the running size crosses the limit
    /// (never at `min`, never inside one value), so a range holding one value yields no point.
    pub fn split_points(&self, min: &ShardKey, max: &ShardKey, piece_bytes: u64) -> Vec<ShardKey> {
        self.with_range(min, max, |entries| {
            let mut points = Vec::new();
            let mut acc = 0u64;
            for (key, count) in entries {
                if acc > 0 && key > min && acc + count.bytes >= piece_bytes.max(1) {
                    points.push(key.clone());
                    acc = 0;
                }
                acc += count.bytes;
            }
            points
        })
    }

    /// The median key of `[min, max)` by document count, usable as a split point (strictly above
    /// `min`); `None` when the range holds fewer than two distinct values.
    pub fn median(&self, min: &ShardKey, max: &ShardKey) -> Option<ShardKey> {
        self.with_range(min, max, |entries| {
            let total: u64 = entries.iter().map(|(_, c)| c.docs).sum();
            let mut acc = 0u64;
            for (i, (key, count)) in entries.iter().enumerate() {
                if i > 0 && acc * 2 >= total {
                    return Some(key.clone());
                }
                acc += count.docs;
            }
            (entries.len() > 1).then(|| entries[entries.len() - 1].0.clone())
        })
    }

    /// The greatest key value in `[min, max)`.
    pub fn first_in(&self, min: &ShardKey, max: &ShardKey) -> Option<ShardKey> {
        self.with_range(min, max, |entries| entries.first().map(|(k, _)| k.clone()))
    }

    /// The greatest key value held in `[min, max)`.
    pub fn last_in(&self, min: &ShardKey, max: &ShardKey) -> Option<ShardKey> {
        self.with_range(min, max, |entries| entries.last().map(|(k, _)| k.clone()))
    }

    /// `pieces - 1` split points cutting the documents into `pieces` parts of about equal counts
    /// (fewer when values repeat: a point is never inside one value, never the first value).
    pub fn quantiles(&self, pieces: usize) -> Vec<ShardKey> {
        let mut inner = self.inner.borrow_mut();
        inner.settle();
        let total: u64 = inner.sorted.iter().map(|(_, c)| c.docs).sum();
        let pieces = pieces.max(1) as u64;
        let mut points: Vec<ShardKey> = Vec::new();
        let mut acc = 0u64;
        let mut next = 1u64;
        for (i, (key, count)) in inner.sorted.iter().enumerate() {
            while i > 0 && next < pieces && acc * pieces >= next * total {
                if points.last() != Some(key) {
                    points.push(key.clone());
                }
                next += 1;
            }
            acc += count.docs;
        }
        points
    }

    /// Replaces every entry (after the shard key is refined or the collection resharded).
    pub fn rebuild(&mut self, entries: impl IntoIterator<Item = (ShardKey, u64)>) {
        let inner = self.inner.get_mut();
        inner.sorted.clear();
        inner.pending = entries.into_iter().collect();
        inner.settle();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyValue;

    fn key(n: i64) -> ShardKey {
        ShardKey::from_values(vec![KeyValue::Int64(n)]).unwrap_or_else(|| unreachable!())
    }

    #[test]
    fn settling_new_keys_among_many_keeps_one_sorted_entry_a_value() {
        let mut index = KeyIndex::new();
        let mut reference = std::collections::BTreeMap::<i64, (u64, u64)>::default();
        let mut state = 7u64;
        for round in 0..40u64 {
            // Batches of keys out of order, repeats among them and of earlier rounds.
            for _ in 0..=(round * 13 % 50) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let n = ((state >> 33) % 300) as i64;
                index.insert(key(n), 10 + n as u64);
                let e = reference.entry(n).or_default();
                e.0 += 1;
                e.1 += 10 + n as u64;
            }
            let all = index.with_range(&key(i64::MIN), &key(i64::MAX), <[_]>::to_vec);
            let want: Vec<(ShardKey, KeyCount)> = reference
                .iter()
                .map(|(n, (docs, bytes))| {
                    (
                        key(*n),
                        KeyCount {
                            docs: *docs,
                            bytes: *bytes,
                        },
                    )
                })
                .collect();
            assert_eq!(all, want, "round {round}");
        }
    }
}
