//! mongosh's notation both ways: what `model::mongosh_text` prints (the event log, bounds, the
//! query line), `model::mongosh_read` reads back to a value MongoDB compares equal (numbers by
//! value: the printer writes an int64 or an integral double as digits, which read as an int32 or
//! a double of the same value).

use bson::{Bson, Document};
use proptest::prelude::*;
use shardtop::model::extjson::from_bson;
use shardtop::model::{mongosh_read, mongosh_text};

fn leaf() -> impl Strategy<Value = Bson> {
    prop_oneof![
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Bson::Double),
        any::<String>().prop_map(Bson::String),
        any::<bool>().prop_map(Bson::Boolean),
        Just(Bson::Null),
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
        any::<[u8; 12]>().prop_map(|b| Bson::ObjectId(bson::oid::ObjectId::from_bytes(b))),
        // Years 0 to 9999 and beyond (toISOString's six-digit years), either side of the epoch.
        (-100_000_000_000_000i64..100_000_000_000_000)
            .prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z_$][a-zA-Z0-9_]{0,6}", any::<String>()]
}

fn value() -> impl Strategy<Value = Bson> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Bson::Array),
            prop::collection::vec((key(), inner), 0..4).prop_map(|fields| {
                let d: Document = fields
                    .into_iter()
                    .filter(|(k, _)| !k.starts_with('$'))
                    .collect();
                Bson::Document(d)
            }),
        ]
    })
}

proptest! {
    #[test]
    fn what_mongosh_text_prints_mongosh_read_reads_back(v in value()) {
        let text = mongosh_text::value(&v);
        let back = mongosh_read::value(&text)
            .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert!(from_bson(&back) == from_bson(&v), "{text} read as {back:?}, was {v:?}");
    }
}

#[test]
fn a_printed_filter_reads_back_as_a_document() {
    let d = bson::doc! {"_id": {"$gte": 5, "$lt": 9i64}, "a.b": "it's \"quoted\""};
    let text = mongosh_text::value(&Bson::Document(d.clone()));
    assert_eq!(mongosh_read::document(&text).unwrap(), {
        let mut want = d;
        want.insert("_id", bson::doc! {"$gte": 5, "$lt": 9});
        want
    });
}

#[test]
fn mongosh_filters_read_as_the_shell_sends_them() {
    assert_eq!(
        mongosh_read::document("{_id: 5}").unwrap(),
        bson::doc! {"_id": 5}
    );
    assert_eq!(
        mongosh_read::document("{ 'a.b' : 'x', \"c\": -1.5, }").unwrap(),
        bson::doc! {"a.b": "x", "c": -1.5}
    );
    assert_eq!(
        mongosh_read::document(
            "{_id: {$gte: NumberLong(7), $lt: NumberLong(\"9007199254740993\")}}"
        )
        .unwrap(),
        bson::doc! {"_id": {"$gte": 7i64, "$lt": 9_007_199_254_740_993i64}}
    );
    let oid = bson::oid::ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").unwrap();
    assert_eq!(
        mongosh_read::document("{_id: ObjectId('65a1b2c3d4e5f60718293a4b')}").unwrap(),
        bson::doc! {"_id": oid}
    );
    assert_eq!(
        mongosh_read::document("{_id: new ObjectId(\"65a1b2c3d4e5f60718293a4b\")}").unwrap(),
        bson::doc! {"_id": oid}
    );
    let at = bson::DateTime::from_millis(1_767_225_602_982);
    assert_eq!(
        mongosh_read::document("{at: ISODate(\"2026-01-01T00:00:02.982Z\")}").unwrap(),
        bson::doc! {"at": at}
    );
    assert_eq!(
        mongosh_read::document("{at: new Date('2026-01-01T01:00:02.982+01:00')}").unwrap(),
        bson::doc! {"at": at}
    );
    assert_eq!(
        mongosh_read::document("{at: ISODate('2026-01-01')}").unwrap(),
        bson::doc! {"at": bson::DateTime::from_millis(1_767_225_600_000)}
    );
    assert_eq!(
        mongosh_read::document(r#"{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"}}"#).unwrap(),
        bson::doc! {"_id": oid}
    );
    assert_eq!(
        mongosh_read::document("{k: [1, 'two', MinKey, MaxKey()], b: true, n: null}").unwrap(),
        bson::doc! {"k": [1, "two", Bson::MinKey, Bson::MaxKey], "b": true, "n": Bson::Null}
    );
    assert_eq!(
        mongosh_read::document("{big: 3000000000}").unwrap(),
        bson::doc! {"big": 3e9}
    );
    assert_eq!(
        mongosh_read::document("{h: -3074457345618258602}").unwrap(),
        bson::doc! {"h": -3_074_457_345_618_258_602i64}
    );
}

#[test]
fn bad_input_is_told_with_its_column() {
    for (text, needle) in [
        ("{_id: }", "expected a value at column 7"),
        ("{_id: 5", "expected `}`"),
        ("{_id: foo}", "unknown word \"foo\""),
        ("{_id: ObjectId('zz')}", "24 hex digits"),
        ("{at: ISODate('2026-13-01')}", "not an ISO-8601 date"),
        ("{'a: 1}", "unterminated string"),
        ("5", "a filter is a document"),
        ("{a: 1} x", "after the value"),
    ] {
        let e = mongosh_read::document(text).unwrap_err();
        assert!(e.contains(needle), "{text}: {e}");
    }
    let deep = "[".repeat(10_000);
    assert!(
        mongosh_read::value(&deep)
            .unwrap_err()
            .contains("nested too deep")
    );
}

/// A whole double past 2^53 (4.016488138132229e17) printed in digits read back as an int64 of
/// other value: it is printed in exponent form (found by the property above).
#[test]
fn a_whole_double_past_two_to_the_53_reads_back_as_that_double() {
    let v = Bson::Double(4.016_488_138_132_229e17);
    let text = mongosh_text::value(&v);
    assert_eq!(text, "4.016488138132229e17");
    assert_eq!(mongosh_read::value(&text).unwrap(), v);
}
