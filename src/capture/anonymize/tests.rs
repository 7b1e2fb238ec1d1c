#![allow(clippy::unwrap_used)]

use super::*;
use crate::model::KeyValue;
use crate::model::extjson::{from_bson, to_bson};
use bson::{doc, oid::ObjectId, spec::BinarySubtype};
use proptest::prelude::*;

fn read(db: &str, command: Document, outcome: Outcome) -> CapturedRead {
    CapturedRead {
        db: db.into(),
        command,
        outcome,
    }
}

fn find(coll: &str, docs: Vec<Document>) -> CapturedRead {
    read(
        "config",
        doc! {"find": coll, "filter": {}},
        Outcome::Documents(docs),
    )
}

/// A small capture holding every kind of name and key value.
fn sample() -> Capture {
    let uuid = bson::Binary {
        subtype: BinarySubtype::Uuid,
        bytes: vec![7; 16],
    };
    Capture {
        format: 1,
        captured_at_ms: 1_764_772_218_123,
        target: "mongodb://mongos1.acme.example:27017".into(),
        server_version: Some("8.0.4".into()),
        anonymized: false,
        reads: vec![
            find(
                "shards",
                vec![
                    doc! {"_id": "shardEU", "host": "rsEU/eu1.acme.example:27018,eu2.acme.example:27018", "state": 1, "tags": ["EUROPE"]},
                    doc! {"_id": "shardUS", "host": "rsUS/us1.acme.example:27018", "state": 1},
                ],
            ),
            find(
                "databases",
                vec![doc! {"_id": "payroll", "primary": "shardEU", "partitioned": true}],
            ),
            find(
                "collections",
                vec![
                    doc! {"_id": "payroll.salaries", "uuid": uuid.clone(), "key": {"employee": 1, "hired": 1}},
                    doc! {"_id": "payroll.audit", "key": {"who": "hashed"}},
                ],
            ),
            find(
                "chunks",
                vec![
                    doc! {"uuid": uuid.clone(), "shard": "shardEU", "min": {"employee": Bson::MinKey, "hired": Bson::MinKey}, "max": {"employee": "alice", "hired": 5}, "history": [{"shard": "shardEU"}]},
                    doc! {"uuid": uuid.clone(), "shard": "shardUS", "min": {"employee": "alice", "hired": 5}, "max": {"employee": "zoe", "hired": 7.5}},
                    doc! {"uuid": uuid, "shard": "shardUS", "min": {"employee": "zoe", "hired": 7.5}, "max": {"employee": Bson::MaxKey, "hired": Bson::MaxKey}},
                    doc! {"_id": "payroll.audit-who_MinKey", "ns": "payroll.audit", "shard": "shardUS", "min": {"who": Bson::MinKey}, "max": {"who": -4_611_686_018_427_387_902_i64}},
                    doc! {"_id": "payroll.audit-who_-4611686018427387902", "ns": "payroll.audit", "shard": "shardEU", "min": {"who": -4_611_686_018_427_387_902_i64}, "max": {"who": Bson::MaxKey}},
                ],
            ),
            find(
                "tags",
                vec![
                    doc! {"_id": {"ns": "payroll.salaries", "min": {"employee": "alice", "hired": 5}}, "ns": "payroll.salaries", "tag": "EUROPE", "min": {"employee": "alice", "hired": 5}, "max": {"employee": "bob", "hired": 1}},
                ],
            ),
            find(
                "changelog",
                vec![
                    doc! {"_id": "mongos1.acme.example-2025-12-03T14:30:18.123+0000-65f", "server": "mongos1.acme.example:27017", "clientAddr": "10.1.2.3:5555", "what": "moveChunk.commit", "ns": "payroll.salaries", "details": {"min": {"employee": "bob", "hired": 1}, "max": {"employee": "zoe", "hired": 7.5}, "from": "shardEU", "to": "shardUS", "counts": {"cloned": 12_i64}, "errmsg": "chunk [{ employee: \"bob\" }, …) failed"}},
                    doc! {"_id": "x", "server": "cfg1.acme.example:27019", "what": "removeShard", "ns": "", "details": {"name": "shardOLD"}},
                ],
            ),
            read(
                "admin",
                doc! {"balancerCollectionStatus": "payroll.salaries"},
                Outcome::Reply(
                    doc! {"balancerCompliant": false, "firstComplianceViolation": "zoneViolation", "ok": 1.0},
                ),
            ),
            read(
                "payroll",
                doc! {"aggregate": "salaries", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}},
                Outcome::Documents(vec![
                    doc! {"ns": "payroll.salaries", "shard": "shardEU", "host": "eu1.acme.example:27018", "storageStats": {"size": 1234_i64, "count": 12}},
                ]),
            ),
            read(
                "admin",
                doc! {"aggregate": 1, "pipeline": [{"$currentOp": {"allUsers": true}}], "cursor": {}},
                Outcome::Documents(vec![
                    doc! {"desc": "conn12", "client": "10.1.2.4:6000", "appName": "PayrollApp", "clientMetadata": {"application": {"name": "PayrollApp"}}, "effectiveUsers": [{"user": "payadmin", "db": "admin"}], "command": {"moveChunk": "payroll.salaries", "min": {"employee": "zoe", "hired": 7.5}, "max": {"employee": Bson::MaxKey, "hired": Bson::MaxKey}, "fromShard": "shardUS", "toShard": "shardEU"}},
                ]),
            ),
            read(
                "admin",
                doc! {"aggregate": 1, "pipeline": [{"$listSampledQueries": {"namespace": "payroll.salaries"}}], "cursor": {}},
                Outcome::Documents(vec![doc! {"cmd": {"filter": {"employee": "carol"}}}]),
            ),
            read(
                "payroll",
                doc! {"aggregate": "audit", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}},
                Outcome::Error {
                    code: Some(13),
                    code_name: Some("Unauthorized".into()),
                    message:
                        "not authorized on payroll to execute command { aggregate: \"audit\" }"
                            .into(),
                },
            ),
        ],
    }
}

