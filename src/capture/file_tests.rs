//! Tests of the capture file: every BSON type a poll meets survives the round trip, compressed or
//! not; a bad file is refused naming the file, the line and the field.
#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

use super::*;
use crate::capture::replay::Answer;
use crate::capture::{CapturedRead, FORMAT_VERSION};
use bson::doc;
use bson::spec::BinarySubtype;

fn sample() -> Capture {
    let chunk = |i: i64| {
        doc! {
            "_id": bson::oid::ObjectId::from_bytes([7; 12]),
            "uuid": bson::Binary { subtype: BinarySubtype::Uuid, bytes: vec![1; 16] },
            "min": {"x": if i == 0 { Bson::MinKey } else { Bson::Int64(i) }},
            "max": {"x": Bson::Int32(i as i32 + 1)},
            "shard": "shard01",
            "lastmod": Bson::Timestamp(bson::Timestamp { time: 3, increment: i as u32 }),
            "onCurrentShardSince": bson::DateTime::from_millis(1_700_000_000_000),
            "size": 1.5,
            "dec": Bson::Decimal128("12.50".parse().unwrap()),
        }
    };
    Capture {
        format: FORMAT_VERSION,
        captured_at_ms: 1_764_772_218_123,
        target: "mongodb://db1:27017".into(),
        server_version: Some("8.0.4".into()),
        anonymized: false,
        reads: vec![
            CapturedRead {
                db: "admin".into(),
                command: doc! {"hello": 1},
                outcome: Outcome::Reply(doc! {"ok": 1.0, "msg": "isdbgrid", "maxWireVersion": 25}),
            },
            CapturedRead {
                db: "config".into(),
                command: doc! {"find": "chunks", "filter": {"uuid": {"$gte": Bson::MaxKey}}},
                outcome: Outcome::Documents((0..2_500).map(chunk).collect()),
            },
            CapturedRead {
                db: "config".into(),
                command: doc! {"find": "tags", "filter": {}},
                outcome: Outcome::Error {
                    code: Some(13),
                    code_name: Some("Unauthorized".into()),
                    message: "not authorized on config to execute command".into(),
                },
            },
            CapturedRead {
                db: "config".into(),
                command: doc! {"find": "settings", "filter": {}},
                outcome: Outcome::Documents(Vec::new()),
            },
        ],
    }
}

fn bytes(c: &Capture) -> Vec<u8> {
    let mut out = Vec::new();
    to_writer(c, &mut out).unwrap();
    out
}

