#![allow(clippy::unwrap_used)]
//! `MongoDB`'s total order across BSON types (`KeyValue`'s `Ord`), its order-preserving prefix,
//! exact comparison of numbers across int32/int64/double/decimal128, and the Extended JSON round
//! trip.

mod cases;
mod properties;

use std::cmp::Ordering;
use std::collections::HashSet;

use proptest::prelude::*;
use shardtop::model::KeyValue;
use shardtop::model::decimal::{self, Decimal128};
use shardtop::model::extjson;
use shardtop::model::value::{Binary, CodeWithScope, DbPointer, Field, Regex};

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

const MAX_COEFFICIENT: u128 = 9_999_999_999_999_999_999_999_999_999_999_999;
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// An exact model of a number, for reference comparisons.
#[derive(Clone, Copy, Debug)]
enum RefNum {
    NaN,
    Inf {
        negative: bool,
    },
    /// `approx` is the correctly rounded nearest double (so the map value → approx is monotone);
    /// `exact` is `coefficient × 10^exponent` when that fits an i128.
    Finite {
        approx: f64,
        exact: Option<(i128, i32)>,
    },
}

fn decimal_nan(negative: bool) -> KeyValue {
    KeyValue::Decimal(Decimal128(
        ((0x7Cu128 << 120) | (u128::from(negative) << 127)).to_le_bytes(),
    ))
}

fn decimal_inf(negative: bool) -> KeyValue {
    KeyValue::Decimal(Decimal128(
        ((0x78u128 << 120) | (u128::from(negative) << 127)).to_le_bytes(),
    ))
}

fn int_ref(x: i64) -> RefNum {
    RefNum::Finite {
        approx: x as f64,
        exact: Some((i128::from(x), 0)),
    }
}

/// The exact value of a finite double as `c × 10^e`, when `c` fits an i128.
fn double_exact(value: f64) -> Option<(i128, i32)> {
    if value == 0.0 {
        return Some((0, 0));
    }
    if value.fract() == 0.0 && value.abs() < 2f64.powi(120) {
        return Some((value as i128, 0));
    }
    let bits = value.to_bits();
    let exp_bits = ((bits >> 52) & 0x7FF) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (mut mantissa, mut power) = if exp_bits == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exp_bits - 1075)
    };
    while mantissa % 2 == 0 && power < 0 {
        mantissa /= 2;
        power += 1;
    }
    // Non-integral here, so power < 0: m × 2^p = m × 5^-p × 10^p.
    let fives = 5i128.checked_pow(u32::try_from(-power).ok()?)?;
    let coefficient = fives.checked_mul(i128::from(mantissa))?;
    Some((
        if value < 0.0 {
            -coefficient
        } else {
            coefficient
        },
        power,
    ))
}

fn double_ref(d: f64) -> RefNum {
    if d.is_nan() {
        RefNum::NaN
    } else if d.is_infinite() {
        RefNum::Inf { negative: d < 0.0 }
    } else {
        RefNum::Finite {
            approx: d,
            exact: double_exact(d),
        }
    }
}

fn decimal_ref(negative: bool, coefficient: u128, exponent: i32) -> RefNum {
    let text = format!(
        "{}{coefficient}e{exponent}",
        if negative { "-" } else { "" }
    );
    let c = i128::try_from(coefficient).unwrap();
    RefNum::Finite {
        approx: text.parse().unwrap(),
        exact: Some((if negative { -c } else { c }, exponent)),
    }
}

fn pow10(k: i32) -> Option<i128> {
    10i128.checked_pow(u32::try_from(k).ok()?)
}