/// Every string of the capture as written (names and values alike).
fn text(c: &Capture) -> String {
    let mut out = Vec::new();
    crate::capture::file::to_writer(c, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn no_name_and_no_key_value_survives() {
    let plain = sample();
    let a = anonymize(&plain);
    assert!(a.anonymized);
    let t = text(&a);
    for gone in [
        "acme",
        "payroll",
        "salaries",
        "audit",
        "shardEU",
        "shardUS",
        "shardOLD",
        "rsEU",
        "rsUS",
        "EUROPE",
        "alice",
        "bob",
        "zoe",
        "carol",
        "payadmin",
        "PayrollApp",
        "10.1.2",
        "7.5",
        "4611686018427387902",
    ] {
        assert!(!t.contains(gone), "{gone} survives in\n{t}");
    }
    // What is not a name is kept: sizes, counts, MongoDB's own names, the reason.
    for kept in [
        "\"size\":{\"$numberLong\":\"1234\"}",
        "\"cloned\":{\"$numberLong\":\"12\"}",
        "zoneViolation",
        "\"find\":\"chunks\"",
        "\"db\":\"config\"",
        "8.0.4",
        ":27018",
        "Unauthorized",
    ] {
        assert!(t.contains(kept), "{kept} is lost in\n{t}");
    }
    // Sampled documents are dropped.
    let sampled = &a.reads[9];
    assert_eq!(sampled.outcome, Outcome::Documents(Vec::new()));
}

#[test]
fn a_name_has_one_pseudonym_throughout() {
    let a = anonymize(&sample());
    let ns = a.reads[2].outcome.clone();
    let Outcome::Documents(colls) = ns else {
        panic!()
    };
    let salaries = colls[0].get_str("_id").unwrap().to_string();
    let (db, coll) = salaries.split_once('.').unwrap();
    // The command sent to the collection's database names it by the same pseudonyms.
    assert_eq!(a.reads[7].db, db);
    assert_eq!(a.reads[7].command.get_str("aggregate").unwrap(), coll);
    assert_eq!(
        a.reads[6]
            .command
            .get_str("balancerCollectionStatus")
            .unwrap(),
        salaries
    );
    let Outcome::Documents(tags) = &a.reads[4].outcome else {
        panic!()
    };
    assert_eq!(tags[0].get_str("ns").unwrap(), salaries);
    let Outcome::Documents(shards) = &a.reads[0].outcome else {
        panic!()
    };
    let eu = shards[0].get_str("_id").unwrap();
    let zone = shards[0].get_array("tags").unwrap()[0].as_str().unwrap();
    assert_eq!(tags[0].get_str("tag").unwrap(), zone);
    let Outcome::Documents(log) = &a.reads[5].outcome else {
        panic!()
    };
    assert_eq!(
        log[0].get_document("details").unwrap().get_str("from"),
        Ok(eu)
    );
    assert_eq!(
        log[0].get_document("details").unwrap().get_str("errmsg"),
        Ok(REMOVED)
    );
    // The user's software is dropped, the user renamed.
    let Outcome::Documents(ops) = &a.reads[8].outcome else {
        panic!()
    };
    assert!(!ops[0].contains_key("clientMetadata") && !ops[0].contains_key("appName"));
    assert!(a.target.starts_with("mongodb://host-") && a.target.ends_with(":27017"));
}

/// The key values of `read`'s documents' field `f` (of `min`), in order.
fn mins(c: &Capture, read: usize, f: &str) -> Vec<KeyValue> {
    let Outcome::Documents(docs) = &c.reads[read].outcome else {
        panic!()
    };
    (docs.iter())
        .filter_map(|d| d.get_document("min").ok()?.get(f).map(from_bson))
        .collect()
}

#[test]
fn key_values_keep_their_order_and_type_across_the_file() {
    let plain = sample();
    let a = anonymize(&plain);
    // A shard-key field's name is replaced as well, everywhere the same.
    let key = |c: &Capture, i: usize| {
        let Outcome::Documents(d) = &c.reads[2].outcome else {
            panic!()
        };
        d[i].get_document("key")
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    let (hired, who) = (key(&a, 0)[1].clone(), key(&a, 1)[0].clone());
    assert!(
        hired.starts_with("x_") && who.starts_with("x_"),
        "{hired} {who}"
    );
    let before = mins(&plain, 3, "hired");
    let after = mins(&a, 3, &hired);
    assert_eq!(before.len(), after.len());
    for i in 0..before.len() {
        for j in 0..before.len() {
            assert_eq!(before[i].cmp(&before[j]), after[i].cmp(&after[j]));
        }
        assert_eq!(before[i].bson_type(), after[i].bson_type());
    }
    // The same value in a chunk, a zone, the changelog and a migration: the same stand-in.
    let chunk_max = |c: &Capture| {
        let Outcome::Documents(d) = &c.reads[3].outcome else {
            panic!()
        };
        d[0].get_document("max").unwrap().clone()
    };
    let zone_min = |c: &Capture| {
        let Outcome::Documents(d) = &c.reads[4].outcome else {
            panic!()
        };
        d[0].get_document("min").unwrap().clone()
    };
    assert_eq!(chunk_max(&a), zone_min(&a));
    assert_ne!(chunk_max(&a), chunk_max(&plain));
    // A hashed field's values are spread over the whole NumberLong range, in order.
    let who = mins(&a, 3, &who);
    assert!(matches!(who[..], [KeyValue::MinKey, KeyValue::Int64(_)]));
}

#[test]
fn an_anonymized_capture_reads_back_unchanged() {
    let a = anonymize(&sample());
    let bytes = text(&a);
    let back = crate::capture::file::from_bytes("a.capture", bytes.as_bytes()).unwrap();
    assert_eq!(back, a);
    assert!(
        bytes
            .lines()
            .next()
            .unwrap()
            .contains("\"anonymized\":true")
    );
}

/// A BSON value of one of the types a shard key may hold.
fn value() -> impl Strategy<Value = Bson> {
    prop_oneof![
        Just(Bson::MinKey),
        Just(Bson::MaxKey),
        Just(Bson::Null),
        any::<i32>().prop_map(Bson::Int32),
        any::<i64>().prop_map(Bson::Int64),
        (-1e6f64..1e6).prop_map(Bson::Double),
        "[a-z]{0,6}".prop_map(Bson::String),
        any::<[u8; 12]>().prop_map(|b| Bson::ObjectId(ObjectId::from_bytes(b))),
        any::<bool>().prop_map(Bson::Boolean),
        any::<i64>().prop_map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))),
        (any::<u32>(), any::<u32>())
            .prop_map(|(time, increment)| Bson::Timestamp(bson::Timestamp { time, increment })),
        (0u8..6, prop::collection::vec(any::<u8>(), 0..5)).prop_map(|(s, bytes)| {
            Bson::Binary(bson::Binary {
                subtype: BinarySubtype::from(s),
                bytes,
            })
        }),
        (any::<i32>()).prop_map(|i| Bson::Document(doc! {"a": i})),
    ]
}

