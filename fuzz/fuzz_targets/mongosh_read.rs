//! Text as the query prompt (`t`) reads it: mongosh's relaxed syntax. Reading never panics, and a
//! value read prints (`mongosh_text`) to text that reads back to an equal value (the property of
//! tests/model/mongosh_round_trip.rs, there for generated values; here for read ones).
#![no_main]

use libfuzzer_sys::fuzz_target;
use shardtop::model::extjson::from_bson;
use shardtop::model::{mongosh_read, mongosh_text};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(value) = mongosh_read::value(text) else {
        return;
    };
    let printed = mongosh_text::value(&value);
    let back = match mongosh_read::value(&printed) {
        Ok(v) => v,
        Err(e) => panic!("{printed} (printed from {value:?}) does not read back: {e}"),
    };
    let same = from_bson(&back) == from_bson(&value)
        || matches!(value, bson::Bson::Double(f) if f.is_nan());
    assert!(same, "{text:?} read as {value:?}, printed {printed}, read back as {back:?}");
});
