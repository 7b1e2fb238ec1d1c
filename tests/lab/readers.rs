#![allow(clippy::unwrap_used)]
//! The lab's readers of the user's documents: JSON lines and a JSON array give the same documents
//! in order, Extended JSON relaxed and canonical gives the right BSON types, sizes are MongoDB's,
//! BSON and gzipped BSON read the same; every bad input is an error naming the file and the line
//! or document; the bounds hold. Random bytes never panic (`lab_readers/properties.rs`); the traffic
//! readers are in `lab_readers/traffic.rs` and `lab_readers/log.rs`.

mod log;
mod properties;
mod traffic;

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use bson::{Bson, Document, doc, oid::ObjectId};
use flate2::Compression;
use flate2::write::GzEncoder;
use shardtop::lab::input::data::{self, Documents, Kind, MAX_DOCUMENTS, MAX_TEXT_BYTES};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Every document of a file, or its first error as text.
fn read(path: &Path) -> Result<Vec<(Document, u64)>, String> {
    let documents = data::open(path).map_err(|e| e.to_string())?;
    collect(documents)
}

pub(crate) fn collect(documents: Documents) -> Result<Vec<(Document, u64)>, String> {
    documents
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

pub(crate) fn from_bytes(bytes: &[u8], kind: Kind) -> Documents {
    data::documents_from_reader(Box::new(Cursor::new(bytes.to_vec())), "mem", kind)
}

pub(crate) fn docs(read: &[(Document, u64)]) -> Vec<Document> {
    read.iter().map(|(d, _)| d.clone()).collect()
}

fn orders() -> Vec<Document> {
    (0..5)
        .map(|i| {
            let city = ["Pune", "Kochi"][i as usize % 2];
            doc! {
                "_id": ObjectId::from_bytes([i as u8; 12]),
                "customerId": i * 10,
                "city": city,
                "items": [{"sku": "a]b", "n": i}],
                "note": "say \"hi\" {then} [leave]\\",
            }
        })
        .collect()
}

pub(crate) fn relaxed(doc: &Document) -> String {
    Bson::Document(doc.clone())
        .into_relaxed_extjson()
        .to_string()
}

fn bson_file(documents: &[Document]) -> Vec<u8> {
    documents
        .iter()
        .flat_map(|d| bson::to_vec(d).unwrap())
        .collect()
}

#[test]
fn json_lines_and_a_json_array_give_the_same_documents_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let want = orders();
    let lines: String = want.iter().map(|d| relaxed(d) + "\n\n").collect();
    let pretty: Vec<String> = want
        .iter()
        .map(|d| serde_json::to_string_pretty(&Bson::Document(d.clone()).into_relaxed_extjson()))
        .collect::<Result<_, _>>()
        .unwrap();
    let array = format!("  \n[\n{}\n]\n", pretty.join(",\n"));
    let from_lines = read(&write(dir.path(), "orders.json", lines.as_bytes())).unwrap();
    let from_array = read(&write(dir.path(), "orders-array.json", array.as_bytes())).unwrap();
    assert_eq!(docs(&from_lines), want);
    assert_eq!(docs(&from_array), want);
    for (d, size) in from_lines.iter().chain(&from_array) {
        assert_eq!(*size, bson::to_vec(d).unwrap().len() as u64);
    }
}

#[test]
fn relaxed_and_canonical_extended_json_give_the_bson_types() {
    let relaxed = r#"{"_id": {"$oid": "65f0a1b2c3d4e5f601234567"}, "at": {"$date": "2026-01-02T03:04:05Z"}, "n": {"$numberLong": "5"}, "d": {"$numberDecimal": "1.50"}, "i": 3, "f": 1.5, "big": 5000000000}"#;
    let canonical = r#"{"_id": {"$oid": "65f0a1b2c3d4e5f601234567"}, "at": {"$date": {"$numberLong": "1767323045000"}}, "n": {"$numberLong": "5"}, "d": {"$numberDecimal": "1.50"}, "i": {"$numberInt": "3"}, "f": {"$numberDouble": "1.5"}, "big": {"$numberLong": "5000000000"}}"#;
    let text = format!("{relaxed}\n{canonical}\n");
    let read = collect(from_bytes(text.as_bytes(), Kind::JsonText)).unwrap();
    assert_eq!(read.len(), 2);
    for (d, size) in &read {
        assert_eq!(
            d.get("_id"),
            Some(&Bson::ObjectId(
                ObjectId::parse_str("65f0a1b2c3d4e5f601234567").unwrap()
            ))
        );
        assert_eq!(
            d.get("at"),
            Some(&Bson::DateTime(bson::DateTime::from_millis(
                1_767_323_045_000
            )))
        );
        assert_eq!(d.get("n"), Some(&Bson::Int64(5)));
        assert!(matches!(d.get("d"), Some(Bson::Decimal128(x)) if x.to_string() == "1.50"));
        assert_eq!(d.get("i"), Some(&Bson::Int32(3)));
        assert_eq!(d.get("f"), Some(&Bson::Double(1.5)));
        assert_eq!(d.get("big"), Some(&Bson::Int64(5_000_000_000)));
        assert_eq!(*size, bson::to_vec(d).unwrap().len() as u64);
    }
}

