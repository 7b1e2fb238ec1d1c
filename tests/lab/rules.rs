//! The lab's numbers against `analyzeShardKey`'s definitions, on data generated here, each
//! expected number computed in the test from the data: the monotonicity of compound hashed keys,
//! `isUnique` for hashed keys, replacement updates per release line, `avgDocSizeBytes` with the
//! `_id` mongod adds, a unique index the data contradicts, the `maxChunks` threshold, the
//! verdicts' words (scatter-gather against a targeted range, missing fields, growth,
//! percentages), and `--suggest`'s sample across the file.

use bson::{Document, doc, oid::ObjectId};
use shardtop::analyze::characteristics::{Characteristics, KeyCharacteristics, Monotonicity};
use shardtop::analyze::distribution::{Dispatch, ReplacementRule, classify, distribution};
use shardtop::analyze::operation::{Command, Operation};
use shardtop::lab::input::{self, GENERATED_ID_BYTES};
use shardtop::lab::report::Growth;
use shardtop::lab::report::percent_text;
use shardtop::lab::report::suggest::{Reservoir, Scale, suggest};
use shardtop::lab::trial::has_unique_index;
use shardtop::lab::trial::measure::{growth, keeps_new_values};
use shardtop::model::KeyPattern;

fn key(text: &str) -> KeyPattern {
    KeyPattern::parse_json(text).unwrap()
}

fn characteristics(k: &str, unique: bool, docs: &[Document]) -> KeyCharacteristics {
    let mut c = Characteristics::new(&key(k), unique);
    for d in docs {
        c.observe(d, bson::to_vec(d).unwrap().len() as u64).unwrap();
    }
    c.finish()
}

/// `n` documents in time order: `ts` ascending, `user` cycling over 7 values.
fn timeline(n: i64) -> Vec<Document> {
    (0..n)
        .map(|i| doc! {"_id": i, "user": i % 7, "ts": bson::DateTime::from_millis(1_700_000_000_000 + i)})
        .collect()
}