/// The exact order of two reference numbers, when it can be computed here.
fn ref_cmp(a: RefNum, b: RefNum) -> Option<Ordering> {
    fn rank(r: RefNum) -> u8 {
        match r {
            RefNum::NaN => 0,
            RefNum::Inf { negative: true } => 1,
            RefNum::Finite { .. } => 2,
            RefNum::Inf { negative: false } => 3,
        }
    }
    let (
        RefNum::Finite {
            approx: xa,
            exact: ea,
        },
        RefNum::Finite {
            approx: xb,
            exact: eb,
        },
    ) = (a, b)
    else {
        return Some(rank(a).cmp(&rank(b)));
    };
    // Correct rounding is monotone: different nearest doubles order like the values.
    let coarse = xa.partial_cmp(&xb).unwrap();
    if coarse != Ordering::Equal {
        return Some(coarse);
    }
    let ((ca, ka), (cb, kb)) = (ea?, eb?);
    if ca.signum() != cb.signum() || ca == 0 {
        return Some(ca.signum().cmp(&cb.signum()));
    }
    let k = ka.min(kb);
    let sa = ca.checked_mul(pow10(ka - k)?)?;
    let sb = cb.checked_mul(pow10(kb - k)?)?;
    Some(sa.cmp(&sb))
}

fn interesting_i64() -> BoxedStrategy<i64> {
    prop_oneof![
        4 => -6i64..=6,
        2 => any::<i64>(),
        1 => prop::sample::select(vec![
            i64::MIN,
            i64::MIN + 1,
            i64::MAX,
            i64::MAX - 1,
            1 << 53,
            (1 << 53) + 1,
            -(1 << 53) - 1,
            i64::from(i32::MAX),
            i64::from(i32::MIN),
            i64::from(i32::MAX) + 1,
        ]),
    ]
    .boxed()
}

fn interesting_f64() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => (-24i32..=24).prop_map(|q| f64::from(q) / 4.0),
        2 => any::<u64>().prop_map(f64::from_bits),
        1 => interesting_i64().prop_map(|i| i as f64),
        1 => (-1000i32..1000, -30i32..30).prop_map(|(m, e)| f64::from(m) * 10f64.powi(e)),
        2 => prop::sample::select(vec![
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            TWO_63,
            -TWO_63,
            f64::from_bits(TWO_63.to_bits() - 1),
            f64::from_bits(TWO_63.to_bits() + 1),
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            -f64::from_bits(1),
            9_007_199_254_740_992.0,
            9_007_199_254_740_994.0,
            0.1,
            -0.1,
        ]),
    ]
    .boxed()
}

/// A decimal with its reference.
fn decimal_with_ref() -> BoxedStrategy<(KeyValue, RefNum)> {
    let finite = |(neg, c, e): (bool, u128, i32)| {
        (
            KeyValue::Decimal(decimal::encode(neg, c, e)),
            decimal_ref(neg, c, e),
        )
    };
    prop_oneof![
        4 => (any::<bool>(), 0u128..=30, -2i32..=2).prop_map(finite),
        2 => (any::<bool>(), 0u128..=MAX_COEFFICIENT, -6176i32..=6111).prop_map(finite),
        2 => (any::<bool>(), 0u128..=MAX_COEFFICIENT, -40i32..=40).prop_map(finite),
        2 => interesting_i64().prop_map(|i| (i < 0, u128::from(i.unsigned_abs()), 0)).prop_map(finite),
        1 => (any::<bool>(), 1u128..=1000, 300i32..=320).prop_map(finite),
        1 => (any::<bool>(), 1u128..=1000, -330i32..=-320).prop_map(finite),
        1 => any::<bool>().prop_map(|n| (decimal_nan(n), RefNum::NaN)),
        1 => any::<bool>().prop_map(|n| (decimal_inf(n), RefNum::Inf { negative: n })),
    ]
    .boxed()
}

/// Any number, with its exact reference.
fn number_with_ref() -> BoxedStrategy<(KeyValue, RefNum)> {
    prop_oneof![
        2 => prop_oneof![-6i32..=6, any::<i32>()]
            .prop_map(|i| (KeyValue::Int32(i), int_ref(i64::from(i)))),
        2 => interesting_i64().prop_map(|i| (KeyValue::Int64(i), int_ref(i))),
        3 => interesting_f64().prop_map(|d| (KeyValue::Double(d), double_ref(d))),
        3 => decimal_with_ref(),
    ]
    .boxed()
}

fn number() -> BoxedStrategy<KeyValue> {
    prop_oneof![
        5 => number_with_ref().prop_map(|(v, _)| v),
        // Raw decimal128 bytes: non-canonical encodings, NaN payloads, sNaN.
        1 => any::<[u8; 16]>().prop_map(|b| KeyValue::Decimal(Decimal128(b))),
    ]
    .boxed()
}

