//! The read and write distribution of a traffic under a candidate key, as `analyzeShardKey`
//! classifies each sampled query (`src/mongo/db/s/analyze_shard_key_read_write_distribution.cpp`,
//! `DistributionMetricsCalculator::_incrementMetricsForQuery`), from the filter's shape alone:
//!
//! - a filter with an equality on every key field (`extractShardKeyFromQuery`) is a
//!   single-shard query — a non-upsert replacement update also by the key its replacement holds;
//! - a filter over the whole key space, MinKey to MaxKey, is a scatter-gather;
//! - any other is "variable": how many shards it asks depends on where the chunks are
//!   (`percentageOf…MultiShard…`).
//!
//! Writes (update, delete, findAndModify; inserts are not sampled) without the shard key are
//! counted as single or multi writes without it. An update changes the shard key when a modifier
//! touches a key field (a field of the key, a parent or a child of one), or when a replacement
//! gives a key other than the one its filter names. MongoDB counts shard-key updates from the
//! sampled diffs of the updated documents; this reads them from the update itself (a pipeline
//! update is not counted). Percentages are rounded up at 10 places as `calculatePercentage` does.

use bson::{Bson, Document};

use super::operation::{Command, Operation};
use crate::model::targeting::key_ranges;
use crate::model::{KeyPattern, ShardKey, value_at};

/// How `analyzeShardKey` counts one query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// An equality on every key field.
    SingleShard,
    /// A subset of the key space.
    Variable,
    /// MinKey to MaxKey.
    ScatterGather,
}

/// Weighted counts of one side (reads or writes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    pub total: u64,
    pub single: u64,
    pub variable: u64,
    pub scatter: u64,
    pub shard_key_updates: u64,
    pub single_without_key: u64,
    pub multi_without_key: u64,
}

impl Counts {
    pub fn percent(&self, n: u64) -> f64 {
        percentage(n, self.total)
    }
}

/// The reads and the writes of a traffic under one key.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReadWrite {
    pub reads: Counts,
    pub writes: Counts,
}

/// Classifies every operation of `traffic` under `pattern`.
pub fn distribution(pattern: &KeyPattern, traffic: &[Operation]) -> ReadWrite {
    let mut out = ReadWrite::default();
    for op in traffic {
        let (dispatch, key) = classify(pattern, op);
        let side = if op.command.is_read() {
            &mut out.reads
        } else {
            &mut out.writes
        };
        let w = op.weight;
        side.total += w;
        match dispatch {
            Dispatch::SingleShard => side.single += w,
            Dispatch::Variable => side.variable += w,
            Dispatch::ScatterGather => side.scatter += w,
        }
        if op.command.is_read() {
            continue;
        }
        if key.is_none() {
            if op.multi {
                side.multi_without_key += w;
            } else {
                side.single_without_key += w;
            }
        }
        if changes_shard_key(pattern, op, key.as_ref()) {
            side.shard_key_updates += w;
        }
    }
    out
}

/// How one operation is counted, and the shard key it names (when it names one).
pub fn classify(pattern: &KeyPattern, op: &Operation) -> (Dispatch, Option<ShardKey>) {
    if let Some(key) = equality_key(pattern, &op.filter) {
        return (Dispatch::SingleShard, Some(key));
    }
    let replacement = op
        .update
        .as_ref()
        .filter(|u| op.command == Command::Update && !op.upsert && !is_modifier(u));
    if let Some(key) = replacement.and_then(|u| key_in_document(pattern, u)) {
        return (Dispatch::SingleShard, Some(key));
    }
    let ranges = key_ranges(pattern, &op.filter);
    let whole = ranges
        .iter()
        .any(|r| r.min == pattern.global_min() && r.max == pattern.global_max());
    if whole {
        (Dispatch::ScatterGather, None)
    } else {
        (Dispatch::Variable, None)
    }
}

/// The one key a filter's equalities pin down (`extractShardKeyFromQuery`).
fn equality_key(pattern: &KeyPattern, filter: &Document) -> Option<ShardKey> {
    let ranges = key_ranges(pattern, filter);
    match ranges.as_slice() {
        [r] if r.min == r.max && r.min_inclusive && r.max_inclusive => Some(r.min.clone()),
        _ => None,
    }
}

/// The key of a document holding every key field (`extractShardKeyFromDoc`).
fn key_in_document(pattern: &KeyPattern, doc: &Document) -> Option<ShardKey> {
    if pattern
        .fields()
        .iter()
        .all(|f| value_at(doc, &f.path).is_some())
    {
        pattern.extract(doc).ok()
    } else {
        None
    }
}

fn is_modifier(update: &Document) -> bool {
    update.keys().next().is_some_and(|k| k.starts_with('$'))
}

