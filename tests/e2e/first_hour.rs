//! A new user's first keys (issue 35) through tmux: `shardtop --paused` opens the demo paused;
//! the query prompt reads mongosh's syntax and reopens on its text selected, typing replacing it.

use crate::common;

use std::time::Duration;

use common::tmux::{START, Tmux};

#[test]
fn the_bare_command_starts_paused() {
    let t = Tmux::start("--paused", 100, 30);
    let screen = t.wait_for("sim:ascending", START);
    let screen = if screen.contains("❚❚ paused") {
        screen
    } else {
        t.wait_for("❚❚ paused", Duration::from_secs(20))
    };
    assert!(screen.contains("0s"), "{screen}");
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn the_query_prompt_takes_mongosh_syntax_and_reopens_selected() {
    let t = Tmux::start("demo hashed --paused", 120, 32);
    t.wait_for("sim:hashed", START);
    t.keys("t");
    t.wait_for("query filter:", Duration::from_secs(20));
    t.keys("{username: 'alice'}");
    t.keys("Enter");
    t.wait_for("SINGLE_SHARD", Duration::from_secs(20));
    // `t` again: the old filter is there, selected; typing replaces it.
    t.keys("t");
    let screen = t.wait_for("typing replaces", Duration::from_secs(20));
    assert!(
        screen.contains("query filter: {username: 'alice'}"),
        "{screen}"
    );
    t.keys("{username: {$gt: 'm'}}");
    let screen = t.wait_for(
        "query filter: {username: {$gt: 'm'}}",
        Duration::from_secs(20),
    );
    // Replaced, not appended (the key space still shows the kept filter until Enter).
    let prompt = screen
        .lines()
        .find(|l| l.contains("query filter:"))
        .unwrap();
    assert!(!prompt.contains("alice"), "{screen}");
    t.keys("Enter");
    t.wait_for("SHARD_MERGE", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}
