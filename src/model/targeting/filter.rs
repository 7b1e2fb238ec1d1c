//! A filter document turned into a disjunction of conjunctions of field bounds: each clause,
//! `$and`/`$or`, equality, `$in`, comparisons bracketed to their type, embedded documents and
//! hashed fields (see the parent module's docs for the semantics).

use bson::{Bson, Document};

use super::MAX_CONJUNCTS;
use super::intervals::{Bound, FieldBounds, Interval};
use crate::model::extjson::from_bson;
use crate::model::hash::hash64;
use crate::model::pattern::{KeyField, KeyPattern};
use crate::model::value::KeyValue;

/// Bounds on every key field (in pattern order) that hold at once.
#[derive(Clone, Debug)]
pub(super) struct Conjunct(pub(super) Vec<FieldBounds>);

impl Conjunct {
    pub(super) fn everything(fields: usize) -> Self {
        Self(vec![FieldBounds::everything(); fields])
    }

    pub(super) fn matches_nothing(&self) -> bool {
        self.0.iter().any(|f| f.0.is_empty())
    }

    pub(super) fn intersect(&self, other: &Self) -> Self {
        Self(
            self.0
                .iter()
                .zip(&other.0)
                .map(|(a, b)| a.intersect(b))
                .collect(),
        )
    }
}

/// The filter as a disjunction of conjunctions that can match something (empty: nothing).
pub(super) fn conjuncts(pattern: &KeyPattern, filter: &Document) -> Vec<Conjunct> {
    let mut dnf = vec![Conjunct::everything(pattern.len())];
    for (name, value) in filter {
        dnf = clause(pattern, dnf, name, value);
    }
    dnf.retain(|c| !c.matches_nothing());
    dnf
}

/// Applies one top-level clause of a filter document to the conjunctions so far.
pub(super) fn clause(
    pattern: &KeyPattern,
    dnf: Vec<Conjunct>,
    name: &str,
    value: &Bson,
) -> Vec<Conjunct> {
    match name {
        "$and" => sub_filters(value).fold(dnf, |acc, sub| and(acc, &conjuncts(pattern, sub))),
        "$or" => {
            let branches: Vec<&Document> = sub_filters(value).collect();
            if branches.is_empty() {
                return dnf;
            }
            let union: Vec<Conjunct> = branches
                .into_iter()
                .flat_map(|branch| conjuncts(pattern, branch))
                .collect();
            and(dnf, &union)
        }
        _ if name.starts_with('$') => dnf,
        _ => constrain(pattern, dnf, name, value),
    }
}

/// The documents of an `$and` / `$or` array (anything else in it is skipped).
pub(super) fn sub_filters(value: &Bson) -> impl Iterator<Item = &Document> {
    let items = match value {
        Bson::Array(items) => &items[..],
        _ => &[],
    };
    items.iter().filter_map(Bson::as_document)
}

/// Both: every pair intersected. Past [`MAX_CONJUNCTS`] the right side is dropped, which only
/// widens the result.
pub(super) fn and(left: Vec<Conjunct>, right: &[Conjunct]) -> Vec<Conjunct> {
    if left.len().saturating_mul(right.len()) > MAX_CONJUNCTS {
        return left;
    }
    let mut out = Vec::with_capacity(left.len() * right.len());
    for l in &left {
        for r in right {
            let both = l.intersect(r);
            if !both.matches_nothing() {
                out.push(both);
            }
        }
    }
    out
}

/// Narrows every conjunction by a `path: value` clause, for each key field it constrains.
pub(super) fn constrain(
    pattern: &KeyPattern,
    mut dnf: Vec<Conjunct>,
    path: &str,
    value: &Bson,
) -> Vec<Conjunct> {
    for (i, field) in pattern.fields().iter().enumerate() {
        let bounds = if *field.path == *path {
            field_bounds(field, value)
        } else if let Some(rest) = below(&field.path, path) {
            parent_bounds(field, rest, value)
        } else {
            continue;
        };
        if bounds.is_everything() {
            continue;
        }
        for conjunct in &mut dnf {
            conjunct.0[i] = conjunct.0[i].intersect(&bounds);
        }
    }
    dnf
}

