#![allow(clippy::unwrap_used)]
//! `MongoDB`'s hashed-index hash (`convertShardKeyToHashed`): known vectors taken from a real
//! server, the byte layout fed to md5, and the normalisation of numbers before hashing.

use md5::{Digest, Md5};
use shardtop::model::decimal::{self, Decimal128};
use shardtop::model::value::Field;
use shardtop::model::{KeyPattern, KeyValue, extjson, hash64};

/// The hash of a value written as Extended JSON.
fn h(json: &str) -> i64 {
    hash64(&extjson::parse(json).unwrap())
}

fn oid(hex: &str) -> KeyValue {
    KeyValue::ObjectId(bson::oid::ObjectId::parse_str(hex).unwrap().bytes())
}

fn doc(fields: Vec<(&str, KeyValue)>) -> KeyValue {
    KeyValue::Document(
        fields
            .into_iter()
            .map(|(k, v)| (Box::<str>::from(k), v))
            .collect::<Vec<Field>>()
            .into_boxed_slice(),
    )
}

const H42: i64 = -944_302_157_085_130_861;
const H0: i64 = 4_854_801_880_128_277_513;
const H1: i64 = 5_902_408_780_260_971_510;
const HMINUS1: i64 = 1_140_205_862_565_771_219;

#[test]
fn forty_two_in_every_numeric_type() {
    assert_eq!(hash64(&KeyValue::Int32(42)), H42);
    assert_eq!(hash64(&KeyValue::Int64(42)), H42);
    assert_eq!(hash64(&KeyValue::Double(42.0)), H42);
    assert_eq!(hash64(&KeyValue::Double(42.123)), H42);
    assert_eq!(
        hash64(&KeyValue::Decimal(decimal::encode(false, 42, 0))),
        H42
    );
    assert_eq!(h("42"), H42);
    assert_eq!(h("42.123"), H42);
    assert_eq!(h(r#"{"$numberLong":"42"}"#), H42);
    assert_eq!(h(r#"{"$numberDouble":"42.0"}"#), H42);
}

#[test]
fn zero_and_nan() {
    assert_eq!(hash64(&KeyValue::Int32(0)), H0);
    assert_eq!(hash64(&KeyValue::Int64(0)), H0);
    assert_eq!(hash64(&KeyValue::Double(0.0)), H0);
    assert_eq!(hash64(&KeyValue::Double(-0.0)), H0);
    assert_eq!(hash64(&KeyValue::Double(0.456)), H0);
    assert_eq!(hash64(&KeyValue::Double(f64::NAN)), H0);
    assert_eq!(h("0"), H0);
    assert_eq!(h("0.456"), H0);
    assert_eq!(h(r#"{"$numberLong":"0"}"#), H0);
    assert_eq!(h(r#"{"$numberDouble":"NaN"}"#), H0);
}

#[test]
fn one_and_minus_one_truncate_toward_zero() {
    assert_eq!(h("1"), H1);
    assert_eq!(h("1.987"), H1);
    assert_eq!(hash64(&KeyValue::Double(1.987)), H1);
    assert_eq!(h("-1"), HMINUS1);
    assert_eq!(h("-1.789"), HMINUS1);
    assert_eq!(hash64(&KeyValue::Double(-1.789)), HMINUS1);
    assert_eq!(hash64(&KeyValue::Int64(-1)), HMINUS1);
}

#[test]
fn other_scalars() {
    assert_eq!(h("123"), -6_548_868_637_522_515_075);
    assert_eq!(hash64(&KeyValue::Int64(123)), -6_548_868_637_522_515_075);
    assert_eq!(hash64(&KeyValue::MinKey), 7_961_148_599_568_647_290);
    assert_eq!(h(r#"{"$minKey":1}"#), 7_961_148_599_568_647_290);
    assert_eq!(hash64(&KeyValue::MaxKey), 5_504_842_513_779_440_750);
    assert_eq!(h(r#"{"$maxKey":1}"#), 5_504_842_513_779_440_750);
    assert_eq!(hash64(&KeyValue::Null), 2_338_878_944_348_059_895);
    assert_eq!(h("null"), 2_338_878_944_348_059_895);
    assert_eq!(h(r#""abc""#), 8_478_485_326_885_698_097);
    assert_eq!(hash64(&KeyValue::string("abc")), 8_478_485_326_885_698_097);
    assert_eq!(h(r#""""#), 2_049_396_243_249_673_340);
    assert_eq!(h(r#""string to hash""#), 763_543_691_661_428_748);
    assert_eq!(
        hash64(&oid("010203040506070809101112")),
        -5_588_663_249_627_035_708
    );
    assert_eq!(
        h(r#"{"$oid":"010203040506070809101112"}"#),
        -5_588_663_249_627_035_708
    );
    assert_eq!(hash64(&KeyValue::DateTime(0)), -1_178_696_894_582_842_035);
    assert_eq!(
        h(r#"{"$date":{"$numberLong":"0"}}"#),
        -1_178_696_894_582_842_035
    );
    assert_eq!(
        hash64(&KeyValue::Timestamp {
            time: 0,
            increment: 0
        }),
        -7_867_208_682_377_458_672
    );
    assert_eq!(
        h(r#"{"$timestamp":{"t":0,"i":0}}"#),
        -7_867_208_682_377_458_672
    );
}

#[test]
fn documents() {
    let d = doc(vec![
        ("a", KeyValue::string("abc")),
        ("b", KeyValue::Int64(123)),
    ]);
    assert_eq!(hash64(&d), 4_771_603_801_758_380_216);
    assert_eq!(
        h(r#"{"a":"abc","b":{"$numberLong":"123"}}"#),
        4_771_603_801_758_380_216
    );
    // Numbers inside documents are normalised too: 123 as int32 or double hashes the same.
    assert_eq!(h(r#"{"a":"abc","b":123}"#), 4_771_603_801_758_380_216);
    assert_eq!(h(r#"{"a":"abc","b":123.5}"#), 4_771_603_801_758_380_216);
    // Field names and order matter.
    assert_ne!(h(r#"{"b":"abc","a":123}"#), 4_771_603_801_758_380_216);
    assert_ne!(h(r#"{"b":123,"a":"abc"}"#), 4_771_603_801_758_380_216);

    assert_eq!(hash64(&doc(vec![])), 7_980_500_913_326_740_417);
    assert_eq!(h("{}"), 7_980_500_913_326_740_417);
}

#[test]
fn missing_or_null_field_hashes_as_null() {
    let pattern = KeyPattern::parse_json(r#"{"x": "hashed"}"#).unwrap();
    let null_hash = KeyValue::Int64(2_338_878_944_348_059_895);

    let missing = pattern.extract(&bson::doc! {"y": 1}).unwrap();
    assert_eq!(missing.len(), 1);
    assert_eq!(missing.get(0).unwrap(), &null_hash);
    assert!(matches!(missing.get(0), Some(KeyValue::Int64(_))));

    let explicit = pattern.extract(&bson::doc! {"x": null}).unwrap();
    assert_eq!(explicit, missing);

    let via_key_of = pattern.key_of(vec![KeyValue::Null]).unwrap();
    assert_eq!(via_key_of, missing);

    // A dotted hashed path whose parent is missing is null too.
    let dotted = KeyPattern::parse_json(r#"{"a.b": "hashed"}"#).unwrap();
    let k = dotted.extract(&bson::doc! {"c": 1}).unwrap();
    assert_eq!(k.get(0).unwrap(), &null_hash);

    // And a present value is hashed, not stored raw.
    let k = pattern.extract(&bson::doc! {"x": "abc"}).unwrap();
    assert_eq!(
        k.get(0).unwrap(),
        &KeyValue::Int64(8_478_485_326_885_698_097)
    );
}

/// The first 8 bytes of md5(bytes), little-endian, as `MongoDB` reads them.
fn md5_first8(bytes: &[u8]) -> i64 {
    let digest = Md5::digest(bytes);
    i64::from_le_bytes(digest[..8].try_into().unwrap())
}

#[test]
fn byte_layout_of_a_number() {
    // seed 0 (int32), canonical type 10 (int32), the value as int64 — all little-endian.
    let bytes = [
        0x00, 0x00, 0x00, 0x00, // seed
        0x0a, 0x00, 0x00, 0x00, // canonical type of numbers
        0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, // 42 as int64
    ];
    assert_eq!(md5_first8(&bytes), hash64(&KeyValue::Int32(42)));
    assert_eq!(md5_first8(&bytes), H42);
}

#[test]
fn byte_layout_of_a_string() {
    let mut bytes = vec![0, 0, 0, 0, 15, 0, 0, 0, 4, 0, 0, 0];
    bytes.extend_from_slice(b"abc\0");
    assert_eq!(md5_first8(&bytes), hash64(&KeyValue::string("abc")));
    assert_eq!(md5_first8(&bytes), 8_478_485_326_885_698_097);
}

#[test]
fn byte_layout_of_an_empty_document() {
    // seed, canonical type 20 (object), then the terminating EOO: canonical type 0 and no name.
    let bytes = [0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0];
    assert_eq!(md5_first8(&bytes), 7_980_500_913_326_740_417);
}

const TWO_63: f64 = 9_223_372_036_854_775_808.0;

fn like(v: &KeyValue, n: i64) {
    assert_eq!(
        hash64(v),
        hash64(&KeyValue::Int64(n)),
        "{v:?} should hash like NumberLong({n})"
    );
}

#[test]
fn doubles_at_and_beyond_the_int64_range() {
    like(&KeyValue::Double(TWO_63), i64::MIN); // MongoDB's quirk: exactly 2^63
    like(
        &KeyValue::Double(f64::from_bits(TWO_63.to_bits() + 1)),
        i64::MAX,
    );
    like(&KeyValue::Double(1e19), i64::MAX);
    like(&KeyValue::Double(f64::MAX), i64::MAX);
    like(&KeyValue::Double(f64::INFINITY), i64::MAX);
    like(&KeyValue::Double(-TWO_63), i64::MIN);
    like(
        &KeyValue::Double(f64::from_bits((-TWO_63).to_bits() + 1)),
        i64::MIN,
    );
    like(&KeyValue::Double(-1e19), i64::MIN);
    like(&KeyValue::Double(f64::MIN), i64::MIN);
    like(&KeyValue::Double(f64::NEG_INFINITY), i64::MIN);
    // The largest double below 2^63 is exact.
    let below = f64::from_bits(TWO_63.to_bits() - 1);
    like(&KeyValue::Double(below), 9_223_372_036_854_774_784);
    // The extremes really differ from each other and from 0.
    assert_ne!(
        hash64(&KeyValue::Int64(i64::MAX)),
        hash64(&KeyValue::Int64(i64::MIN))
    );
    assert_ne!(hash64(&KeyValue::Int64(i64::MAX)), H0);
}

#[test]
fn doubles_truncate() {
    like(&KeyValue::Double(2.5), 2);
    like(&KeyValue::Double(2.999), 2);
    like(&KeyValue::Double(-2.5), -2);
    like(&KeyValue::Double(-0.999), 0);
    like(&KeyValue::Double(1e15 + 0.5), 1_000_000_000_000_000);
}

fn dec(negative: bool, coefficient: u128, exponent: i32) -> KeyValue {
    KeyValue::Decimal(decimal::encode(negative, coefficient, exponent))
}

#[test]
fn decimals_round_half_to_even() {
    like(&dec(false, 25, -1), 2); // 2.5
    like(&dec(false, 35, -1), 4); // 3.5
    like(&dec(true, 25, -1), -2); // -2.5
    like(&dec(true, 35, -1), -4); // -3.5
    like(&dec(false, 26, -1), 3); // 2.6
    like(&dec(false, 24, -1), 2); // 2.4
    like(&dec(false, 25_000, -4), 2); // 2.5000
    like(&dec(false, 250_001, -5), 3); // 2.50001
    like(&dec(false, 42_000, -3), 42);
    like(&dec(false, 42, 0), 42);
    like(&dec(false, 0, 5), 0);
    like(&dec(true, 0, 0), 0);
    like(&dec(false, 5, -1), 0); // 0.5
    like(&dec(false, 15, -1), 2); // 1.5
    like(&dec(false, 1, -6176), 0);
}

#[test]
fn decimal_nan_hashes_as_zero() {
    let nan = KeyValue::Decimal(Decimal128((0x7Cu128 << 120).to_le_bytes()));
    like(&nan, 0);
    assert_eq!(hash64(&nan), H0);
    assert_eq!(h(r#"{"$numberDecimal":"NaN"}"#), H0);
    assert_eq!(
        h(r#"{"$numberDecimal":"2.5"}"#),
        hash64(&KeyValue::Int64(2))
    );
    assert_eq!(
        h(r#"{"$numberDecimal":"3.5"}"#),
        hash64(&KeyValue::Int64(4))
    );
    assert_eq!(
        h(r#"{"$numberDecimal":"-2.5"}"#),
        hash64(&KeyValue::Int64(-2))
    );
}

#[test]
fn strings_and_symbols_hash_alike_but_types_differ() {
    // String and Symbol share a canonical type and a value encoding.
    assert_eq!(
        hash64(&KeyValue::Symbol("abc".into())),
        8_478_485_326_885_698_097
    );
    // Code has its own canonical type.
    assert_ne!(
        hash64(&KeyValue::Code("abc".into())),
        8_478_485_326_885_698_097
    );
    // Distinct values hash apart.
    assert_ne!(h(r#""abd""#), h(r#""abc""#));
    assert_ne!(h("true"), h("false"));
    assert_ne!(h("[1]"), h(r#"{"0":1}"#));
}
