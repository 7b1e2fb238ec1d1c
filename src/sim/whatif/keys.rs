//! The key distribution of a fork that read only chunk totals (a live poll, a capture, a trace):
//! each chunk's documents spread evenly over its range, so that the balancer's moves of part of
//! a chunk (`moveRange` from 6.0, split points of `splitVector`) find bounds as they would in the
//! data. The keys are interpolated between the chunk's bounds on the first field of the shard
//! key, in that field's BSON type: Int32, Int64 (a hashed key's bounds among them) or Double
//! (numbers compare by value, so the widest of the two bounds' types is used), Date, ObjectId
//! (its 12 bytes as one number, as BSON orders them); MinKey and MaxKey stand for the type's
//! least and greatest value (±2^53 for a Double). A compound key's further fields are the
//! chunk's lower bound's, so a chunk whose bounds share their first field gets no estimate. Any
//! other type (strings, Decimal128, …), or bounds of two different types, leave the key without
//! one, said in the assumptions; so does one such chunk for the whole collection.
//!
//! Owns: that estimate. May not touch: a collection whose keys are known (the simulator's own).

use crate::cluster::key_index::KeyCount;
use crate::model::{KeyValue, ShardKey};
use crate::sim::engine::Simulator;

/// Estimated keys per chunk at most.
const MAX_KEYS_PER_CHUNK: u64 = 256;

/// A Double bound of MinKey/MaxKey: the greatest magnitude whose integers are all exact.
const DOUBLE_END: f64 = 9_007_199_254_740_992.0;

/// The BSON type the keys of a chunk are interpolated in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    Int32,
    Int64,
    Double,
    Date,
    ObjectId,
}

/// What a bound is to the estimate.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    /// MinKey or MaxKey: an end of any line.
    End,
    Of(Line),
}

/// The kind of a bound; `None` for a type not interpolated.
fn kind(v: &KeyValue) -> Option<Bound> {
    Some(Bound::Of(match v {
        KeyValue::MinKey | KeyValue::MaxKey => return Some(Bound::End),
        KeyValue::Int32(_) => Line::Int32,
        KeyValue::Int64(_) => Line::Int64,
        KeyValue::Double(x) if x.is_finite() => Line::Double,
        KeyValue::DateTime(_) => Line::Date,
        KeyValue::ObjectId(_) => Line::ObjectId,
        _ => return None,
    }))
}

fn is_number(l: Line) -> bool {
    matches!(l, Line::Int32 | Line::Int64 | Line::Double)
}

/// The line of a chunk whose first field runs from `lo` to `hi`; `[MinKey, MaxKey)` is an Int64
/// one (a hashed key's single chunk).
fn line_of(lo: &KeyValue, hi: &KeyValue) -> Option<Line> {
    match (kind(lo)?, kind(hi)?) {
        (Bound::End, Bound::End) => Some(Line::Int64),
        (Bound::Of(a), Bound::End) | (Bound::End, Bound::Of(a)) => Some(a),
        (Bound::Of(a), Bound::Of(b)) if a == b => Some(a),
        (Bound::Of(a), Bound::Of(b)) if is_number(a) && is_number(b) => {
            Some(if a == Line::Double || b == Line::Double {
                Line::Double
            } else {
                Line::Int64
            })
        }
        _ => None,
    }
}

/// A bound on an integral line, MinKey and MaxKey the line's ends.
fn integral(line: Line, v: &KeyValue) -> Option<i128> {
    let (least, greatest): (i128, i128) = match line {
        Line::Int32 => (i32::MIN.into(), i32::MAX.into()),
        Line::Int64 | Line::Date => (i64::MIN.into(), i64::MAX.into()),
        Line::ObjectId => (0, (1 << 96) - 1),
        Line::Double => return None,
    };
    Some(match v {
        KeyValue::MinKey => least,
        KeyValue::MaxKey => greatest,
        KeyValue::Int32(n) => i128::from(*n),
        KeyValue::Int64(n) | KeyValue::DateTime(n) => i128::from(*n),
        KeyValue::ObjectId(b) => {
            let mut wide = [0u8; 16];
            wide[4..].copy_from_slice(b);
            u128::from_be_bytes(wide) as i128
        }
        _ => return None,
    })
}

