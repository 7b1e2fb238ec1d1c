//! Cases picked by hand: numbers beyond double precision, NaN and infinities, decimals, documents and arrays, each type, malformed Extended JSON.

use super::*;

// Unit tests: cases picked by hand

fn parse(json: &str) -> KeyValue {
    extjson::parse(json).unwrap()
}

#[test]
fn forty_two_is_forty_two() {
    let forms = [
        KeyValue::Int32(42),
        KeyValue::Int64(42),
        KeyValue::Double(42.0),
        dec(false, 42, 0),
        dec(false, 4200, -2),
        parse(r#"{"$numberLong":"42"}"#),
    ];
    for a in &forms {
        for b in &forms {
            assert_eq!(a, b);
        }
    }
    assert!(KeyValue::Int32(42) < KeyValue::Double(42.000_000_1));
    assert!(KeyValue::Int64(42) > KeyValue::Double(41.999_999));
}

#[test]
fn integers_beyond_double_precision() {
    let two53 = 1i64 << 53;
    assert!(KeyValue::Int64(two53 + 1) > KeyValue::Double(two53 as f64));
    assert!(KeyValue::Int64(two53 + 1) < KeyValue::Double((two53 + 2) as f64));
    assert_eq!(KeyValue::Int64(two53), KeyValue::Double(two53 as f64));
    assert!(KeyValue::Int64(i64::MAX) < KeyValue::Double(TWO_63));
    assert_eq!(KeyValue::Int64(i64::MIN), KeyValue::Double(-TWO_63));
    assert!(KeyValue::Int64(i64::MIN + 1) > KeyValue::Double(-TWO_63));
    assert!(KeyValue::Int64(i64::MAX) > KeyValue::Double(f64::from_bits(TWO_63.to_bits() - 1)));
    assert_eq!(
        KeyValue::Int64(i64::MAX),
        dec(false, u128::from(i64::MAX.unsigned_abs()), 0)
    );
    assert!(KeyValue::Int64(i64::MAX) < dec(false, 1 << 63, 0));
    assert_eq!(KeyValue::Double(TWO_63), dec(false, 1 << 63, 0));
}

#[test]
fn nan_infinities_and_zeros() {
    let nan = KeyValue::Double(f64::NAN);
    assert_eq!(nan, KeyValue::Double(-f64::NAN));
    assert_eq!(nan, decimal_nan(false));
    assert!(nan < KeyValue::Double(f64::NEG_INFINITY));
    assert!(nan < KeyValue::Int64(i64::MIN));
    assert!(nan > KeyValue::Null);
    assert_eq!(KeyValue::Double(f64::NEG_INFINITY), decimal_inf(true));
    assert_eq!(KeyValue::Double(f64::INFINITY), decimal_inf(false));
    assert!(KeyValue::Double(f64::NEG_INFINITY) < KeyValue::Int64(i64::MIN));
    assert!(KeyValue::Double(f64::NEG_INFINITY) < KeyValue::Double(f64::MIN));
    assert!(KeyValue::Double(f64::INFINITY) > KeyValue::Int64(i64::MAX));
    assert!(decimal_inf(false) > dec(false, MAX_COEFFICIENT, 6111));
    assert!(decimal_inf(true) < dec(true, MAX_COEFFICIENT, 6111));
    assert!(decimal_nan(true) < decimal_inf(true));
    assert!(KeyValue::Double(f64::INFINITY) < KeyValue::string(""));
    assert_eq!(KeyValue::Double(-0.0), KeyValue::Int32(0));
    assert_eq!(KeyValue::Double(-0.0), dec(true, 0, 0));
    assert_eq!(dec(false, 0, 100), dec(true, 0, -100));
    assert_eq!(
        KeyValue::Double(-0.0).order_prefix(),
        KeyValue::Int32(0).order_prefix()
    );
}

#[test]
fn decimals_against_doubles() {
    // 0.1 as a double is 0.1000000000000000055511151231257827…
    assert!(dec(false, 1, -1) < KeyValue::Double(0.1));
    assert!(dec(true, 1, -1) > KeyValue::Double(-0.1));
    assert!(dec(false, 1_000_000_000_000_000_055_511_151_231_257_827, -34) < KeyValue::Double(0.1));
    assert!(dec(false, 1_000_000_000_000_000_055_511_151_231_257_828, -34) > KeyValue::Double(0.1));
    // Exact ties take the exact path.
    assert_eq!(dec(false, 5, -1), KeyValue::Double(0.5));
    assert_eq!(dec(false, 125, -3), KeyValue::Double(0.125));
    assert_eq!(dec(true, 15, -1), KeyValue::Double(-1.5));
    // 2^-1074, the smallest subnormal, has 751 significant digits: no decimal128 equals it.
    let tiny = f64::from_bits(1);
    assert!(dec(false, 1, -6176) < KeyValue::Double(tiny));
    assert!(dec(false, 5, -324) > KeyValue::Double(tiny));
    assert!(dec(false, 4, -324) < KeyValue::Double(tiny));
    // Beyond the double range.
    assert!(dec(false, 1, 400) > KeyValue::Double(f64::MAX));
    assert!(dec(false, 1, 400) < KeyValue::Double(f64::INFINITY));
    assert!(dec(true, 1, 400) < KeyValue::Double(f64::MIN));
    assert!(dec(false, 1, -400) > KeyValue::Double(0.0));
    assert!(dec(true, 1, -400) < KeyValue::Double(-0.0));
    // Same value, different representations.
    assert_eq!(dec(false, 1, 2), dec(false, 100, 0));
    assert_eq!(dec(false, 1, 2), KeyValue::Int32(100));
    assert!(dec(false, 1, 2) < dec(false, 101, 0));
}

#[test]
fn documents_and_arrays() {
    // Documents: element by element — canonical type, then name, then value; shorter first.
    assert!(parse(r#"{"a":1}"#) < parse(r#"{"b":1}"#));
    assert!(parse(r#"{"b":1}"#) < parse(r#"{"a":"x"}"#)); // the type beats the name
    assert!(parse(r#"{"a":1}"#) < parse(r#"{"a":1,"b":1}"#));
    assert!(parse("{}") < parse(r#"{"a":{"$minKey":1}}"#));
    assert_eq!(parse(r#"{"a":1}"#), parse(r#"{"a":1.0}"#));
    assert!(parse(r#"{"a":{"x":2}}"#) > parse(r#"{"a":{"x":1,"y":9}}"#));
    // Arrays: element by element, shorter first.
    assert!(parse("[1,2]") < parse("[1,3]"));
    assert!(parse("[]") < parse(r#"[{"$minKey":1}]"#));
    assert!(parse("[1]") < parse("[1,0]"));
    assert_eq!(parse("[1]"), parse("[1.0]"));
    assert!(parse("[2]") < parse(r#"["a"]"#));
    // Documents before arrays, arrays before binData.
    assert!(parse(r#"{"z":"z"}"#) < parse("[]"));
    assert!(parse("[[[]]]") < parse(r#"{"$binary":{"base64":"","subType":"00"}}"#));
}

#[test]
fn scalars_of_each_type() {
    let ordered = [
        parse(r#"{"$minKey":1}"#),
        parse(r#"{"$undefined":true}"#),
        parse("null"),
        parse(r#"{"$numberDouble":"NaN"}"#),
        parse("-1"),
        parse("0"),
        parse(r#"{"$numberDouble":"Infinity"}"#),
        parse(r#""""#),
        parse(r#""a""#),
        parse(r#""a\u0000""#),
        parse(r#""b""#),
        parse("{}"),
        parse("[]"),
        parse(r#"{"$binary":{"base64":"/w==","subType":"00"}}"#),
        parse(r#"{"$binary":{"base64":"AA==","subType":"01"}}"#),
        parse(r#"{"$binary":{"base64":"AAA=","subType":"00"}}"#),
        parse(r#"{"$oid":"000000000000000000000000"}"#),
        parse(r#"{"$oid":"ffffffffffffffffffffffff"}"#),
        parse("false"),
        parse("true"),
        parse(r#"{"$date":{"$numberLong":"-1"}}"#),
        parse(r#"{"$date":{"$numberLong":"0"}}"#),
        parse(r#"{"$timestamp":{"t":0,"i":5}}"#),
        parse(r#"{"$timestamp":{"t":1,"i":0}}"#),
        parse(r#"{"$regularExpression":{"pattern":"a","options":"i"}}"#),
        parse(r#"{"$regularExpression":{"pattern":"b","options":""}}"#),
        parse(r#"{"$dbPointer":{"$ref":"z","$id":{"$oid":"ffffffffffffffffffffffff"}}}"#),
        parse(r#"{"$dbPointer":{"$ref":"aa","$id":{"$oid":"000000000000000000000000"}}}"#),
        parse(r#"{"$code":"a"}"#),
        parse(r#"{"$code":"a","$scope":{}}"#),
        parse(r#"{"$maxKey":1}"#),
    ];
    for (i, a) in ordered.iter().enumerate() {
        for (j, b) in ordered.iter().enumerate() {
            assert_eq!(a.cmp(b), i.cmp(&j), "{a:?} vs {b:?}");
            if i < j {
                assert!(a.order_prefix() <= b.order_prefix(), "{a:?} vs {b:?}");
            }
        }
    }
    // Symbols sort with strings.
    let sym = parse(r#"{"$symbol":"a"}"#);
    assert_eq!(sym, parse(r#""a""#));
    // Negative dates are before the epoch (signed comparison).
    assert!(KeyValue::DateTime(i64::MIN) < KeyValue::DateTime(0));
    assert!(KeyValue::DateTime(i64::MIN).order_prefix() < KeyValue::DateTime(0).order_prefix());
}

#[test]
fn extjson_rejects_malformed_input() {
    for bad in [
        "{bad",
        "",
        r#"{"$oid":"zz"}"#,
        r#"{"$numberLong":"x"}"#,
        "1 2",
    ] {
        assert!(extjson::parse(bad).is_err(), "{bad:?} should be refused");
    }
}
