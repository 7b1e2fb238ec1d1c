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
        Duration::from_secs(10),
    );
    t.keys("?");
    t.wait_for(
        "lab: the candidate keys side by side",
        Duration::from_secs(10),
    );
    t.keys("Escape");
    t.keys("L");
    t.wait_for("queries on one shard", Duration::from_secs(10));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(10));
    assert_eq!(
        t.stty("before"),
        t.stty("after"),
        "the terminal is untouched"
    );
}
