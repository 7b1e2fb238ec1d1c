//! Order-preserving stand-ins for shard-key values (`capture --anonymize`): every distinct value of
//! one key field of one collection, across the whole capture (chunk bounds, zone bounds, the
//! changelog's bounds, migrations in flight), is sorted in MongoDB's BSON order
//! (`model::KeyValue`'s `Ord`, after `BSONElement::woCompare`, mongo repo
//! `src/mongo/bson/bsonelement.cpp`) and replaced by a value of the same BSON type built from its
//! rank within its canonical type. Equal values (`5`, `5.0`, `NumberLong(5)`) get the same rank, so
//! the order within each type, the order across types and equality all survive; the values do not.
//!
//! Owns: the tables of stand-ins. May not touch: where the values are in the capture's documents
//! (that is the anonymizer's walk).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use bson::Bson;

use crate::model::KeyValue;
use crate::model::decimal::encode;
use crate::model::extjson::{from_bson, to_bson};
use crate::model::value::{Binary, CodeWithScope, DbPointer, Regex};

/// 2000-01-01T00:00:00Z: a date stand-in is this plus its rank in seconds.
const DATE_BASE_MS: i64 = 946_684_800_000;

/// The values of every key field seen, then their stand-ins.
#[derive(Debug, Default)]
pub struct StandIns {
    /// `(namespace, field)` → the distinct values seen.
    seen: HashMap<(String, String), BTreeSet<KeyValue>>,
    /// `(namespace, field)` → whether the field is hashed in that collection's key pattern.
    hashed: HashMap<(String, String), bool>,
    /// `(namespace, field)` → each value's rank, once [`StandIns::finish`] ran.
    tables: HashMap<(String, String), Table>,
}

/// One field's values: each one's rank within its canonical type, and how stand-ins are built.
#[derive(Debug)]
pub struct Table {
    ranks: BTreeMap<KeyValue, u64>,
    /// The digits of a text stand-in (`k000123`).
    width: usize,
    /// The subtype of a BinData stand-in: the values' own when they all share one, else 0.
    subtype: u8,
    /// The field is hashed: its numbers are spread over the NumberLong range, this many.
    hashed: Option<u64>,
}

impl Table {
    /// The stand-in of `v` (equal values, whatever their numeric or string type, share a rank;
    /// the stand-in has `v`'s own type); `None` when `v` was never noted.
    pub fn stand_in(&self, v: &KeyValue) -> Option<KeyValue> {
        if kept(v) {
            return Some(v.clone());
        }
        let r = *self.ranks.get(v)?;
        Some(stand_in(v, r, self.width, self.subtype, self.hashed))
    }
}

impl StandIns {
    /// Notes that `field` of `ns` is hashed (its values are the hashes `convertShardKeyToHashed`
    /// returns, NumberLongs).
    pub fn note_hashed(&mut self, ns: &str, field: &str) {
        self.hashed.insert((ns.into(), field.into()), true);
    }

    /// Notes one value of `field` of `ns`.
    pub fn note(&mut self, ns: &str, field: &str, value: &Bson) {
        let key = (ns.to_string(), field.to_string());
        self.seen.entry(key).or_default().insert(from_bson(value));
    }

    /// Computes every table from the values noted.
    pub fn finish(&mut self) {
        for (key, values) in std::mem::take(&mut self.seen) {
            let hashed = self.hashed.get(&key).copied().unwrap_or(false);
            self.tables.insert(key, table(&values, hashed));
        }
    }

    /// The stand-in of `value` of `field` of `ns`; a value never noted becomes `Null` (never
    /// kept: no value of a key field leaves unreplaced by accident).
    pub fn replace(&self, ns: &str, field: &str, value: &Bson) -> Bson {
        let key = (ns.to_string(), field.to_string());
        let v = from_bson(value);
        match self.tables.get(&key).and_then(|t| t.stand_in(&v)) {
            Some(s) => to_bson(&s),
            None if kept(&v) => value.clone(),
            None => Bson::Null,
        }
    }
}

/// Values kept as they are: one value per type (MinKey, MaxKey, null, undefined), the two
/// booleans, and the numbers with no rank (NaN, ±Infinity).
fn kept(v: &KeyValue) -> bool {
    match v {
        KeyValue::MinKey
        | KeyValue::MaxKey
        | KeyValue::Null
        | KeyValue::Undefined
        | KeyValue::Bool(_) => true,
        KeyValue::Double(d) => !d.is_finite(),
        KeyValue::Decimal(d) => !d.to_f64().is_finite(),
        _ => false,
    }
}