#[test]
fn bson_and_gzipped_bson_give_the_same_documents_with_their_raw_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let want = orders();
    let raw = bson_file(&want);
    // `mongodump --gzip` writes one gzip member; two concatenated are read as one stream too.
    let mut gz = Vec::new();
    for half in [&raw[..raw.len() / 2], &raw[raw.len() / 2..]] {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(half).unwrap();
        gz.extend(encoder.finish().unwrap());
    }
    let plain = read(&write(dir.path(), "orders.bson", &raw)).unwrap();
    let zipped = read(&write(dir.path(), "orders.BSON.gz", &gz)).unwrap();
    assert_eq!(docs(&plain), want);
    assert_eq!(plain, zipped);
    let sizes: Vec<u64> = want
        .iter()
        .map(|d| bson::to_vec(d).unwrap().len() as u64)
        .collect();
    assert_eq!(plain.iter().map(|(_, s)| *s).collect::<Vec<_>>(), sizes);
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(relaxed(&want[0]).as_bytes()).unwrap();
    let json_gz = write(dir.path(), "orders.json.gz", &encoder.finish().unwrap());
    assert_eq!(docs(&read(&json_gz).unwrap()), want[..1]);
}

#[test]
fn text_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "{\"a\": 1}\n\n[1, 2]\n",
            "orders.json, line 3: expected a document, found an array",
        ),
        (
            "{\"a\": 1}\n\"x\"\n",
            "orders.json, line 2: expected a document, found a string",
        ),
        (
            "{\"a\": 1}\n{\"a\": }\n",
            "orders.json, line 2: not valid JSON: expected value at column 7",
        ),
        (
            "{\"a\": {\"$oid\": \"zz\"}}\n",
            "orders.json, line 1: not valid Extended JSON: ",
        ),
        (
            "{\"d\": {\"$numberDecimal\": \"\"}}\n",
            "orders.json, line 1: not valid Extended JSON: \"\" is not a decimal number",
        ),
        (
            "{\"k\\u0000\": 1}\n",
            "orders.json, line 1: not storable as BSON: ",
        ),
        (
            "[{\"a\": 1},\n 7]",
            "orders.json, line 2: expected a document, found a number",
        ),
        (
            "[{\"a\": 1},\n]",
            "orders.json, line 2: not valid JSON: expected a value",
        ),
        (
            "[{\"a\": 1},\n",
            "orders.json, line 2: not valid JSON: the array has no `]`",
        ),
        (
            "[{\"a\": 1}]\n{\"b\": 2}\n",
            "orders.json, line 2: not valid JSON: trailing characters after the array",
        ),
        (
            "[{\"a\": 1},\n{\"b\":\n 1}}]",
            "orders.json, line 2: not valid JSON: trailing characters at line 2, column 4 of the element",
        ),
    ];
    for (text, want) in cases {
        let path = write(dir.path(), "orders.json", text.as_bytes());
        let got = read(&path).unwrap_err();
        let want = want.replacen("orders.json", &path.display().to_string(), 1);
        assert!(got.starts_with(&want), "{text:?}: {got}");
    }
}

#[test]
fn an_array_element_over_lines_is_at_the_line_it_starts_on() {
    let text = "[\n  {\"a\": 1},\n\n  [\n    1,\n    2\n  ]\n]";
    let got = collect(from_bytes(text.as_bytes(), Kind::JsonText)).unwrap_err();
    assert_eq!(got, "mem, line 4: expected a document, found an array");
    let text = "\u{feff}\n\n[{\"a\": 1},\n\n{\"b\":\n[2,\n3]}, {\"c\": 3}] \n";
    let read = collect(from_bytes(text.as_bytes(), Kind::JsonText)).unwrap();
    assert_eq!(
        docs(&read),
        [doc! {"a": 1}, doc! {"b": [2, 3]}, doc! {"c": 3}]
    );
}

#[test]
fn an_array_with_brackets_braces_and_escapes_in_strings() {
    let text = r#"[{"s": "a]b}c\"d\\", "n": [[1, 2], [3, [4]]], "o": {"p": "],"}}, {"t": "\\\"", "u": "[{"}, {"e": []}]"#;
    let read = collect(from_bytes(text.as_bytes(), Kind::JsonText)).unwrap();
    assert_eq!(
        docs(&read),
        [
            doc! {"s": "a]b}c\"d\\", "n": [[1, 2], [3, [4]]], "o": {"p": "],"}},
            doc! {"t": "\\\"", "u": "[{"},
            doc! {"e": []},
        ]
    );
    for empty in ["", "  \n\n", "[]", " [ \n ] \n"] {
        assert_eq!(
            collect(from_bytes(empty.as_bytes(), Kind::JsonText)),
            Ok(vec![])
        );
    }
}