proptest! {
    /// Anonymizing keeps the order (and equality) of any values of mixed BSON types, and each
    /// value's BSON type.
    #[test]
    fn stand_ins_keep_the_order_of_mixed_types(values in prop::collection::vec(value(), 1..40), hashed: bool) {
        let mut s = StandIns::default();
        if hashed {
            s.note_hashed("d.c", "k");
        }
        // A hashed field holds NumberLongs (and MinKey, MaxKey), never an Int32.
        let values: Vec<Bson> = values
            .into_iter()
            .map(|v| match v {
                Bson::Int32(i) if hashed => Bson::Int64(i.into()),
                v => v,
            })
            .collect();
        for v in &values {
            s.note("d.c", "k", v);
        }
        s.finish();
        let after: Vec<Bson> = values.iter().map(|v| s.replace("d.c", "k", v)).collect();
        for (i, a) in values.iter().enumerate() {
            let (ka, sa) = (from_bson(a), from_bson(&after[i]));
            prop_assert_eq!(ka.bson_type(), sa.bson_type(), "{} → {}", a, after[i]);
            for (j, b) in values.iter().enumerate() {
                let (kb, sb) = (from_bson(b), from_bson(&after[j]));
                prop_assert_eq!(ka.cmp(&kb), sa.cmp(&sb), "{} vs {} → {} vs {}", a, b, after[i], after[j]);
            }
        }
        // A value the capture never held is not kept.
        prop_assert_eq!(s.replace("d.c", "other", &to_bson(&KeyValue::string("x"))), Bson::Null);
    }
}

