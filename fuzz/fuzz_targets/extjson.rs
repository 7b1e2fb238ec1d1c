//! Text as one Extended JSON value. When it parses, its canonical form must parse back to an
//! equal value whose canonical form is the same text (the `extjson_round_trip` property of
//! tests/model/order.rs, there checked for generated values; here for parsed ones).
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::model::extjson;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = extjson::parse(text) else {
        return;
    };
    let canonical = extjson::to_canonical(&value);
    let canonical_text = canonical.to_string();
    let back = match extjson::parse(&canonical_text) {
        Ok(v) => v,
        Err(e) => panic!("canonical form {canonical_text} of {value:?} does not parse: {e}"),
    };
    assert!(back == value, "round trip changed {value:?} into {back:?} (via {canonical_text})");
    let again = extjson::to_canonical(&back).to_string();
    assert_eq!(again, canonical_text, "canonical text is not stable for {value:?}");
    // The other conversions must not panic either.
    let _ = extjson::from_bson(&extjson::to_bson(&value));
    let _ = value.to_string();
});
