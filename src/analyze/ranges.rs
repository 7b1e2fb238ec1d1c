//! `analyzeShardKey`'s per-range counts, `numReadsByRange` and `numWritesByRange` (7.0+): the
//! key space cut into `analyzeShardKeyNumRanges` (100) ranges at split points drawn from the
//! documents, as `calculateReadWriteDistributionMetrics` does (8.0
//! `src/mongo/db/s/analyze_shard_key_cmd_util.cpp`) with `SamplingBasedSplitPolicy` (8.0
//! `src/mongo/db/s/config/initial_split_policy.cpp`): 1,000 documents
//! (`analyzeShardKeyNumRanges` 100 × `analyzeShardKeyNumSamplesPerRange` 10) sorted by the key's
//! raw values, every 10th taken until 99 distinct ones; fewer is the server's error 4952606.
//! Each query counts once in every range it targets
//! ([`super::distribution::target_split_ranges`]).
//!
//! Shared by the lab and `serve`. Imports only [`crate::model`] and its siblings.

use std::collections::BTreeSet;

use bson::{Bson, Document};

use super::distribution::{ReplacementRule, replacement_filter, target_split_ranges};
use super::operation::Operation;
use crate::model::{KeyPattern, ShardKey};

/// `analyzeShardKeyNumRanges`.
pub const NUM_RANGES: usize = 100;
/// `analyzeShardKeyNumSamplesPerRange`.
pub const SAMPLES_PER_RANGE: usize = 10;
/// The documents the split points are drawn from.
pub const SAMPLE_SIZE: usize = NUM_RANGES * SAMPLES_PER_RANGE;

/// The key's fields, none hashed: the `$sort` of the split-point sample orders raw values.
pub fn raw_pattern(key: &KeyPattern) -> KeyPattern {
    let d: Document = key
        .fields()
        .iter()
        .map(|f| (f.path.to_string(), Bson::Int32(1)))
        .collect();
    KeyPattern::parse(&d).unwrap_or_else(|_| key.clone())
}

/// The 99 split points of `sampled` (each document's raw key and its key): the ranges are
/// `[MinKey, s0)`, `[s0, s1)`, …, `[s98, MaxKey)`. `Err(n)`: the key can only make `n` ranges
/// (error 4952606).
pub fn split_points(mut sampled: Vec<(ShardKey, ShardKey)>) -> Result<Vec<ShardKey>, usize> {
    sampled.sort_by(|a, b| a.0.cmp(&b.0));
    let mut points = BTreeSet::new();
    let mut at = 0;
    while points.len() < NUM_RANGES - 1 && at < sampled.len() {
        // Each split point is the last of the next 10 samples (or of those left).
        let pick = (at + SAMPLES_PER_RANGE - 1).min(sampled.len() - 1);
        points.insert(sampled[pick].1.clone());
        at += SAMPLES_PER_RANGE;
    }
    if points.len() < NUM_RANGES - 1 {
        return Err(points.len() + 1);
    }
    Ok(points.into_iter().collect())
}

/// Error 4952606's message for a key that makes only `made` ranges.
pub fn too_few_ranges(made: usize) -> String {
    format!(
        "Failed to find split points that partition the data into {NUM_RANGES} chunks with \
         roughly equal number of documents using the shard key being analyzed :: caused by :: \
         The shard key provided does not have enough cardinality to make the required number \
         of chunks of {NUM_RANGES}, it can only make {made} chunks"
    )
}

/// A seeded reservoir of [`SAMPLE_SIZE`] documents' keys, drawn uniformly over a stream (where
/// MongoDB draws them with `$sample`): the same stream gives the same sample.
#[derive(Clone, Debug)]
pub struct KeySample {
    seen: u64,
    state: u64,
    keys: Vec<(ShardKey, ShardKey)>,
}

impl Default for KeySample {
    fn default() -> Self {
        Self {
            seen: 0,
            state: 0x0a5c_5eed,
            keys: Vec::new(),
        }
    }
}

