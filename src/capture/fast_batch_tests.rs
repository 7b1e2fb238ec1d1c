//! The fast path reads a batch as the full path does, or leaves the line to it.

use bson::{Bson, RawDocumentBuf};

use super::line;

/// The full path's bytes of one batch document: parsed with the bound, through Extended JSON,
/// then written as BSON; `None` when the full path refuses it (or cannot write it).
fn full(doc: &str) -> Option<Vec<u8>> {
    let v = super::bounded_json::parse(doc.as_bytes(), super::MAX_STRING).ok()?;
    let Ok(Bson::Document(d)) = crate::model::extjson::bson_from_json(v) else {
        return None;
    };
    RawDocumentBuf::from_document(&d)
        .ok()
        .map(RawDocumentBuf::into_bytes)
}

fn fast(doc: &str) -> Option<Vec<u8>> {
    let text = format!(r#"{{"read":3,"batch":[{doc}]}}"#);
    let got = line(text.as_bytes())?;
    assert_eq!(
        got.rest.get("read").and_then(serde_json::Value::as_u64),
        Some(3)
    );
    let packed = got.batch.expect("a batch");
    assert_eq!(packed.len(), 1);
    packed.iter().next().map(|r| r.as_bytes().to_vec())
}

const TAKEN: &[&str] = &[
    r#"{"_id":{"$oid":"6b1749fb8456006367317445"},"uuid":{"$binary":{"base64":"O7C/Fl8+Tj+ngCXr0s2vDw==","subType":"04"}},"min":{"h":{"$minKey":1}},"max":{"h":{"$numberLong":"-9223353590109926292"}},"shard":"shard0000","lastmod":{"$timestamp":{"t":1,"i":0}},"onCurrentShardSince":{"$timestamp":{"t":1796688379,"i":1}},"history":[{"validAfter":{"$timestamp":{"t":1796688379,"i":1}},"shard":"shard0000"}]}"#,
    "{}",
    r#"{"a":[],"b":[[1,2],[]],"c":{"d":{}}}"#,
    r#"{"i":1,"j":-1,"k":2147483648,"l":-2147483649,"m":9223372036854775807,"n":18446744073709551615}"#,
    r#"{"f":1.0,"g":-0.0,"h":1e3,"z":-0,"e":2.5e-300}"#,
    r#"{"s":"caf\u00e9 \"q\" \\ \n","t":"","u":"\ud83d\ude00"}"#,
    r#"{"\u00e9t\u00e9":true,"b":false,"n":null}"#,
    r#"{"x":{"$numberInt":"-7"},"y":{"$numberDouble":"Infinity"},"z":{"$numberDouble":"-1.5"},"w":{"$numberDouble":"NaN"}}"#,
    r#"{"d":{"$date":{"$numberLong":"1796688379000"}},"k":{"$maxKey":1},"o":{"$oid":"6B1749FB8456006367317445"}}"#,
    r#"{"b":{"$binary":{"subType":"80","base64":""}},"c":{"$binary":{"base64":"AAEC","subType":"00"}}}"#,
    r#"{"t":{"$timestamp":{"i":4294967295,"t":4294967295}}}"#,
    r#"{"a":{"b":1,"c":[{"$oid":"6b1749fb8456006367317445"}]}}"#,
];

/// Lines the fast path leaves to the full path (which reads some of them, and refuses others).
const LEFT: &[&str] = &[
    r#"{"a":1,"a":2}"#,
    r#"{"a":1,"$oid":"6b1749fb8456006367317445"}"#,
    r#"{"$oid":"6b1749fb8456006367317445","x":1}"#,
    r#"{"o":{"$oid":"6b1749fb845600636731744"}}"#,
    r#"{"o":{"$oid":"6b1749fb8456006367317445","x":1}}"#,
    r#"{"n":{"$numberLong":"1.5"}}"#,
    r#"{"n":{"$numberLong":5}}"#,
    r#"{"n":{"$numberInt":"2147483648"}}"#,
    r#"{"t":{"$timestamp":{"t":4294967296,"i":0}}}"#,
    r#"{"t":{"$timestamp":{"t":1}}}"#,
    r#"{"t":{"$timestamp":{"t":1,"i":2,"x":3}}}"#,
    r#"{"t":{"$timestamp":{"t":-1,"i":0}}}"#,
    r#"{"k":{"$minKey":2}}"#,
    r#"{"k":{"$minKey":1.0}}"#,
    r#"{"d":{"$date":"2026-01-01T00:00:00Z"}}"#,
    r#"{"d":{"$date":1}}"#,
    r#"{"b":{"$binary":{"base64":"AAEC","subType":"02"}}}"#,
    r#"{"b":{"$binary":{"base64":"@@","subType":"00"}}}"#,
    r#"{"b":{"$binary":{"base64":"AAEC","subType":"0000"}}}"#,
    r#"{"b":{"$binary":{"base64":"AAEC","subType":"0"}}}"#,
    r#"{"x":{"$numberDecimal":"1.5"}}"#,
    r#"{"x":{"$numberDecimal":""}}"#,
    r#"{"x":{"$regularExpression":{"pattern":"a","options":""}}}"#,
    r#"{"x":{"$symbol":"s"}}"#,
    r#"{"x":{"$foo":1}}"#,
    r#"{"a\u0000b":1}"#,
    r#"{"s":"a\u0000b"}"#,
    r#"{"x":1e400}"#,
    r#"{"x":tru}"#,
];

#[test]
fn what_the_fast_path_takes_it_reads_as_the_full_path_does() {
    for doc in TAKEN {
        let f = fast(doc).unwrap_or_else(|| panic!("the fast path should take {doc}"));
        assert_eq!(Some(f), full(doc), "{doc}");
    }
}

#[test]
fn what_it_does_not_take_it_leaves_to_the_full_path() {
    for doc in LEFT {
        let text = format!(r#"{{"read":3,"batch":[{doc}]}}"#);
        assert!(line(text.as_bytes()).is_none(), "{doc}");
    }
}

#[test]
fn a_line_that_is_not_a_batch_of_documents_is_left_whole() {
    for text in [
        r#"{"read":3,"batch":[1]}"#,
        r#"{"read":3,"batch":{"a":1}}"#,
        r#"{"read":3,"batch":[],"batch":[]}"#,
        "[1]",
        r#"{"read":3,"batch":[]} x"#,
        "{\"read\":3,\"db\":\"\u{0}\"}",
    ] {
        assert!(line(text.as_bytes()).is_none(), "{text}");
    }
    let two = line(br#"{"read":1,"db":"config","documents":2,"batch":[{"a":1},{"b":"x"}]}"#)
        .expect("taken");
    assert_eq!(two.batch.map(|b| b.len()), Some(2));
    assert_eq!(two.rest.len(), 3);
    let none =
        line(br#"{"read":0,"db":"admin","command":{"ping":1},"reply":{"ok":1}}"#).expect("taken");
    assert!(none.batch.is_none());
    assert_eq!(none.rest["command"], serde_json::json!({"ping": 1}));
}