#[test]
fn a_compound_hashed_key_is_not_monotonic_first_and_unknown_later() {
    let docs = timeline(500);
    // The data is monotonic on ts: ts alone has coefficient 1.
    let plain = characteristics(r#"{"ts": 1}"#, false, &docs);
    assert_eq!(
        (plain.monotonicity, plain.coefficient),
        (Monotonicity::Monotonic, Some(1.0))
    );
    let first = characteristics(r#"{"user": "hashed", "ts": 1}"#, false, &docs);
    assert_eq!(
        (first.monotonicity, first.coefficient),
        (Monotonicity::NotMonotonic, Some(0.0))
    );
    let later = characteristics(r#"{"ts": 1, "user": "hashed"}"#, false, &docs);
    assert_eq!(
        (later.monotonicity, later.coefficient),
        (Monotonicity::Unknown, None)
    );
    assert_eq!(later.num_distinct_values, 500);
}

#[test]
fn a_hashed_key_is_unique_when_a_unique_index_has_its_fields() {
    let none: Vec<KeyPattern> = Vec::new();
    assert!(has_unique_index(&key(r#"{"_id": "hashed"}"#), &none));
    assert!(has_unique_index(&key(r#"{"_id": 1}"#), &none));
    assert!(!has_unique_index(&key(r#"{"x": "hashed"}"#), &none));
    let x = vec![key(r#"{"x": 1}"#)];
    assert!(has_unique_index(&key(r#"{"x": "hashed"}"#), &x));
    assert!(!has_unique_index(&key(r#"{"x": 1, "y": 1}"#), &x));
    assert!(!has_unique_index(&key(r#"{"y": "hashed"}"#), &x));
    // Unique, the counts are the documents'.
    let docs: Vec<Document> = (0..300i64).map(|i| doc! {"x": i * 3}).collect();
    let c = characteristics(r#"{"x": "hashed"}"#, true, &docs);
    assert!(c.is_unique);
    assert_eq!(c.num_distinct_values, 300);
    assert!(c.most_common_values.iter().all(|(_, n)| *n == 1));
}

fn replacement(filter: Document, u: Document) -> Operation {
    Operation {
        filter,
        update: Some(u),
        ..Operation::new(Command::Update, 1)
    }
}

#[test]
fn a_replacement_is_targeted_by_its_document_by_the_release_lines_rule() {
    let k = key(r#"{"k": 1}"#);
    let (old, new) = (
        ReplacementRule::of_release(7, 0),
        ReplacementRule::of_release(8, 0),
    );
    assert_eq!(old, ReplacementRule::AnyFilter);
    assert_eq!(
        ReplacementRule::of_release(7, 1),
        ReplacementRule::ExactIdOnly
    );
    assert_eq!(new, ReplacementRule::ExactIdOnly);
    // An exact _id: the replacement's key in every release line.
    let by_id = replacement(doc! {"_id": 5}, doc! {"_id": 5, "k": 3});
    assert_eq!(classify(&k, &by_id, old).0, Dispatch::SingleShard);
    assert_eq!(classify(&k, &by_id, new).0, Dispatch::SingleShard);
    // Another field: 7.0 takes the replacement's key, 7.1+ the filter (no key: scatter-gather).
    let by_name = replacement(doc! {"name": "a"}, doc! {"name": "a", "k": 3});
    assert_eq!(classify(&k, &by_name, old).0, Dispatch::SingleShard);
    assert_eq!(classify(&k, &by_name, new).0, Dispatch::ScatterGather);
    // A range of the key: 7.1+ keeps the range (multi-shard).
    let by_range = replacement(doc! {"k": {"$gt": 1}}, doc! {"k": 3});
    assert_eq!(classify(&k, &by_range, old).0, Dispatch::SingleShard);
    assert_eq!(classify(&k, &by_range, new).0, Dispatch::Variable);
    // A replacement without the key: the whole key space (extractShardKeyFromDoc is empty).
    let keyless = replacement(doc! {"k": {"$gt": 1}}, doc! {"other": 1});
    assert_eq!(classify(&k, &keyless, old).0, Dispatch::ScatterGather);
    // An upsert is never targeted by its replacement.
    let upsert = Operation {
        upsert: true,
        ..by_name.clone()
    };
    assert_eq!(classify(&k, &upsert, old).0, Dispatch::ScatterGather);
    // The counts: of the three writes 7.0 finds 2 single-shard, 8.0 one.
    let traffic = [by_id, by_name, by_range];
    let (a, b) = (
        distribution(&k, &traffic, old),
        distribution(&k, &traffic, new),
    );
    assert_eq!(
        (a.writes.single, a.writes.variable, a.writes.scatter),
        (3, 0, 0)
    );
    assert_eq!(
        (b.writes.single, b.writes.variable, b.writes.scatter),
        (1, 1, 1)
    );
    assert_eq!(b.writes.single_without_key, 2);
}

#[test]
fn avg_doc_size_counts_the_object_id_mongod_adds() {
    let without = doc! {"a": 1, "b": "xyz"};
    let plain = bson::to_vec(&without).unwrap().len() as u64;
    // What mongod stores: the same document with an ObjectId _id first.
    let mut stored = doc! {"_id": ObjectId::new()};
    stored.extend(without.clone());
    let stored = bson::to_vec(&stored).unwrap().len() as u64;
    assert_eq!(stored - plain, GENERATED_ID_BYTES);
    assert_eq!(input::stored(without.clone(), plain, 0).1, stored);
    let with = doc! {"_id": 1, "a": 1};
    let size = bson::to_vec(&with).unwrap().len() as u64;
    assert_eq!(input::stored(with.clone(), size, 0).1, size);
    // A mix: the mean of the stored sizes.
    let docs = [without.clone(), with.clone(), without];
    let mut c = Characteristics::new(&key(r#"{"a": 1}"#), false);
    let mut total = 0;
    for (n, d) in docs.iter().enumerate() {
        let (d, s) = input::stored(d.clone(), bson::to_vec(d).unwrap().len() as u64, n as u64);
        total += s;
        c.observe(&d, s).unwrap();
    }
    assert_eq!(c.finish().avg_doc_size_bytes, total / 3);
}

#[test]
fn a_unique_index_the_data_contradicts_is_named_with_a_duplicate() {
    let docs: Vec<Document> = [1, 2, 5, 3, 5, 5, 4]
        .iter()
        .map(|x| doc! {"x": *x})
        .collect();
    let c = characteristics(r#"{"x": 1}"#, true, &docs);
    assert!(!c.is_unique);
    let (value, n) = c.unique_duplicate.clone().unwrap();
    assert_eq!((value, n), (doc! {"x": 5}, 3));
    assert_eq!(c.num_distinct_values, 5);
    assert_eq!(c.most_common_values[0], (doc! {"x": 5}, 3));
    // Two documents missing the field collide as null too.
    let missing = [doc! {"x": 1}, doc! {"y": 1}, doc! {"y": 2}];
    let m = characteristics(r#"{"x": 1}"#, true, &missing);
    assert_eq!(m.unique_duplicate, Some((doc! {"x": bson::Bson::Null}, 2)));
    // Data that holds to it stays unique.
    let ok = characteristics(r#"{"x": 1}"#, true, &[doc! {"x": 1}, doc! {"x": 2}]);
    assert!(ok.is_unique && ok.unique_duplicate.is_none());
}

/// 1,000 documents: 900 over 10 values, then the last tenth with `new` values never seen before.
fn late(new: i64) -> Vec<Document> {
    let mut docs: Vec<Document> = (0..900i64).map(|i| doc! {"v": i % 10}).collect();
    docs.extend((0..100i64).map(|i| doc! {"v": if i < new { 1000 + i } else { i % 10 }}));
    docs
}

#[test]
fn max_chunks_is_unbounded_from_a_twentieth_of_the_last_tenth_new() {
    // The last tenth is 100 documents; a twentieth of it is 5.
    let at = characteristics(r#"{"v": 1}"#, false, &late(5));
    assert_eq!((at.late_new_values, at.last_tenth), (5, 100));
    assert!(keeps_new_values(&at));
    let under = characteristics(r#"{"v": 1}"#, false, &late(4));
    assert_eq!(under.late_new_values, 4);
    assert!(!keeps_new_values(&under));
}

#[test]
fn growth_is_judged_at_the_last_tenths_pace() {
    // 1,000 documents of 100 bytes... the most common value `0` takes every other document
    // overall, and 30 of the last 100.
    let mut docs: Vec<Document> = (0..900i64)
        .map(|i| doc! {"v": if i % 2 == 0 { 0 } else { 1 + i % 50 }})
        .collect();
    docs.extend((0..100i64).map(|i| doc! {"v": if i < 30 { 0 } else { 1 + i % 50 }}));
    let mut c = Characteristics::new(&key(r#"{"v": 1}"#), false);
    for d in &docs {
        c.observe(d, 100).unwrap();
    }
    let ch = c.finish();
    let zeros = docs.iter().filter(|d| d.get_i64("v") == Ok(0)).count() as u64;
    assert_eq!(ch.most_common_values[0], (doc! {"v": 0i64}, zeros));
    assert_eq!(ch.most_common_recent, 30);
    // Room left in a 1 MiB chunk over its pace of 30 documents a hundred, of 100 bytes each.
    let chunk = 1u64 << 20;
    let expected = ((chunk - zeros * 100) * 100).div_ceil(30 * 100);
    assert_eq!(growth(&ch, chunk), Growth::After(expected));
    assert_eq!(growth(&ch, zeros * 100 - 1), Growth::Over);
    let unique = characteristics(r#"{"_id": 1}"#, true, &timeline(50));
    assert_eq!(growth(&unique, chunk), Growth::Never);
}

#[test]
fn percentages_are_printed_to_at_most_two_decimals() {
    assert_eq!(percent_text(100.0 / 3.0), "33.33%");
    assert_eq!(percent_text(62.5), "62.5%");
    assert_eq!(percent_text(0.0), "0%");
    assert_eq!(percent_text(100.0), "100%");
    assert_eq!(percent_text(0.001), "<0.01%");
    assert_eq!(percent_text(99.999), ">99.99%");
}

#[test]
fn a_sample_is_drawn_across_the_file_the_same_each_time() {
    let positions = |seed| {
        let mut r = Reservoir::new(100, seed);
        for i in 0..10_000i64 {
            r.offer(&doc! {"i": i});
        }
        r.positions()
    };
    let a = positions(34);
    assert_eq!(a, positions(34));
    assert_eq!(a.len(), 100);
    // Across the file: every tenth of it is represented, not the first 100 documents.
    for tenth in 0..10u64 {
        let n = a
            .iter()
            .filter(|p| (tenth * 1000 + 1..=(tenth + 1) * 1000).contains(*p))
            .count();
        assert!(n >= 2, "tenth {tenth}: {n} of {a:?}");
    }
}

#[test]
fn suggest_leaves_out_updated_fields_and_warns_on_a_monotonic_key() {
    // Documents in date order: `seq` counts up, `user` repeats, `views` is a counter.
    let mut r = Reservoir::new(2_000, 34);
    for i in 0..20_000i64 {
        r.offer(&doc! {"_id": i, "seq": i, "user": i % 40, "views": i % 997});
    }
    let stats = r.stats();
    let find = |f: Document| Operation {
        filter: f,
        ..Operation::new(Command::Find, 1)
    };
    let traffic = vec![
        find(doc! {"seq": 5}),
        find(doc! {"seq": 6}),
        find(doc! {"views": 3}),
        find(doc! {"views": 3}),
        find(doc! {"views": 3}),
        Operation {
            filter: doc! {"user": 2},
            update: Some(doc! {"$inc": {"views": 1}}),
            ..Operation::new(Command::Update, 1)
        },
    ];
    let scale = Scale {
        documents: 20_000,
        chunk_size_bytes: 1 << 20,
    };
    let s = suggest(&traffic, &stats, scale);
    // views is named most often but updated: left out.
    assert!(s.iter().all(|s| !s.key.contains("views")), "{s:?}");
    assert_eq!(s[0].key, r#"{"seq": 1}"#);
    assert!(s[0].reason.contains("left out: views"), "{}", s[0].reason);
    assert!(
        s[0].reason.contains("warning: monotonic"),
        "{}",
        s[0].reason
    );
    // The hashed variant is not monotonic.
    assert!(!s[1].reason.contains("monotonic over"), "{}", s[1].reason);
}

#[test]
fn missing_fields_are_counted_per_field() {
    let docs: Vec<Document> = (0..8i64)
        .map(|i| {
            if i < 5 {
                doc! {"a": i}
            } else {
                doc! {"a": i, "b": i}
            }
        })
        .collect();
    let c = characteristics(r#"{"a": 1, "b": 1}"#, false, &docs);
    let lacking_b = docs.iter().filter(|d| !d.contains_key("b")).count() as u64;
    assert_eq!(c.missing, lacking_b);
    assert_eq!(c.missing_by_field, vec![0, lacking_b]);
    let none = characteristics(r#"{"z": 1}"#, false, &docs);
    assert_eq!(none.missing_by_field, vec![8]);
}

#[test]
fn large_counts_are_grouped_by_thousands() {
    use shardtop::units::grouped as thousands;
    assert_eq!(thousands(62_228_572), "62,228,572");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_000), "1,000");
}
