#![allow(clippy::unwrap_used)]
//! `shardtop hash VALUE` run as a real process: output, exit codes, error messages.

use super::process::{shardtop as run, stderr, stdout};

fn assert_hash(value: &str, expected: i64) {
    let o = run(&["hash", value]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "hash {value}: stderr {}",
        stderr(&o)
    );
    assert_eq!(stdout(&o), format!("{expected}\n"), "hash {value}");
    assert!(stderr(&o).is_empty(), "hash {value}: stderr {}", stderr(&o));
}

#[test]
fn hashes_a_string() {
    assert_hash(r#""abc""#, 8_478_485_326_885_698_097);
}

#[test]
fn hashes_number_long_and_plain_numbers() {
    assert_hash(r#"{"$numberLong":"42"}"#, -944_302_157_085_130_861);
    assert_hash("42", -944_302_157_085_130_861);
    assert_hash("42.123", -944_302_157_085_130_861);
}

#[test]
fn negative_numbers_are_values_not_options() {
    assert_hash("-1", 1_140_205_862_565_771_219);
    assert_hash("-1.789", 1_140_205_862_565_771_219);
}

#[test]
fn hashes_other_types() {
    assert_hash(
        r#"{"$oid":"010203040506070809101112"}"#,
        -5_588_663_249_627_035_708,
    );
    assert_hash("null", 2_338_878_944_348_059_895);
    assert_hash(r#"{"$minKey":1}"#, 7_961_148_599_568_647_290);
    assert_hash("{}", 7_980_500_913_326_740_417);
    assert_hash(
        r#"{"a":"abc","b":{"$numberLong":"123"}}"#,
        4_771_603_801_758_380_216,
    );
}

fn assert_malformed(value: &str) {
    let o = run(&["hash", value]);
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(101), "hash {value:?} panicked: {err}");
    assert_eq!(o.status.code(), Some(2), "hash {value:?}: stderr {err}");
    assert!(
        stdout(&o).is_empty(),
        "hash {value:?} printed {}",
        stdout(&o)
    );
    assert!(
        err.starts_with("shardtop:"),
        "hash {value:?}: stderr should start with 'shardtop:', got {err:?}"
    );
    assert!(!err.contains("panicked"), "hash {value:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line of error: {err:?}");
}

#[test]
fn malformed_json() {
    assert_malformed("{bad");
}

#[test]
fn malformed_object_id() {
    assert_malformed(r#"{"$oid":"zz"}"#);
}

#[test]
fn empty_value() {
    assert_malformed("");
}

#[test]
fn other_malformed_values() {
    assert_malformed(r#"{"$numberLong":"x"}"#);
    assert_malformed(r#"{"$numberDecimal":"not a number"}"#);
    assert_malformed("abc");
    assert_malformed("1 2");
}

#[test]
fn missing_value_is_a_usage_error() {
    let o = run(&["hash"]);
    assert_eq!(o.status.code(), Some(2), "stderr {}", stderr(&o));
    assert!(stdout(&o).is_empty());
}

#[test]
fn a_decimal_that_is_no_number_is_refused() {
    for text in ["", ".", "-", "+", "1e", "e5", "1.2.3", "0x10"] {
        let arg = format!(r#"{{"$numberDecimal": "{text}"}}"#);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
            .args(["hash", &arg])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{arg}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("is not a decimal number"), "{arg}: {err}");
    }
    for text in ["0", "-0", "1.5", ".5", "5.", "1E+3", "-Infinity", "NaN"] {
        let arg = format!(r#"{{"$numberDecimal": "{text}"}}"#);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
            .args(["hash", &arg])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{arg}");
    }
}
