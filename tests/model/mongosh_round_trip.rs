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
