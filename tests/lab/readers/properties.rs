//! Properties of the readers over generated input: random bytes never panic any reader, tricky
//! documents come back the same, the array scanner splits where serde would.

use bson::{Bson, Document};
use proptest::prelude::*;
use shardtop::lab::input::data::Kind;

use super::{collect, docs, from_bytes, relaxed};

fn jsonish() -> impl Strategy<Value = Vec<u8>> {
    let bytes = b"[]{}\",:\\ \n1a-.e0tfnul".to_vec();
    prop::collection::vec(prop::sample::select(bytes), 0..120)
}

proptest! {
    #[test]
    fn random_bytes_never_panic_a_reader(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        text in jsonish(),
    ) {
        for input in [&bytes, &text] {
            for kind in [Kind::JsonText, Kind::Bson] {
                for item in from_bytes(input, kind) {
                    if let Err(e) = item {
                        prop_assert!(e.to_string().starts_with("mem"));
                    }
                }
            }
            let _ = shardtop::lab::input::traffic::parse_workload(&input[..], "w");
            let _ = shardtop::lab::input::traffic::parse_log(&input[..], "l", "db.c");
        }
    }

    /// Documents whose strings are full of brackets, braces, quotes and backslashes come back
    /// the same from an array, compact or pretty, and from JSON lines.
    #[test]
    fn tricky_documents_come_back_the_same(
        fields in prop::collection::vec(
            prop::collection::vec(("[a-c\\]\"{]{1,3}", "[\\[\\]{}\",:\\\\ \na-c]{0,8}", any::<i32>()), 0..4),
            0..6,
        ),
        pretty in any::<bool>(),
    ) {
        let want: Vec<Document> = fields
            .into_iter()
            .map(|fs| {
                fs.into_iter()
                    .map(|(k, s, n)| (k, Bson::Array(vec![Bson::String(s), Bson::Int32(n), Bson::Array(vec![])])))
                    .collect()
            })
            .collect();
        let json = serde_json::Value::Array(
            want.iter().map(|d| Bson::Document(d.clone()).into_relaxed_extjson()).collect(),
        );
        let array = if pretty {
            serde_json::to_string_pretty(&json).unwrap()
        } else {
            json.to_string()
        };
        let lines: String = want.iter().map(|d| relaxed(d) + "\n").collect();
        for text in [array, lines] {
            let read = collect(from_bytes(text.as_bytes(), Kind::JsonText)).unwrap();
            prop_assert_eq!(docs(&read), want.clone());
        }
    }

    /// The scanner splits an array where serde would: whenever serde reads the whole text as an
    /// array of objects, the reader gives those objects, and the other way round.
    #[test]
    fn the_array_scanner_agrees_with_serde(text in jsonish()) {
        let mut text = text;
        text.insert(0, b'[');
        let whole: Result<Vec<serde_json::Map<String, serde_json::Value>>, _> =
            serde_json::from_slice(&text);
        let ours = collect(from_bytes(&text, Kind::JsonText));
        match (whole, ours) {
            (Ok(objects), Ok(read)) => {
                let want: Vec<Document> = objects
                    .into_iter()
                    .map(|o| match Bson::try_from(serde_json::Value::Object(o)).unwrap() {
                        Bson::Document(d) => d,
                        other => panic!("{other:?}"),
                    })
                    .collect();
                prop_assert_eq!(docs(&read), want);
            }
            (Err(_), Err(_)) => {}
            (whole, ours) => prop_assert!(false, "serde {:?}, ours {:?}", whole.is_ok(), ours),
        }
    }
}