/// The ranks of `values` (sorted and distinct in BSON order).
pub fn table(values: &BTreeSet<KeyValue>, hashed: bool) -> Table {
    let width = (values.len().max(1).ilog10() as usize + 1).max(6);
    let mut binary_subtypes = values.iter().filter_map(|v| match v {
        KeyValue::Binary(b) => Some(b.subtype),
        _ => None,
    });
    let first = binary_subtypes.next();
    let subtype = match first {
        Some(s) if binary_subtypes.all(|t| t == s) => s,
        _ => 0,
    };
    let numbers = (values.iter())
        .filter(|v| v.is_number() && !kept(v))
        .count() as u64;
    let mut next: HashMap<i32, u64> = HashMap::new();
    let mut ranks = BTreeMap::new();
    for v in values.iter().filter(|v| !kept(v)) {
        let n = next.entry(v.canonical_type()).or_insert(0);
        ranks.insert(v.clone(), *n);
        *n += 1;
    }
    Table {
        ranks,
        width,
        subtype,
        hashed: hashed.then_some(numbers),
    }
}

/// `k000123`: fixed width, so the byte order is the rank's.
fn text(r: u64, width: usize) -> Box<str> {
    format!("k{r:0width$}").into()
}

/// The rank `r` spread evenly over the signed 64-bit range (`of` ranks in all): a hashed field's
/// stand-ins cover the hash space as its values did.
fn spread(r: u64, of: u64) -> i64 {
    let step = u128::from(u64::MAX) / u128::from(of + 1);
    let at = u128::from(r + 1) * step;
    (at as i128 + i128::from(i64::MIN)) as i64
}

/// The stand-in of rank `r` (within `v`'s canonical type) for `v`, of `v`'s BSON type.
/// `hashed`: the field is hashed, with this many numbers.
fn stand_in(v: &KeyValue, r: u64, width: usize, subtype: u8, hashed: Option<u64>) -> KeyValue {
    use KeyValue as V;
    let r32 = i32::try_from(r).unwrap_or(i32::MAX);
    let r64 = i64::try_from(r).unwrap_or(i64::MAX);
    match v {
        // A hashed field holds NumberLongs only (`BSONElementHasher::hash64`, mongo repo
        // `src/mongo/db/hasher.h`); an Int32 there would keep its rank.
        V::Int64(_) if hashed.is_some() => V::Int64(spread(r, hashed.unwrap_or(0))),
        V::Double(_) if hashed.is_some() => V::Double(spread(r, hashed.unwrap_or(0)) as f64),
        V::Decimal(_) if hashed.is_some() => {
            let x = spread(r, hashed.unwrap_or(0));
            V::Decimal(encode(x < 0, u128::from(x.unsigned_abs()), 0))
        }
        V::Int32(_) => V::Int32(r32),
        V::Int64(_) => V::Int64(r64),
        V::Double(_) => V::Double(r as f64),
        V::Decimal(_) => V::Decimal(encode(false, u128::from(r), 0)),
        V::String(_) => V::String(text(r, width)),
        V::Symbol(_) => V::Symbol(text(r, width)),
        V::Code(_) => V::Code(text(r, width)),
        V::Document(_) => V::Document(vec![("k".into(), V::Int64(r64))].into()),
        V::Array(_) => V::Array(vec![V::Int64(r64)].into()),
        V::Binary(_) => V::Binary(Box::new(Binary {
            subtype,
            bytes: u128::from(r).to_be_bytes().into(),
        })),
        V::ObjectId(_) => {
            let b = u128::from(r).to_be_bytes();
            let mut id = [0u8; 12];
            id.copy_from_slice(&b[4..]);
            V::ObjectId(id)
        }
        V::DateTime(_) => V::DateTime(DATE_BASE_MS.saturating_add(r64.saturating_mul(1000))),
        V::Timestamp { .. } => V::Timestamp {
            time: u32::try_from(r + 1).unwrap_or(u32::MAX),
            increment: 0,
        },
        V::Regex(_) => V::Regex(Box::new(Regex {
            pattern: text(r, width),
            options: "".into(),
        })),
        V::DbPointer(_) => V::DbPointer(Box::new(DbPointer {
            namespace: text(r, width),
            id: [0; 12],
        })),
        V::CodeWithScope(_) => V::CodeWithScope(Box::new(CodeWithScope {
            code: text(r, width),
            scope: Vec::new().into(),
        })),
        // One value per type, and the booleans: kept (see `kept`).
        other => other.clone(),
    }
}