/// Strings with few distinct characters (so equal and prefix-sharing values are common), some
/// sharing the first 15 bytes (the order prefix), some with NUL and non-ASCII characters.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[ab]{0,3}",
        2 => "[ab]{14,17}",
        1 => "[a\\x00é\u{10348}]{0,4}",
        1 => "\\PC{0,10}",
    ]
    .boxed()
}

fn name() -> BoxedStrategy<String> {
    "[ab_.]{0,2}".boxed()
}

fn object_id() -> BoxedStrategy<[u8; 12]> {
    prop_oneof![
        any::<[u8; 12]>(),
        (0u8..3, 0u8..3).prop_map(|(a, b)| {
            let mut oid = [0u8; 12];
            oid[0] = a;
            oid[11] = b;
            oid
        }),
    ]
    .boxed()
}

fn regex_options() -> BoxedStrategy<String> {
    // BSON stores options sorted; so does the bson crate.
    prop::sample::subsequence(vec!['i', 'l', 'm', 's', 'u', 'x'], 0..=3)
        .prop_map(|v| v.into_iter().collect())
        .boxed()
}

/// Values of one kind (one BSON type, or all numbers): kinds `0..KINDS`.
const KINDS: usize = 15;

fn leaf_of(kind: usize) -> BoxedStrategy<KeyValue> {
    match kind {
        0 => prop::sample::select(vec![
            KeyValue::MinKey,
            KeyValue::MaxKey,
            KeyValue::Undefined,
            KeyValue::Null,
        ])
        .boxed(),
        1 => number(),
        2 => text().prop_map(KeyValue::string).boxed(),
        3 => text().prop_map(|s| KeyValue::Symbol(s.into())).boxed(),
        4 => text().prop_map(|s| KeyValue::Code(s.into())).boxed(),
        5 => (
            prop::sample::select(vec![0u8, 1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0xFF]),
            prop_oneof![
                prop::collection::vec(0u8..3, 0..12),
                prop::collection::vec(any::<u8>(), 8..12),
            ],
        )
            .prop_map(|(subtype, bytes)| {
                KeyValue::Binary(Box::new(Binary {
                    subtype,
                    bytes: bytes.into(),
                }))
            })
            .boxed(),
        6 => object_id().prop_map(KeyValue::ObjectId).boxed(),
        7 => any::<bool>().prop_map(KeyValue::Bool).boxed(),
        8 => prop_oneof![any::<i64>(), -3i64..3]
            .prop_map(KeyValue::DateTime)
            .boxed(),
        9 => prop_oneof![(any::<u32>(), any::<u32>()), (0u32..2, 0u32..2)]
            .prop_map(|(time, increment)| KeyValue::Timestamp { time, increment })
            .boxed(),
        10 => ("[ab]{0,2}", regex_options())
            .prop_map(|(p, o)| {
                KeyValue::Regex(Box::new(Regex {
                    pattern: p.into(),
                    options: o.into(),
                }))
            })
            .boxed(),
        11 => ("[ab.]{0,3}", object_id())
            .prop_map(|(ns, id)| {
                KeyValue::DbPointer(Box::new(DbPointer {
                    namespace: ns.into(),
                    id,
                }))
            })
            .boxed(),
        12 => fields(leaf_of(1)).prop_map(KeyValue::Document).boxed(),
        13 => prop::collection::vec(prop_oneof![leaf_of(1), leaf_of(2)], 0..3)
            .prop_map(|v| KeyValue::Array(v.into()))
            .boxed(),
        _ => ("[ab]{0,2}", fields(leaf_of(2)))
            .prop_map(|(code, scope)| {
                KeyValue::CodeWithScope(Box::new(CodeWithScope {
                    code: code.into(),
                    scope,
                }))
            })
            .boxed(),
    }
}

fn leaf() -> BoxedStrategy<KeyValue> {
    prop_oneof![
        4 => leaf_of(0),
        8 => leaf_of(1),
        4 => leaf_of(2),
        1 => leaf_of(3),
        1 => leaf_of(4),
        2 => leaf_of(5),
        2 => leaf_of(6),
        1 => leaf_of(7),
        2 => leaf_of(8),
        2 => leaf_of(9),
        1 => leaf_of(10),
        1 => leaf_of(11),
    ]
    .boxed()
}