fn value_at(line: Line, at: i128) -> Option<KeyValue> {
    Some(match line {
        Line::Int32 => KeyValue::Int32(i32::try_from(at).ok()?),
        Line::Int64 => KeyValue::Int64(i64::try_from(at).ok()?),
        Line::Date => KeyValue::DateTime(i64::try_from(at).ok()?),
        Line::ObjectId => {
            let wide = u128::try_from(at).ok()?.to_be_bytes();
            let mut b = [0u8; 12];
            b.copy_from_slice(&wide[4..]);
            KeyValue::ObjectId(b)
        }
        Line::Double => return None,
    })
}

fn double(v: &KeyValue) -> Option<f64> {
    match v {
        KeyValue::Int32(n) => Some(f64::from(*n)),
        KeyValue::Int64(n) => Some(*n as f64),
        KeyValue::Double(x) => Some(*x),
        _ => None,
    }
}

/// Up to `n` values of the first field, evenly spaced over `[lo, hi)` (the midpoints of `n`
/// equal parts), ascending.
fn first_values(lo: &KeyValue, hi: &KeyValue, n: u64) -> Option<Vec<KeyValue>> {
    let line = line_of(lo, hi)?;
    if line == Line::Double {
        let a = double(lo).unwrap_or_else(|| double(hi).unwrap_or(0.0).min(0.0) - DOUBLE_END);
        let b = double(hi).unwrap_or_else(|| a.max(0.0) + DOUBLE_END);
        let n = n as f64;
        return Some(
            (0..n as u64)
                .map(|j| KeyValue::Double(a + (b - a) * (2.0 * j as f64 + 1.0) / (2.0 * n)))
                .collect(),
        );
    }
    let (a, b) = (integral(line, lo)?, integral(line, hi)?);
    let span = b - a;
    // No more values than there are in the range, so that they are distinct.
    let n = i128::from(n).min(span);
    Some(
        (0..n.max(0))
            .filter_map(|j| value_at(line, a + span * (2 * j + 1) / (2 * n)))
            .collect(),
    )
}

/// At most `n` keys in `[min, max)`, strictly ascending, spread evenly on the first field (the
/// further fields the lower bound's); `None` when the bounds are not ones this estimate
/// handles.
pub fn estimate(min: &ShardKey, max: &ShardKey, n: u64) -> Option<Vec<ShardKey>> {
    let (lo, hi) = (min.get(0)?, max.get(0)?);
    if lo == hi {
        return None;
    }
    let rest: Vec<KeyValue> = min.values().skip(1).cloned().collect();
    let mut keys: Vec<ShardKey> = Vec::new();
    for v in first_values(lo, hi, n)? {
        let mut values = vec![v];
        values.extend(rest.iter().cloned());
        let Some(key) = ShardKey::from_values(values) else {
            continue;
        };
        // A Double rounded onto a bound, or onto the key before it, is passed over.
        if key >= *min && key < *max && keys.last().is_none_or(|k| *k < key) {
            keys.push(key);
        }
    }
    (!keys.is_empty()).then_some(keys)
}

/// What became of the estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    Made,
    /// The collection's keys were known: nothing estimated.
    KeysKnown,
    /// No chunk holds documents.
    Empty,
    /// A chunk with documents has bounds the estimate does not interpolate.
    NotInterpolated,
}

/// Spreads each chunk's documents over its range, unless the keys are known, no chunk holds
/// documents, or a chunk's bounds are not ones it interpolates (then nothing is spread).
pub fn spread_evenly(sim: &mut Simulator, c: usize) -> Spread {
    let chunk_size = sim.cluster.chunk_size_of(c);
    let coll = &mut sim.cluster.collections[c];
    if coll.keys.distinct() > 0 {
        return Spread::KeysKnown;
    }
    let mut plan = Vec::new();
    for ch in coll.table.iter() {
        let stats = ch.info.stats;
        if stats.docs == 0 {
            continue;
        }
        let n = (stats.bytes / (chunk_size / 8).max(1))
            .clamp(1, MAX_KEYS_PER_CHUNK)
            .min(stats.docs);
        let Some(keys) = estimate(ch.min, ch.max, n) else {
            return Spread::NotInterpolated;
        };
        plan.push((keys, stats.docs, stats.bytes));
    }
    if plan.is_empty() {
        return Spread::Empty;
    }
    for (keys, docs, bytes) in plan {
        let n = keys.len() as u64;
        for (j, key) in keys.into_iter().enumerate() {
            let share = |total: u64| total / n + u64::from((j as u64) < total % n);
            coll.keys.insert_count(
                key,
                KeyCount {
                    docs: share(docs),
                    bytes: share(bytes),
                },
            );
        }
    }
    Spread::Made
}

#[cfg(test)]
#[path = "keys_tests.rs"]
mod tests;