#[test]
fn a_capture_survives_the_round_trip_with_its_types_in_every_compression() {
    let c = sample();
    let text = bytes(&c);
    assert_eq!(from_bytes("c.json", &text).unwrap(), c);
    // 2,500 documents: one line with the first 1,000, two more lines.
    assert_eq!(String::from_utf8_lossy(&text).lines().count(), 1 + 4 + 2);
    let first = String::from_utf8(text.clone()).unwrap();
    let header = first.lines().next().unwrap();
    assert!(header.starts_with(r#"{"kind":"shardtop capture","format":1,"capturedAtMs":1764772218123,"capturedAt":"2025-12-03T14:30:18.123Z""#), "{header}");
    let dir = tempfile::tempdir().unwrap();
    for name in ["c.json", "c.json.gz", "c.json.zst"] {
        let path = dir.path().join(name);
        write(&c, &path, Existing::Refuse).unwrap();
        assert_eq!(read(&path).unwrap(), c, "{name}");
        // Written whole or not at all: an existing file is refused without `--force`.
        let again = write(&c, &path, Existing::Refuse).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists, "{name}");
        write(&c, &path, Existing::Replace).unwrap();
    }
    let raw = std::fs::read(dir.path().join("c.json.zst")).unwrap();
    assert_eq!(&raw[..4], &[0x28, 0xb5, 0x2f, 0xfd]);
}

/// The error of reading `text`, the same from the packed read `open` makes.
fn refused(text: &[u8]) -> String {
    let e = from_bytes("bad.capture", text).unwrap_err();
    let packed = replay_from_reader("bad.capture", io::Cursor::new(text.to_vec())).unwrap_err();
    assert_eq!(packed, e, "the packed read refuses in the same words");
    e.0
}

/// [`sample`] without its Decimal128 field: every line of it is one the fast path takes.
fn sample_fast() -> Capture {
    let mut c = sample();
    if let Outcome::Documents(docs) = &mut c.reads[1].outcome {
        for d in docs {
            d.remove("dec");
        }
    }
    c
}

#[test]
fn the_packed_read_answers_with_the_documents_read() {
    for c in [sample(), sample_fast()] {
        let text = bytes(&c);
        let replay = replay_from_reader("c.json", io::Cursor::new(text)).unwrap();
        assert_eq!(replay.captured_at_ms, c.captured_at_ms);
        assert_eq!(replay.server_version, c.server_version);
        for r in &c.reads {
            let expected = Answer::from(r.outcome.clone());
            assert_eq!(replay.answer(&r.db, &r.command), Some(&expected));
        }
    }
}

#[test]
fn a_bad_file_is_refused_naming_the_file_the_line_and_the_field() {
    let good = bytes(&sample());
    let text = String::from_utf8(good.clone()).unwrap();
    // Cut anywhere: refused, never a panic, always naming the file.
    for cut in [0, 10, good.len() / 3, good.len() / 2, good.len() - 1] {
        let e = refused(&good[..cut]);
        assert!(e.starts_with("bad.capture: "), "{cut}: {e}");
    }
    assert!(refused(&good[..good.len() - 1]).contains("truncated"));
    let lines: Vec<&str> = text.lines().collect();
    let cut_at_line = format!("{}\n{}\n", lines[0], lines[1]);
    assert_eq!(
        refused(cut_at_line.as_bytes()),
        "bad.capture: truncated after line 2: read 1 of the header's reads is missing"
    );
    let newer = text.replacen(r#""format":1"#, r#""format":7"#, 1);
    assert!(
        refused(newer.as_bytes()).contains("a capture of format 7, newer than this shardtop reads"),
        "{}",
        refused(newer.as_bytes())
    );
    assert!(refused(b"hello\n").contains("not a shardtop capture"));
    assert!(refused(b"").contains("the file is empty"));
    let garbled = text.replacen(
        r#""command":{"hello""#,
        r#""command":{"$numberLong":"x","hello""#,
        1,
    );
    let e = refused(garbled.as_bytes());
    assert!(e.starts_with("bad.capture: line 2: `command`:"), "{e}");
    let typed = text.replacen(r#""db":"admin""#, r#""db":7"#, 1);
    assert_eq!(
        refused(typed.as_bytes()),
        "bad.capture: line 2: `db`: not a string"
    );
    // A batch longer than its read's `documents`, on a line the fast path takes.
    let fast = String::from_utf8(bytes(&sample_fast())).unwrap();
    let short = fast.replacen(r#""documents":2500"#, r#""documents":500"#, 1);
    assert_eq!(
        refused(short.as_bytes()),
        "bad.capture: line 3: `batch`: 1000 documents where 500 remain of the read's `documents`"
    );
    let mut extra = text.clone();
    extra.push_str("{}\n");
    assert!(refused(extra.as_bytes()).contains("a line after the 4 reads"));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&good).unwrap();
    let gz = gz.finish().unwrap();
    let e = refused(&gz[..gz.len() / 2]);
    assert!(e.starts_with("bad.capture: "), "{e}");
}

#[test]
fn the_example_of_the_docs_is_a_capture() {
    let doc = include_str!("../../docs/capture.md");
    let example = doc
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .unwrap();
    let c = from_bytes("docs/capture.md", example.as_bytes()).unwrap();
    assert_eq!((c.format, c.reads.len()), (1, 4));
    assert_eq!(c.server_version.as_deref(), Some("8.0.4"));
    assert!(matches!(
        &c.reads[3].outcome,
        Outcome::Error { code: Some(13), code_name: Some(n), .. } if n == "Unauthorized"
    ));
    let seed = include_bytes!("../../fuzz/seeds/capture_read/example.capture");
    assert_eq!(from_bytes("seed", seed).unwrap(), c);
}