/// A list of values of one kind: comparisons (and prefixes) between close values.
fn same_kind_list() -> BoxedStrategy<Vec<KeyValue>> {
    (0..KINDS)
        .prop_flat_map(|kind| prop::collection::vec(leaf_of(kind), 2..24))
        .boxed()
}

fn dec(negative: bool, coefficient: u128, exponent: i32) -> KeyValue {
    KeyValue::Decimal(decimal::encode(negative, coefficient, exponent))
}

/// Other representations of the same value: numbers in other numeric types (exactly), strings as
/// symbols, and containers with one element so replaced.
fn same_value_forms(v: &KeyValue) -> Vec<KeyValue> {
    let mut out = Vec::new();
    match v {
        KeyValue::Int32(x) => {
            let x = i64::from(*x);
            out.push(KeyValue::Int64(x));
            out.push(KeyValue::Double(x as f64));
            out.push(dec(x < 0, u128::from(x.unsigned_abs()), 0));
            out.push(dec(x < 0, u128::from(x.unsigned_abs()) * 100, -2));
        }
        KeyValue::Int64(x) => {
            if let Ok(y) = i32::try_from(*x) {
                out.push(KeyValue::Int32(y));
            }
            let d = *x as f64;
            if d.abs() < TWO_63 && d as i64 == *x {
                out.push(KeyValue::Double(d));
            }
            out.push(dec(*x < 0, u128::from(x.unsigned_abs()), 0));
        }
        KeyValue::Double(d) if d.is_nan() => {
            out.push(KeyValue::Double(-*d));
            out.push(decimal_nan(false));
            out.push(decimal_nan(true));
        }
        KeyValue::Double(d) if d.is_infinite() => out.push(decimal_inf(*d < 0.0)),
        KeyValue::Double(d) if *d == 0.0 => {
            out.push(KeyValue::Double(-*d));
            out.push(KeyValue::Int32(0));
            out.push(KeyValue::Int64(0));
            out.push(dec(true, 0, 3));
            out.push(dec(false, 0, -7));
        }
        KeyValue::Double(d) => {
            if let Some((c, e)) = double_exact(*d) {
                if c.unsigned_abs() <= MAX_COEFFICIENT {
                    out.push(dec(c < 0, c.unsigned_abs(), e));
                }
                if e == 0
                    && let Ok(i) = i64::try_from(c)
                {
                    out.push(KeyValue::Int64(i));
                }
            }
        }
        KeyValue::Decimal(d) => match d.decode() {
            decimal::Decoded::NaN => out.push(KeyValue::Double(f64::NAN)),
            decimal::Decoded::Infinity { negative } => out.push(KeyValue::Double(if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            })),
            decimal::Decoded::Finite {
                negative,
                coefficient,
                exponent,
            } => {
                if coefficient == 0 {
                    out.push(KeyValue::Int32(0));
                    out.push(KeyValue::Double(-0.0));
                } else {
                    if coefficient * 10 <= MAX_COEFFICIENT && exponent > -6176 {
                        out.push(dec(negative, coefficient * 10, exponent - 1));
                    }
                    if coefficient % 10 == 0 && exponent < 6111 {
                        out.push(dec(negative, coefficient / 10, exponent + 1));
                    }
                    let whole = u32::try_from(exponent)
                        .ok()
                        .and_then(|e| 10u128.checked_pow(e))
                        .and_then(|p| coefficient.checked_mul(p))
                        .and_then(|m| i64::try_from(m).ok());
                    if let Some(m) = whole {
                        out.push(KeyValue::Int64(if negative { -m } else { m }));
                    }
                }
            }
        },
        KeyValue::String(s) => out.push(KeyValue::Symbol(s.clone())),
        KeyValue::Symbol(s) => out.push(KeyValue::String(s.clone())),
        KeyValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                if let Some(form) = same_value_forms(item).into_iter().next() {
                    let mut copy = items.to_vec();
                    copy[i] = form;
                    out.push(KeyValue::Array(copy.into()));
                }
            }
        }
        KeyValue::Document(fields) => {
            for (i, (_, item)) in fields.iter().enumerate() {
                if let Some(form) = same_value_forms(item).into_iter().next() {
                    let mut copy = fields.to_vec();
                    copy[i].1 = form;
                    out.push(KeyValue::Document(copy.into()));
                }
            }
        }
        _ => {}
    }
    out
}

