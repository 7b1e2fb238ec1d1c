//! A conjunction of field bounds flattened into shard-key ranges exactly as mongos'
//! `ShardKeyPattern::flattenBounds` does (`src/mongo/s/shard_key_pattern.cpp`, 4.4 to 8.0):
//! single-point fields extend the bounds; the first field with several intervals (a range, an
//! `$in`, or no constraint) gives one range per interval; every later field appends the start of
//! its first interval and the end of its last. Inclusivity is ignored: each range is `[min, max]`
//! with both ends inclusive, as `getShardIdsForRange` reads it (`isMaxInclusive = true`).

use super::KeyRange;
use super::filter::Conjunct;
use super::intervals::{FieldBounds, Interval};
use crate::model::key::ShardKey;
use crate::model::value::KeyValue;

impl Conjunct {
    /// Appends the shard-key ranges of this conjunction (see the module docs); none when a field
    /// can match nothing ("If any field is unsatisfied, return empty bound list").
    pub(super) fn flatten(&self, out: &mut Vec<KeyRange>) {
        let fields = &self.0;
        if fields.iter().any(|f| f.0.is_empty()) {
            return;
        }
        let mut prefix: Vec<KeyValue> = Vec::with_capacity(fields.len());
        let mut i = 0;
        while i < fields.len() && fields[i].0.len() == 1 && fields[i].0[0].is_point() {
            prefix.push(fields[i].0[0].lo.value.clone());
            i += 1;
        }
        if i == fields.len() {
            out.extend(point_range(prefix));
            return;
        }
        let tail: Vec<Interval> = fields[i + 1..]
            .iter()
            .filter_map(FieldBounds::hull)
            .collect();
        for interval in &fields[i].0 {
            out.extend(compound_range(&prefix, interval, &tail));
        }
    }
}

/// The range holding exactly one key.
pub(super) fn point_range(values: Vec<KeyValue>) -> Option<KeyRange> {
    let key = ShardKey::from_values(values)?;
    Some(KeyRange {
        min: key.clone(),
        min_inclusive: true,
        max: key,
        max_inclusive: true,
    })
}

/// `[prefix + interval.start + tail starts, prefix + interval.end + tail ends]`, both ends
/// inclusive whatever the intervals' own inclusivity.
pub(super) fn compound_range(
    prefix: &[KeyValue],
    interval: &Interval,
    tail: &[Interval],
) -> Option<KeyRange> {
    let ends = || std::iter::once(interval).chain(tail);
    let min: Vec<KeyValue> = (prefix.iter().cloned())
        .chain(ends().map(|iv| iv.lo.value.clone()))
        .collect();
    let max: Vec<KeyValue> = (prefix.iter().cloned())
        .chain(ends().map(|iv| iv.hi.value.clone()))
        .collect();
    Some(KeyRange {
        min: ShardKey::from_values(min)?,
        min_inclusive: true,
        max: ShardKey::from_values(max)?,
        max_inclusive: true,
    })
}
