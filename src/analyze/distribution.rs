//! The read and write distribution of a traffic under a candidate key, as `analyzeShardKey`
//! classifies each sampled query (`src/mongo/db/s/analyze_shard_key_read_write_distribution.cpp`,
//! `DistributionMetricsCalculator::_incrementMetricsForQuery`), from the filter's shape alone:
//!
//! - a filter with an equality on every key field (`extractShardKeyFromQuery`) is a
//!   single-shard query; a non-upsert replacement update whose filter does not pin the key is
//!   targeted by the key its replacement holds instead — under any filter in 7.0, only under an
//!   exact `_id` filter from 7.1 ([`ReplacementRule`]);
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
use crate::model::targeting::{key_ranges, overlapping};
use crate::model::{KeyPattern, KeyValue, ShardKey, value_at};

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

/// When a replacement update is targeted by its replacement document rather than its filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplacementRule {
    /// 7.0: whenever the filter has no equality on the whole key (7.0
    /// `src/mongo/db/s/analyze_shard_key_read_write_distribution.cpp`,
    /// `_incrementMetricsForQuery`: the `secondaryFilter` replaces the filter when
    /// `extractShardKeyFromQuery` finds no key).
    AnyFilter,
    /// 7.1 and later: only when the filter is an exact `_id` (8.0
    /// `src/mongo/db/s/analyze_shard_key_read_write_distribution.cpp`, `_addUpdateQuery`:
    /// "targeting by replacement document is only done when the query targets an exact id
    /// value", `CollectionRoutingInfoTargeter::isExactIdQuery`).
    ExactIdOnly,
}

impl ReplacementRule {
    /// The rule of release line `major.minor`.
    pub fn of_release(major: u8, minor: u8) -> Self {
        if (major, minor) <= (7, 0) {
            Self::AnyFilter
        } else {
            Self::ExactIdOnly
        }
    }
}

/// The filter a write is targeted by in place of its own when it is a non-upsert replacement
/// update whose filter pins no key and `rule` allows it: the shard key its replacement holds, or
/// an empty filter (the whole key space) when the replacement lacks a key field, as
/// `extractShardKeyFromDoc` gives an empty key then. `None`: the write's own filter counts. The
/// lab and `serve` both classify replacements through this.
pub fn replacement_filter(
    pattern: &KeyPattern,
    op: &Operation,
    rule: ReplacementRule,
) -> Option<Document> {
    let u = op.update.as_ref()?;
    if op.command != Command::Update || op.upsert || is_modifier(u) {
        return None;
    }
    if equality_key(pattern, &op.filter).is_some() {
        return None;
    }
    if rule == ReplacementRule::ExactIdOnly && !is_exact_id(&op.filter) {
        return None;
    }
    Some(match key_in_document(pattern, u) {
        Some(_) => pattern
            .fields()
            .iter()
            .filter_map(|f| value_at(u, &f.path).map(|v| (f.path.to_string(), v.clone())))
            .collect(),
        None => Document::new(),
    })
}

/// `isExactIdQuery` (8.0 `src/mongo/s/collection_routing_info_targeter.cpp`): the filter is an
/// equality on `_id` alone, by a value that is not an array or a regular expression (nor an
/// operator document other than `{$eq: v}`).
pub fn is_exact_id(filter: &Document) -> bool {
    if filter.len() != 1 {
        return false;
    }
    let operand = |v: &Bson| !matches!(v, Bson::Array(_) | Bson::RegularExpression(_));
    match filter.get("_id") {
        Some(Bson::Document(d)) if d.keys().any(|k| k.starts_with('$')) => {
            d.len() == 1 && d.get("$eq").is_some_and(operand)
        }
        Some(v) => operand(v),
        None => false,
    }
}

/// Classifies every operation of `traffic` under `pattern`, replacements by `rule`.
pub fn distribution(
    pattern: &KeyPattern,
    traffic: &[Operation],
    rule: ReplacementRule,
) -> ReadWrite {
    let mut out = ReadWrite::default();
    for op in traffic {
        let (dispatch, key) = classify(pattern, op, rule);
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
        if updates_shard_key(pattern, op) {
            side.shard_key_updates += w;
        }
    }
    out
}

/// How one operation is counted, and the shard key it names (when it names one).
pub fn classify(
    pattern: &KeyPattern,
    op: &Operation,
    rule: ReplacementRule,
) -> (Dispatch, Option<ShardKey>) {
    let replaced = replacement_filter(pattern, op, rule);
    let filter = replaced.as_ref().unwrap_or(&op.filter);
    if let Some(key) = equality_key(pattern, filter) {
        return (Dispatch::SingleShard, Some(key));
    }
    let ranges = key_ranges(pattern, filter);
    if ranges.iter().any(is_whole) {
        (Dispatch::ScatterGather, None)
    } else {
        (Dispatch::Variable, None)
    }
}

/// Whether a range covers the whole key space once flattened as MongoDB flattens index bounds
/// into key ranges: the fields after the first one that is not a point take MinKey to MaxKey
/// (8.0 `src/mongo/s/shard_key_pattern.cpp`, `ShardKeyPattern::flattenBounds`), so a range
/// whose first field runs MinKey to MaxKey is MinKey to MaxKey whatever the later fields say
/// (`{placedAt: {$gte: …}}` under `{customerId: 1, placedAt: 1}` is a scatter-gather).
fn is_whole(r: &crate::model::targeting::KeyRange) -> bool {
    matches!(
        (r.min.values().next(), r.max.values().next()),
        (Some(KeyValue::MinKey), Some(KeyValue::MaxKey))
    )
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
    for r in &ranges {
        // `forEachOverlappingChunk(min, max, isMaxInclusive = true)`: the lab's targeting too.
        if let Some((first, last)) = overlapping(r, |key| range_of(key, split_points)) {
            touched.extend(first..=last);
        }
    }
    if touched.is_empty() {
        // SERVER-4914: a query that matches nothing is still sent to the first chunk.
        touched.insert(0);
    }
    let dispatch = match ranges.as_slice() {
        [r] if r.min == r.max => Dispatch::SingleShard,
        [r] if is_whole(r) => Dispatch::ScatterGather,
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
/// counts it: a modifier on a key field, or a replacement whose key differs from the one its
/// filter pins.
pub fn updates_shard_key(pattern: &KeyPattern, op: &Operation) -> bool {
    let key = equality_key(pattern, &op.filter);
    changes_shard_key(pattern, op, key.as_ref())
}