/// Whether `word` is one a rewritten capture may hold: MongoDB's, a number, a pseudonym
/// (`db_3`, `x_12`, `host-2.invalid`'s words, `entry-4`'s) or a key value's stand-in (`k000123`).
fn allowed(word: &str) -> bool {
    let numbered = |p: &str| {
        word.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    vocabulary::is_safe(word)
        || ["db_", "coll_", "shard_", "rs_", "zone_", "user_", "x_", "k"]
            .iter()
            .any(|p| numbered(p))
        || ["host", "invalid", "entry", "chunk", "mongodb", "srv"].contains(&word)
        || REMOVED.contains(word)
}

/// Calls `check` on every string and field name of `v`.
fn walk(v: &Bson, check: &mut dyn FnMut(&str)) {
    match v {
        Bson::String(s) | Bson::Symbol(s) | Bson::JavaScriptCode(s) => check(s),
        Bson::Document(d) => d.iter().for_each(|(k, v)| {
            check(k);
            walk(v, check);
        }),
        Bson::Array(a) => a.iter().for_each(|v| walk(v, check)),
        _ => {}
    }
}

/// The words of every string of `c` (field names too) that [`allowed`] refuses.
fn refused(c: &Capture) -> Vec<String> {
    let mut text = Vec::new();
    crate::capture::file::to_writer(c, &mut text).unwrap();
    let back = crate::capture::file::from_bytes("x", &text).unwrap();
    let mut out = Vec::new();
    let mut check = |s: &str| {
        for w in s.split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$')) {
            if !allowed(w) {
                out.push(w.to_string());
            }
        }
    };
    check(&back.target);
    for r in &back.reads {
        check(&r.db);
        walk(&Bson::Document(r.command.clone()), &mut check);
        match &r.outcome {
            Outcome::Documents(d) => d
                .iter()
                .for_each(|d| walk(&Bson::Document(d.clone()), &mut check)),
            Outcome::Reply(d) => walk(&Bson::Document(d.clone()), &mut check),
            Outcome::Error {
                code_name, message, ..
            } => {
                check(code_name.as_deref().unwrap_or(""));
                check(message);
            }
        }
    }
    out
}

/// `sample()` with its names, key values and free text replaced by `n[0]`, `n[1]`, …
fn sample_named(n: &[String]) -> Capture {
    let t = text(&sample());
    let mut t = t;
    for (from, to) in [
        "payroll", "salaries", "audit", "shardEU", "shardUS", "shardOLD", "rsEU", "EUROPE",
        "alice", "bob", "carol", "payadmin", "employee",
    ]
    .iter()
    .zip(n)
    {
        let quoted = serde_json::to_string(to).unwrap();
        t = t.replace(from, &quoted[1..quoted.len() - 1]);
    }
    crate::capture::file::from_bytes("s", t.as_bytes()).unwrap()
}

proptest! {
    /// Whatever the names are (spaces, colons, dots, any Unicode, MongoDB's own words), every
    /// word left in an anonymized capture is MongoDB's, a number or a pseudonym.
    #[test]
    fn only_known_words_survive(names in prop::collection::vec("[a-zA-Z0-9 :._$\u{e9}\u{2603}\u{1b}\\-]{1,12}", 13)) {
        let plain = sample_named(&names);
        let a = anonymize(&plain);
        let left = refused(&a);
        prop_assert!(left.is_empty(), "{:?} survive of {:?}", left, names);
    }
}

#[test]
fn only_known_words_survive_the_sample() {
    let a = anonymize(&sample());
    assert_eq!(refused(&a), Vec::<String>::new());
}