/// The rest of `key_path` below `path` (`a.b.c` below `a` is `b.c`), if `path` is a parent of it.
pub(super) fn below<'k>(key_path: &'k str, path: &str) -> Option<&'k str> {
    key_path.strip_prefix(path)?.strip_prefix('.')
}

/// An operator document (`{$gt: 1}`) rather than a value to compare with.
pub(super) fn operators(value: &Bson) -> Option<&Document> {
    match value {
        Bson::Document(doc) if doc.keys().next().is_some_and(|k| k.starts_with('$')) => Some(doc),
        _ => None,
    }
}

/// The bounds a filter value puts on the key field it names.
pub(super) fn field_bounds(field: &KeyField, value: &Bson) -> FieldBounds {
    if let Some(ops) = operators(value) {
        return ops
            .iter()
            .fold(FieldBounds::everything(), |acc, (op, operand)| {
                acc.intersect(&operator_bounds(field, op, operand))
            });
    }
    match value {
        Bson::RegularExpression(_) => FieldBounds::everything(),
        other => equality(field, std::slice::from_ref(other)),
    }
}

/// The bounds of one operator on a key field.
pub(super) fn operator_bounds(field: &KeyField, op: &str, operand: &Bson) -> FieldBounds {
    match op {
        "$eq" => equality(field, std::slice::from_ref(operand)),
        "$in" => match operand {
            Bson::Array(items) if !items.iter().any(is_regex) => equality(field, items),
            _ => FieldBounds::everything(),
        },
        "$gt" | "$gte" | "$lt" | "$lte" if !field.hashed => comparison(op, from_bson(operand)),
        _ => FieldBounds::everything(),
    }
}

pub(super) fn is_regex(value: &Bson) -> bool {
    matches!(value, Bson::RegularExpression(_))
}

/// Points for equality with any of `values` (hashed on the hashed field).
pub(super) fn equality(field: &KeyField, values: &[Bson]) -> FieldBounds {
    let mut points = Vec::with_capacity(values.len());
    for value in values {
        match value {
            Bson::Array(_) if field.hashed => return FieldBounds::everything(),
            Bson::Array(items) => {
                points.push(from_bson(value));
                points.push(items.first().map_or(KeyValue::Undefined, from_bson));
            }
            other => points.push(from_bson(other)),
        }
    }
    key_points(field, points)
}

/// Points on a key field, hashing them when the field is hashed.
pub(super) fn key_points(field: &KeyField, values: Vec<KeyValue>) -> FieldBounds {
    if field.hashed {
        FieldBounds::points(values.iter().map(|v| KeyValue::Int64(hash64(v))).collect())
    } else {
        FieldBounds::points(values)
    }
}

/// The bounds that `parent: value` puts on the key field `rest` levels below it: only plain
/// equality (`{a: {b: 1}}`, `$eq`, `$in`) constrains it.
pub(super) fn parent_bounds(field: &KeyField, rest: &str, value: &Bson) -> FieldBounds {
    let equal_to: &[Bson] = match operators(value) {
        Some(ops) => {
            return ops
                .iter()
                .fold(FieldBounds::everything(), |acc, (op, operand)| {
                    let bounds = match (op.as_str(), operand) {
                        ("$eq", v) => projected(field, rest, std::slice::from_ref(v)),
                        ("$in", Bson::Array(items)) => projected(field, rest, items),
                        _ => FieldBounds::everything(),
                    };
                    acc.intersect(&bounds)
                });
        }
        None => std::slice::from_ref(value),
    };
    projected(field, rest, equal_to)
}

