#![allow(clippy::unwrap_used)]
//! `shardtop lab --example orders` in a real terminal (tmux): the candidates side by side as
//! the inserts arrive, Enter opens one in the full layout, `L` comes back, `?` shows the lab
//! key, q quits and the terminal is as it was.

use crate::common;

use std::time::Duration;

use common::tmux::{START, Tmux};

#[test]
fn the_lab_runs_side_by_side_opens_a_candidate_and_quits_cleanly() {
    let t = Tmux::start("lab --example orders --speed 16", 160, 45);
    let screen = t.wait_for("new inserts arriving", START);
    for key in [
        "{_id: 1}",
        "{city: 1}",
        "{customerId: \"hashed\"}",
        "{customerId: 1, placedAt: 1}",
    ] {
        assert!(screen.contains(key), "{screen}");
    }
    assert!(screen.contains("←/→ candidate"), "{screen}");
    t.keys("Right");
    t.keys("Enter");
    t.wait_for(
        "Key space · lab.candidate {city: 1}",
        Duration::from_secs(20),
    );
    t.keys("?");
    t.wait_for(
        "lab: the candidate keys side by side",
        Duration::from_secs(20),
    );
    t.keys("Escape");
    // Escape and L sent together read as Alt-L: L goes once the help is closed.
    t.wait_gone(
        "lab: the candidate keys side by side",
        Duration::from_secs(20),
    );
    t.keys("L");
    t.wait_for("queries on one shard", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
    assert_eq!(
        t.stty("before"),
        t.stty("after"),
        "the terminal is untouched"
    );
}

/// A key on a field no document has is refused before the TUI starts, naming the key and the
/// field, exit 2 (the report refused it; the TUI showed it routing every document as null).
#[test]
fn a_key_no_document_has_is_refused_before_the_tui_starts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("d.json");
    let lines: Vec<String> = (0..50).map(|i| format!(r#"{{"user": {i}}}"#)).collect();
    std::fs::write(&data, lines.join("\n")).unwrap();
    let t = Tmux::start(
        &format!(
            r#"lab --data {} --key '{{"ghost": 1}}' --key '{{"user": 1}}'"#,
            data.display()
        ),
        120,
        30,
    );
    let screen = t.wait_for("EXIT=2", START);
    assert!(
        screen.contains("--key {ghost: 1}: no document has the field ghost"),
        "{screen}"
    );
    assert!(!screen.contains("new inserts arriving"), "{screen}");
}