fn changes_shard_key(pattern: &KeyPattern, op: &Operation, key: Option<&ShardKey>) -> bool {
    let Some(update) = op.update.as_ref() else {
        return false;
    };
    if !matches!(op.command, Command::Update | Command::FindAndModify) {
        return false;
    }
    if !is_modifier(update) {
        return match (key, key_in_document(pattern, update)) {
            (Some(before), Some(after)) => *before != after,
            _ => false,
        };
    }
    let touches = |path: &str| {
        pattern.fields().iter().any(|f| {
            let k: &str = &f.path;
            path == k
                || path.strip_prefix(k).is_some_and(|r| r.starts_with('.'))
                || k.strip_prefix(path).is_some_and(|r| r.starts_with('.'))
        })
    };
    update.iter().any(|(op, fields)| match fields {
        Bson::Document(d) => d.iter().any(|(path, value)| {
            touches(path) || (op == "$rename" && value.as_str().is_some_and(touches))
        }),
        _ => false,
    })
}

/// Whether some operation asks for a range of the hashed field (no range targeting on it).
pub fn ranges_on_hashed_field(pattern: &KeyPattern, traffic: &[Operation]) -> bool {
    let Some(h) = pattern.hashed_field() else {
        return false;
    };
    let path: &str = &pattern.fields()[h].path;
    traffic.iter().any(|op| has_range(&op.filter, path))
}

fn has_range(filter: &Document, path: &str) -> bool {
    filter.iter().any(|(k, v)| match (k.as_str(), v) {
        ("$and" | "$or", Bson::Array(list)) => list.iter().any(|b| match b {
            Bson::Document(d) => has_range(d, path),
            _ => false,
        }),
        (k, Bson::Document(d)) if k == path => d
            .keys()
            .any(|o| matches!(o.as_str(), "$gt" | "$gte" | "$lt" | "$lte")),
        _ => false,
    })
}

/// `calculatePercentage` (8.0 `src/mongo/s/analyze_shard_key_util.cpp`): `part / whole * 100`,
/// rounded *up* at the 10th decimal place (its `round` is `std::ceil`); 0 for an empty whole.
pub fn percentage(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    let multiplier = 10f64.powi(10);
    (part as f64 / whole as f64 * 100.0 * multiplier).ceil() / multiplier
}

/// The ranges of `analyzeShardKey`'s synthetic routing table that a query targets and how it
/// counts it (8.0 `src/mongo/s/shard_key_pattern_query_util.cpp`, `getShardIdsForCanonicalQuery`
/// with a `QueryTargetingInfo`): range `i` runs from split point `i - 1` (MinKey for the first)
/// to split point `i` (MaxKey for the last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Targeted {
    pub dispatch: Dispatch,
    /// Indexes of the ranges targeted, ascending, without repeats.
    pub ranges: Vec<usize>,
}

/// [`Targeted`] for `filter` under `pattern` over the ranges `split_points` (sorted) cut.
pub fn target_split_ranges(
    pattern: &KeyPattern,
    filter: &Document,
    split_points: &[ShardKey],
) -> Targeted {
    let ranges = key_ranges(pattern, filter);
    let mut touched = std::collections::BTreeSet::new();
    for r in ranges.iter().filter(|r| !r.is_empty()) {
        // `forEachOverlappingChunk(min, max, isMaxInclusive = true)`.
        touched.extend(range_of(&r.min, split_points)..=range_of(&r.max, split_points));
    }
    if touched.is_empty() {
        // SERVER-4914: a query that matches nothing is still sent to the first chunk.
        touched.insert(0);
    }
    let dispatch = match ranges.as_slice() {
        [r] if r.min == r.max => Dispatch::SingleShard,
        [r] if r.min == pattern.global_min() && r.max == pattern.global_max() => {
            Dispatch::ScatterGather
        }
        _ => Dispatch::Variable,
    };
    Targeted {
        dispatch,
        ranges: touched.into_iter().collect(),
    }
}

/// [`Targeted`] for a query by the shard key `key` (a point).
pub fn target_split_key(key: &ShardKey, split_points: &[ShardKey]) -> Targeted {
    Targeted {
        dispatch: Dispatch::SingleShard,
        ranges: vec![range_of(key, split_points)],
    }
}

/// The range holding `key`: the number of split points at or below it.
fn range_of(key: &ShardKey, split_points: &[ShardKey]) -> usize {
    split_points.partition_point(|s| s <= key)
}

/// Whether an update or findAndModify changes the shard key under `pattern`, as [`distribution`]
/// counts it.
pub fn updates_shard_key(pattern: &KeyPattern, op: &Operation) -> bool {
    let (_, key) = classify(pattern, op);
    changes_shard_key(pattern, op, key.as_ref())
}
