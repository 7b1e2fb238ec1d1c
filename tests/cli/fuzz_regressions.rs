//! Every crash the fuzz targets (`fuzz/`, `scripts/fuzz.sh`) found, kept as an input in
//! `fuzz/regressions/` and replayed here in the normal suite, as its target reads it.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use shardtop::serve::fuzzing::Lab;

fn inputs(prefix: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    out.sort();
    out
}

/// The `commands` target: BSON documents back to back, each a command answered in turn by one
/// fresh state; every reply must be one well-formed BSON document.
#[test]
fn commands_found_by_fuzzing_are_answered_with_well_formed_replies() {
    let found = inputs("commands-");
    assert!(!found.is_empty());
    for (name, data) in found {
        let mut rest = &data[..];
        let mut lab = Lab::new().unwrap();
        while rest.len() >= 5 {
            let len = i32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]);
            let Ok(len) = usize::try_from(len) else { break };
            if len < 5 || len > rest.len() {
                break;
            }
            let Ok(mut cmd) = bson::Document::from_reader(&rest[..len]) else {
                break;
            };
            rest = &rest[len..];
            if !cmd.contains_key("$db") {
                let db = if data[0] & 1 == 0 { "admin" } else { "test" };
                cmd.insert("$db", db);
            }
            let reply = lab.answer(&cmd);
            let parsed = bson::Document::from_reader(reply.as_slice());
            assert!(parsed.is_ok(), "{name}: the reply to {cmd} is not BSON");
        }
    }
}
