//! Bytes as the lab's inputs: a data file read as text (JSON lines or one JSON array) and as BSON,
//! a workload file, a MongoDB log. Nothing may panic; every error names the file; the documents
//! stop at the first error; a document comes with its BSON size.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use shardtop::lab::input::data::{self, Kind, MAX_DOCUMENTS};
use shardtop::lab::input::traffic;

fuzz_target!(|data: &[u8]| {
    for kind in [Kind::JsonText, Kind::Bson] {
        let reader = Box::new(Cursor::new(data.to_vec()));
        let mut read = 0u64;
        for item in data::documents_from_reader(reader, "fuzz.json", kind) {
            match item {
                Ok((doc, size)) => {
                    read += 1;
                    assert!(read <= MAX_DOCUMENTS);
                    if kind == Kind::Bson {
                        assert!(size >= 5, "{size}");
                    } else {
                        assert_eq!(size, bson::to_vec(&doc).map_or(0, |b| b.len() as u64));
                    }
                }
                Err(e) => assert!(e.to_string().starts_with("fuzz.json"), "{e}"),
            }
        }
    }
    // A sampled query as `$listSampledQueries` gives it (any document): its operations.
    let shallow = bson::RawDocument::from_bytes(data)
        .is_ok_and(|raw| shardtop::wire::too_deep(raw).is_none());
    if shallow
        && let Ok(doc) = bson::Document::from_reader(Cursor::new(data))
    {
        for op in shardtop::analyze::sampled::operations(&doc, 1) {
            assert_eq!(op.weight, 1);
        }
    }
    match traffic::parse_workload(data, "fuzz.jsonl") {
        Ok(ops) => assert!(ops.iter().all(|op| op.weight >= 1)),
        Err(e) => assert!(e.to_string().starts_with("fuzz.jsonl"), "{e}"),
    }
    match traffic::parse_log_counted(data, "fuzz.log", "db.c") {
        Ok((ops, skipped)) => {
            assert!(ops.windows(2).all(|w| w[0].line <= w[1].line));
            // A skipped line is counted, and the first one named.
            assert_eq!(skipped.lines > 0, skipped.first.is_some());
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.log"), "{e}"),
    }
});