/// Field lists with unique names (a BSON document cannot repeat a name).
fn fields(inner: BoxedStrategy<KeyValue>) -> BoxedStrategy<Box<[Field]>> {
    prop::collection::vec((name(), inner), 0..4)
        .prop_map(|v| {
            let mut seen = HashSet::new();
            v.into_iter()
                .filter(|(n, _)| seen.insert(n.clone()))
                .map(|(n, v)| (n.into_boxed_str(), v))
                .collect()
        })
        .boxed()
}

fn value() -> BoxedStrategy<KeyValue> {
    leaf()
        .prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                2 => prop::collection::vec(inner.clone(), 0..4)
                    .prop_map(|v| KeyValue::Array(v.into())),
                2 => fields(inner.clone()).prop_map(KeyValue::Document),
                1 => ("[ab]{0,2}", fields(inner)).prop_map(|(code, scope)| {
                    KeyValue::CodeWithScope(Box::new(CodeWithScope {
                        code: code.into(),
                        scope,
                    }))
                }),
            ]
        })
        .boxed()
}

/// A scalar of a flat document or array: a small integer or a short string.
fn flat_scalar() -> BoxedStrategy<KeyValue> {
    prop_oneof![
        (-2i64..3).prop_map(KeyValue::Int64),
        "[ab]{0,2}".prop_map(KeyValue::string),
    ]
    .boxed()
}

fn flat_document() -> BoxedStrategy<Vec<Field>> {
    fields(flat_scalar()).prop_map(Vec::from).boxed()
}

fn flat_array() -> BoxedStrategy<Vec<KeyValue>> {
    prop::collection::vec(flat_scalar(), 0..4).boxed()
}

/// A flat scalar as (type rank, integer, string bytes): tuples order by rank, then value.
fn scalar_ref(v: &KeyValue) -> (u8, i64, Vec<u8>) {
    match v {
        KeyValue::Int64(x) => (3, *x, Vec::new()),
        KeyValue::String(s) => (4, 0, s.as_bytes().to_vec()),
        other => unreachable!("not a flat scalar: {other:?}"),
    }
}

/// `BSONObj::woCompare` as plain Rust ordering: per element the type, then the name, then the
/// value; a list that ends first is smaller.
fn doc_ref(fields: &[Field]) -> Vec<(u8, Vec<u8>, i64, Vec<u8>)> {
    fields
        .iter()
        .map(|(name, v)| {
            let (rank, int, bytes) = scalar_ref(v);
            (rank, name.as_bytes().to_vec(), int, bytes)
        })
        .collect()
}

fn array_ref(items: &[KeyValue]) -> Vec<(u8, i64, Vec<u8>)> {
    items.iter().map(scalar_ref).collect()
}

/// `MongoDB`'s type order, written out independently of the model.
fn rank(v: &KeyValue) -> u8 {
    match v {
        KeyValue::MinKey => 0,
        KeyValue::Undefined => 1,
        KeyValue::Null => 2,
        KeyValue::Int32(_) | KeyValue::Int64(_) | KeyValue::Double(_) | KeyValue::Decimal(_) => 3,
        KeyValue::String(_) | KeyValue::Symbol(_) => 4,
        KeyValue::Document(_) => 5,
        KeyValue::Array(_) => 6,
        KeyValue::Binary(_) => 7,
        KeyValue::ObjectId(_) => 8,
        KeyValue::Bool(_) => 9,
        KeyValue::DateTime(_) => 10,
        KeyValue::Timestamp { .. } => 11,
        KeyValue::Regex(_) => 12,
        KeyValue::DbPointer(_) => 13,
        KeyValue::Code(_) => 14,
        KeyValue::CodeWithScope(_) => 15,
        KeyValue::MaxKey => 16,
    }
}

fn canonical_text(v: &KeyValue) -> String {
    extjson::to_canonical(v).to_string()
}