/// Points for the key field `rest` below a parent equal to one of `values`.
pub(super) fn projected(field: &KeyField, rest: &str, values: &[Bson]) -> FieldBounds {
    let mut points = Vec::with_capacity(values.len());
    for value in values {
        match project(value, rest) {
            Some(v) => points.push(v),
            None => return FieldBounds::everything(),
        }
    }
    key_points(field, points)
}

/// The key value at `rest` inside `value`, as key extraction finds it: missing or below a
/// non-document is null. `None` when it cannot be known (a regex match, an array on the way).
pub(super) fn project(value: &Bson, rest: &str) -> Option<KeyValue> {
    let mut current = value;
    for segment in rest.split('.') {
        match current {
            Bson::Document(doc) => match doc.get(segment) {
                Some(inner) => current = inner,
                None => return Some(KeyValue::Null),
            },
            Bson::Array(_) | Bson::RegularExpression(_) => return None,
            _ => return Some(KeyValue::Null),
        }
    }
    match current {
        Bson::Array(_) => None,
        other => Some(from_bson(other)),
    }
}

/// The interval of `$gt`/`$gte`/`$lt`/`$lte` with `operand`, bracketed to its type.
pub(super) fn comparison(op: &str, operand: KeyValue) -> FieldBounds {
    let inclusive = op.ends_with('e');
    if matches!(operand, KeyValue::Array(_)) {
        return FieldBounds::everything();
    }
    if operand == KeyValue::Null || is_nan(&operand) {
        // Only equal values compare: a point for $gte/$lte, nothing for $gt/$lt.
        return if inclusive {
            FieldBounds::points(vec![operand])
        } else {
            FieldBounds::nothing()
        };
    }
    let at = Bound {
        value: operand,
        inclusive,
    };
    let interval = if op.starts_with("$gt") {
        let top = type_ceiling(&at.value);
        Interval::new(at, top)
    } else {
        let bottom = type_floor(&at.value);
        Interval::new(bottom, at)
    };
    FieldBounds::interval(interval)
}

pub(super) fn is_nan(value: &KeyValue) -> bool {
    value.is_number() && *value == KeyValue::Double(f64::NAN)
}

/// The lowest value of `value`'s canonical type (MinKey for the rare types).
pub(super) fn type_floor(value: &KeyValue) -> Bound {
    match value.canonical_type() {
        10 => Bound::incl(KeyValue::Double(f64::NEG_INFINITY)),
        15 => Bound::incl(KeyValue::string("")),
        20 => Bound::incl(KeyValue::Document(Box::default())),
        30 => Bound::incl(KeyValue::Binary(Box::new(crate::model::value::Binary {
            subtype: 0,
            bytes: Box::default(),
        }))),
        35 => Bound::incl(KeyValue::ObjectId([0; 12])),
        40 => Bound::incl(KeyValue::Bool(false)),
        45 => Bound::incl(KeyValue::DateTime(i64::MIN)),
        47 => Bound::incl(KeyValue::Timestamp {
            time: 0,
            increment: 0,
        }),
        _ => Bound::incl(KeyValue::MinKey),
    }
}

/// The highest value of `value`'s canonical type, or the first of the next type exclusive
/// (MaxKey for the rare types).
pub(super) fn type_ceiling(value: &KeyValue) -> Bound {
    match value.canonical_type() {
        10 => Bound::incl(KeyValue::Double(f64::INFINITY)),
        15 => Bound::excl(KeyValue::Document(Box::default())),
        20 => Bound::excl(KeyValue::Array(Box::default())),
        30 => Bound::excl(KeyValue::ObjectId([0; 12])),
        35 => Bound::incl(KeyValue::ObjectId([0xFF; 12])),
        40 => Bound::incl(KeyValue::Bool(true)),
        45 => Bound::incl(KeyValue::DateTime(i64::MAX)),
        47 => Bound::incl(KeyValue::Timestamp {
            time: u32::MAX,
            increment: u32::MAX,
        }),
        _ => Bound::incl(KeyValue::MaxKey),
    }
}