#[test]
fn bson_errors_name_the_file_and_document() {
    let dir = tempfile::tempdir().unwrap();
    let good = bson_file(&orders()[..2]);
    let third = bson::to_vec(&orders()[2]).unwrap();
    let mut truncated = good.clone();
    truncated.extend_from_slice(&third[..17]);
    let mut short_head = good.clone();
    short_head.extend_from_slice(&[9, 0]);
    let mut bad_length = good.clone();
    bad_length.extend_from_slice(&4i32.to_le_bytes());
    let mut huge = good.clone();
    huge.extend_from_slice(&(16 * 1024 * 1024 + 1i32).to_le_bytes());
    let mut bad_type = good.clone();
    bad_type.extend_from_slice(&[8, 0, 0, 0, 0x42, b'a', 0, 0]);
    let mut unterminated = good.clone();
    unterminated.extend_from_slice(&[5, 0, 0, 0, 1]);
    let cases: Vec<(Vec<u8>, String)> = vec![
        (
            truncated,
            format!(
                "orders.bson, document 3: truncated (needs {} bytes, 17 left)",
                third.len()
            ),
        ),
        (
            short_head,
            "orders.bson, document 3: truncated (needs at least 5 bytes, 2 left)".into(),
        ),
        (
            bad_length,
            "orders.bson, document 3: bad length 4 (a BSON document is 5 to 16,777,216 bytes)"
                .into(),
        ),
        (
            huge,
            "orders.bson, document 3: bad length 16777217 (a BSON document is 5 to 16,777,216 bytes)"
                .into(),
        ),
        (
            bad_type,
            "orders.bson, document 3: not a valid BSON document: ".into(),
        ),
        (
            unterminated,
            "orders.bson, document 3: not a valid BSON document: ".into(),
        ),
    ];
    for (bytes, want) in cases {
        let path = write(dir.path(), "orders.bson", &bytes);
        let mut documents = data::open(&path).unwrap();
        assert!(documents.next().unwrap().is_ok());
        assert!(documents.next().unwrap().is_ok());
        let got = documents.next().unwrap().unwrap_err().to_string();
        let want = want.replacen("orders.bson", &path.display().to_string(), 1);
        assert!(got.starts_with(&want), "{got}");
        assert!(documents.next().is_none(), "the documents end at an error");
    }
}

#[test]
fn a_bson_document_nested_too_deep_is_refused_not_a_stack_overflow() {
    // Built as bytes: the bson crate itself recurses through a document this deep.
    let mut bytes = bson::to_vec(&doc! {"x": 1}).unwrap();
    for _ in 0..100_000 {
        let mut outer = ((bytes.len() + 8) as i32).to_le_bytes().to_vec();
        outer.extend_from_slice(&[0x03, b'x', 0]);
        outer.extend_from_slice(&bytes);
        outer.push(0);
        bytes = outer;
    }
    let got = collect(from_bytes(&bytes, Kind::Bson)).unwrap_err();
    assert!(
        got.starts_with("mem, document 1: nested deeper than 200 levels"),
        "{got}"
    );
}

#[test]
fn files_that_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let got = read(&missing).unwrap_err();
    assert_eq!(
        got,
        format!(
            "{}: No such file or directory (os error 2)",
            missing.display()
        )
    );
    let got = read(dir.path()).unwrap_err();
    assert_eq!(got, format!("{}: is a directory", dir.path().display()));
    let garbage = write(dir.path(), "orders.bson.gz", b"not gzip at all");
    assert!(
        read(&garbage)
            .unwrap_err()
            .starts_with(&format!("{}, document 1: ", garbage.display()))
    );
}

#[test]
fn a_line_or_element_too_long_is_an_error_not_unbounded_memory() {
    let long = vec![b' '; MAX_TEXT_BYTES + 10];
    let mut line = b"{\"a\": 1}\n{\"b\": \"".to_vec();
    line.extend_from_slice(&long);
    let got = collect(from_bytes(&line, Kind::JsonText)).unwrap_err();
    assert!(
        got.starts_with("mem, line 2: the line is longer than 32 MiB"),
        "{got}"
    );
    let mut element = b"[{\"a\": 1},\n {\"b\": \"".to_vec();
    element.extend_from_slice(&long);
    let got = collect(from_bytes(&element, Kind::JsonText)).unwrap_err();
    assert!(
        got.starts_with("mem, line 2: the array element is longer than 32 MiB"),
        "{got}"
    );
}

#[test]
fn more_than_a_million_documents_is_an_error_at_the_next_one() {
    let empty = bson::to_vec(&Document::new()).unwrap();
    assert_eq!(empty.len(), 5);
    let bytes = empty.repeat(MAX_DOCUMENTS as usize + 1);
    let mut documents = from_bytes(&bytes, Kind::Bson);
    for _ in 0..MAX_DOCUMENTS {
        assert_eq!(documents.next().unwrap().unwrap(), (Document::new(), 5));
    }
    let got = documents.next().unwrap().unwrap_err().to_string();
    assert_eq!(
        got,
        "mem: more than 1,000,000 documents (the lab reads at most 1,000,000)"
    );
    assert!(documents.next().is_none());
}
