//! `shardtop capture --script`: the poll `capture` makes, as a mongosh script
//! (`capture.js`, next to this file) for someone who has mongosh and access to the cluster but
//! not shardtop: `mongosh URI --quiet --file capture.js > FILE` writes a capture `open` reads
//! as it reads shardtop's own. The script is the poller's reads of a first poll, in the same
//! shape (a replayed poll matches each read by its database and its command: `capture::replay`),
//! its decisions taken on the same answers; its constants — the allowlist, the bounds of a read,
//! the batch sizes, the release lines — are written here from shardtop's own.
//!
//! Owns: the script's text. May not touch: the network, the poller's state; the reads it repeats
//! are `poller`'s (a change there is a change in `capture.js`, which the tests with real mongosh
//! against `serve` catch).

use serde_json::json;

use super::{ALLOWED, FIND_BATCH};
use crate::cluster::ServerVersion;
use crate::live::bounds::{Bounds, MAX_MESSAGE_SIZE_BYTES};

/// The script's reads and their decisions, in JavaScript.
const BODY: &str = include_str!("capture.js");

/// The release lines shardtop knows (`ServerVersion`'s), as `"major.minor"`.
fn known_lines() -> Vec<String> {
    (0..=20u8)
        .flat_map(|major| (0..=20u8).map(move |minor| format!("{major}.{minor}")))
        .filter(|l| l.parse::<ServerVersion>().is_ok())
        .collect()
}

/// The script; with `server_version` (a version string, e.g. `7.0` or `8.0.12`), one that stops
/// on a mongos whose `buildInfo.version` is not that version (or of that line).
pub fn script(server_version: Option<&str>) -> String {
    let bounds = Bounds::default();
    let constants = json!({
        "kind": crate::capture::file::KIND,
        "format": crate::capture::FORMAT_VERSION,
        "batch": crate::capture::file::BATCH,
        "allowed": ALLOWED,
        "findBatch": FIND_BATCH,
        "logPage": crate::live::logs::PAGE,
        "freshPerPoll": crate::live::catalog::FRESH_PER_POLL,
        "maxMessageSizeBytes": MAX_MESSAGE_SIZE_BYTES,
        "bounds": {
            "documents": bounds.documents,
            "bytes": bounds.bytes,
            "heldBytes": bounds.held_bytes,
            "getMores": bounds.get_mores,
        },
        "lines": known_lines(),
        "serverVersion": server_version,
    });
    let constants = serde_json::to_string_pretty(&constants).unwrap_or_default();
    format!(
        "// shardtop {} capture script (capture format {}): see docs/capture.md.\n\
         //   mongosh 'mongodb://USER@MONGOS:27017/?authSource=admin' --quiet --file capture.js > cluster.capture\n\
         //   shardtop open cluster.capture\n\
         // Read-only: it sends only the read commands listed in `allowed`.\n\
         const SHARDTOP = {constants};\n{BODY}",
        env!("CARGO_PKG_VERSION"),
        crate::capture::FORMAT_VERSION,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command names the script's calls send: `command(db, {NAME: …})`,
    /// `drain(db, {NAME: …}, …)`, `send(db, {NAME: …})`, and `find(…)` (a `find`).
    fn sent_names(js: &str) -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        for call in ["command(", "drain(", "send("] {
            for (at, _) in js.match_indices(call) {
                let rest = &js[at + call.len()..];
                let Some(open) = rest.find('{') else { continue };
                // The first argument (a database) ends before the command document opens.
                if rest[..open].contains(')') || rest[..open].contains(';') {
                    continue;
                }
                let name: String = rest[open + 1..]
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        }
        if js.contains("find('") {
            out.insert("find".into());
        }
        out
    }

    #[test]
    fn every_command_the_script_sends_is_on_the_allowlist() {
        let js = script(None);
        let names = sent_names(&js);
        for name in &names {
            assert!(
                ALLOWED.contains(&name.as_str()),
                "{name} is not allowlisted"
            );
        }
        // Not vacuous: every kind of read of a poll is there.
        let want = [
            "aggregate",
            "balancerCollectionStatus",
            "balancerStatus",
            "buildInfo",
            "find",
            "getMore",
            "hello",
            "isMaster",
            "killCursors",
            "shardDrainingStatus",
        ];
        let want: std::collections::BTreeSet<String> =
            want.iter().map(ToString::to_string).collect();
        assert_eq!(names, want);
        // And the script refuses anything else before sending it.
        assert!(js.contains("C.allowed.indexOf(name) < 0"));
    }

    #[test]
    fn the_constants_are_shardtops() {
        let js = script(Some("7.0"));
        assert!(js.contains("\"serverVersion\": \"7.0\""), "{js}");
        assert!(js.contains("\"findBatch\": 10000"));
        assert!(js.contains("\"logPage\": 100"));
        assert!(js.contains("\"getMores\": 10000"));
        let lines = known_lines();
        assert_eq!(lines.first().map(String::as_str), Some("4.4"));
        assert!(lines.contains(&"8.2".to_string()) && lines.contains(&"9.0".to_string()));
        assert!(!lines.contains(&"4.0".to_string()) && !lines.contains(&"8.9".to_string()));
        assert!(script(None).contains("\"serverVersion\": null"));
    }
}