/// splitmix64: the next number of the seeded stream whose state is `state` (a sample's choice
/// of documents is the same for the same seed).
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl KeySample {
    /// splitmix64.
    fn next(&mut self) -> u64 {
        splitmix64(&mut self.state)
    }

    /// Counts the stream's next document; `Some(slot)` when it is kept (then give its keys to
    /// [`Self::put`]), so a document not kept costs no key extraction.
    pub fn offer(&mut self) -> Option<usize> {
        self.seen += 1;
        if self.keys.len() < SAMPLE_SIZE {
            return Some(self.keys.len());
        }
        let j = ((u128::from(self.next()) * u128::from(self.seen)) >> 64) as u64;
        usize::try_from(j).ok().filter(|&j| j < SAMPLE_SIZE)
    }

    /// Keeps a document's raw key and key in the slot [`Self::offer`] gave.
    pub fn put(&mut self, slot: usize, raw: ShardKey, key: ShardKey) {
        if slot == self.keys.len() {
            self.keys.push((raw, key));
        } else if let Some(s) = self.keys.get_mut(slot) {
            *s = (raw, key);
        }
    }

    /// The split points of the keys kept ([`split_points`]).
    pub fn split_points(&self) -> Result<Vec<ShardKey>, usize> {
        split_points(self.keys.clone())
    }
}

/// `numReadsByRange` and `numWritesByRange`, each operation counted `weight` times.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByRange {
    pub reads: Vec<u64>,
    pub writes: Vec<u64>,
}

/// The per-range counts of `traffic` under `key` over the ranges `splits` cut; a replacement is
/// targeted by the release line's rule, as it is counted.
pub fn by_range(
    key: &KeyPattern,
    traffic: &[Operation],
    splits: &[ShardKey],
    rule: ReplacementRule,
) -> ByRange {
    let mut out = ByRange {
        reads: vec![0; splits.len() + 1],
        writes: vec![0; splits.len() + 1],
    };
    for op in traffic {
        let replaced = replacement_filter(key, op, rule);
        let t = target_split_ranges(key, replaced.as_ref().unwrap_or(&op.filter), splits);
        let side = if op.command.is_read() {
            &mut out.reads
        } else {
            &mut out.writes
        };
        for r in t.ranges {
            if let Some(n) = side.get_mut(r) {
                *n += op.weight;
            }
        }
    }
    out
}

/// Counts as a heat strip, one glyph each: a space for none, then `▁` to `█` by the count's
/// share of the largest (any count above zero at least `▁`).
pub fn heat_strip(counts: &[u64]) -> String {
    const GLYPHS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    counts
        .iter()
        .map(|&n| match n {
            0 => ' ',
            n => {
                GLYPHS[usize::try_from((n * 8).div_ceil(max) - 1)
                    .unwrap_or(7)
                    .min(7)]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::KeyValue;

    fn k(n: i64) -> ShardKey {
        ShardKey::single(KeyValue::Int64(n))
    }

    #[test]
    fn every_tenth_of_a_thousand_sorted_keys_is_a_split_point() {
        let sampled: Vec<_> = (0..1000).rev().map(|n| (k(n), k(n))).collect();
        let points = split_points(sampled).expect("99 split points");
        assert_eq!(points.len(), 99);
        assert_eq!(points[0], k(9));
        assert_eq!(points[98], k(989));
    }

    #[test]
    fn the_heat_strip_scales_to_the_largest_count() {
        assert_eq!(heat_strip(&[0, 1, 4, 8]), " ▁▄█");
        assert_eq!(heat_strip(&[0, 0]), "  ");
        assert_eq!(heat_strip(&[1, 1000]), "▁█");
    }

    #[test]
    fn a_key_of_few_values_makes_few_ranges() {
        let sampled: Vec<_> = (0..1000).map(|n| (k(n % 7), k(n % 7))).collect();
        assert_eq!(split_points(sampled), Err(8));
    }

    #[test]
    fn the_reservoir_keeps_a_thousand_spread_over_the_stream() {
        let mut s = KeySample::default();
        for n in 0..100_000 {
            if let Some(slot) = s.offer() {
                s.put(slot, k(n), k(n));
            }
        }
        assert_eq!(s.keys.len(), SAMPLE_SIZE);
        let late = s.keys.iter().filter(|(r, _)| *r >= k(50_000)).count();
        // About half of a uniform sample comes from the second half of the stream.
        assert!((400..600).contains(&late), "{late}");
    }
}
