//! A conjunction of field bounds flattened into shard-key ranges, as mongos' `flattenBounds`
//! does: points on a key prefix multiplied out, the first range ending the product, inclusivity
//! kept exactly.

use super::filter::Conjunct;
use super::intervals::{Bound, FieldBounds, Interval};
use super::{KeyRange, MAX_PREFIXES};
use crate::model::key::ShardKey;
use crate::model::value::KeyValue;

impl Conjunct {
    /// Appends the shard-key ranges of this conjunction (see the module docs, "Compound keys").
    pub(super) fn flatten(&self, out: &mut Vec<KeyRange>) {
        let fields = &self.0;
        let mut prefixes: Vec<Vec<KeyValue>> = vec![Vec::with_capacity(fields.len())];
        let mut i = 0;
        while i < fields.len() && fields[i].is_points() && fits(prefixes.len(), fields[i].0.len()) {
            prefixes = extend(&prefixes, &fields[i]);
            i += 1;
        }
        if i == fields.len() {
            out.extend(prefixes.into_iter().filter_map(point_range));
            return;
        }
        let intervals = if fits(prefixes.len(), fields[i].0.len()) {
            fields[i].0.clone()
        } else {
            fields[i].hull().into_iter().collect()
        };
        let tail: Vec<Interval> = fields[i + 1..]
            .iter()
            .filter_map(FieldBounds::hull)
            .collect();
        for prefix in &prefixes {
            for interval in &intervals {
                out.extend(compound_range(prefix, interval, &tail));
            }
        }
    }
}

/// Whether `prefixes` prefixes times `n` values stays within [`MAX_PREFIXES`] (one prefix
/// never multiplies, so a single long `$in` stays exact).
pub(super) fn fits(prefixes: usize, n: usize) -> bool {
    prefixes == 1 || prefixes.saturating_mul(n) <= MAX_PREFIXES
}

/// Every prefix followed by every point of `field`.
pub(super) fn extend(prefixes: &[Vec<KeyValue>], field: &FieldBounds) -> Vec<Vec<KeyValue>> {
    let mut out = Vec::with_capacity(prefixes.len() * field.0.len());
    for prefix in prefixes {
        for point in &field.0 {
            let mut key = prefix.clone();
            key.push(point.lo.value.clone());
            out.push(key);
        }
    }
    out
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

/// The range of keys that start with `prefix`, continue with a value in `interval` and then
/// with values in the hulls `tail`. Its lower bound is exact: a key can only equal it while every
/// lower end met is inclusive, and once one is exclusive the key is above it whatever follows, so
/// the rest is filled with MaxKey (dually, upper bounds are filled with MinKey).
pub(super) fn compound_range(
    prefix: &[KeyValue],
    interval: &Interval,
    tail: &[Interval],
) -> Option<KeyRange> {
    let fields = prefix.len() + 1 + tail.len();
    let ends = || std::iter::once(interval).chain(tail);
    let (min, min_inclusive) = bound_key(prefix, ends().map(|iv| &iv.lo), fields, KeyValue::MaxKey);
    let (max, max_inclusive) = bound_key(prefix, ends().map(|iv| &iv.hi), fields, KeyValue::MinKey);
    Some(KeyRange {
        min: ShardKey::from_values(min)?,
        min_inclusive,
        max: ShardKey::from_values(max)?,
        max_inclusive,
    })
}

/// `prefix` followed by the `ends` values up to and including the first exclusive one, then
/// `fill` up to `fields` values; inclusive when no end was exclusive.
pub(super) fn bound_key<'a>(
    prefix: &[KeyValue],
    ends: impl Iterator<Item = &'a Bound>,
    fields: usize,
    fill: KeyValue,
) -> (Vec<KeyValue>, bool) {
    let mut values = prefix.to_vec();
    for end in ends {
        values.push(end.value.clone());
        if !end.inclusive {
            values.resize(fields, fill);
            return (values, false);
        }
    }
    (values, true)
}
