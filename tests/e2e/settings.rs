#![allow(clippy::unwrap_used)]
//! The real binary in tmux with the user's settings: a configuration that rebinds quit, `--theme`
//! (and a bad one), the live footer and pause, and the pane of a read a user may not make.

use crate::common;

use std::time::Duration;

use common::tmux::{START, Served, Tmux};

fn config(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    let shown = path.display().to_string();
    (dir, shown)
}

#[test]
fn a_rebound_quit_key_quits_and_the_old_one_does_not() {
    let (_dir, path) = config("[keys]\nquit = \"x\"\nhelp = [\"F1\"]\n");
    let t = Tmux::start(&format!("--config {path} demo --paused"), 100, 30);
    let screen = t.wait_for("x quit", START);
    assert!(
        screen.contains("F1 help"),
        "the footer shows the keys as bound:\n{screen}"
    );
    t.keys("q");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!t.screen().contains("EXIT="), "q is no longer quit");
    t.keys("F1");
    let screen = t.wait_for("Ctrl-C always quits", Duration::from_secs(20));
    let line = screen
        .lines()
        .find(|l| l.contains("Ctrl-C always quits"))
        .unwrap_or_default();
    assert!(
        line.contains("  x  "),
        "the help shows the rebound key:\n{screen}"
    );
    t.keys("Escape");
    // Escape and x sent together read as Alt-x: x goes once the help is closed.
    t.wait_gone("Ctrl-C always quits", Duration::from_secs(20));
    t.keys("x");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn a_theme_is_taken_and_a_bad_one_exits_2() {
    let t = Tmux::start("--theme okabe-ito demo --paused", 100, 30);
    t.wait_for("shard0000", START);
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
    let t = Tmux::start("demo --theme solarized", 100, 30);
    let screen = t.wait_for("EXIT=2", START);
    assert!(
        screen.contains("--theme: unknown theme \"solarized\""),
        "{screen}"
    );
    assert_eq!(
        t.stty("before"),
        t.stty("after"),
        "the terminal is untouched"
    );
}

#[test]
fn a_bad_configuration_names_its_line_and_key() {
    let (_dir, path) = config("fps = 30\n\n[keys]\nquit = \"m\"\n");
    let t = Tmux::start(&format!("--config {path} demo"), 120, 30);
    let screen = t.wait_for("EXIT=2", START);
    assert!(
        screen.contains("line 4, key `keys.quit`: key m is bound to both"),
        "{screen}"
    );
}

#[test]
fn the_live_footer_offers_the_live_keys_and_a_refused_read_is_named_in_its_pane() {
    let served = Served::with(&["--user-roles", "clusterMonitor"]);
    let uri = format!("'mongodb://127.0.0.1:{}/?directConnection=true'", served.1);
    let t = Tmux::start(&format!("watch {uri} --interval 500ms"), 120, 32);
    // The footer is the last line drawn: wait for it, not for the header.
    let screen = t.wait_for("Space pause polling", START);
    assert!(screen.contains("● live"), "{screen}");
    let footer = screen.lines().last().unwrap_or_default().to_string();
    assert!(footer.contains("Space pause polling"), "{screen}");
    assert!(
        !footer.contains("speed") && !footer.contains("step"),
        "no speed or step on a live cluster:\n{screen}"
    );
    let screen = t.wait_for("note: balancerCollectionStatus app.events", START);
    assert!(
        screen.contains("shard0000"),
        "the rest of the view goes on:\n{screen}"
    );
    t.keys("Space");
    let screen = t.wait_for("polling paused", Duration::from_secs(20));
    assert!(screen.contains("Space resume polling"), "{screen}");
    t.keys("?");
    // The help scrolls: every page of it, read page by page.
    // Its last line is drawn last: wait for it, not for the title (a frame is written in pieces).
    let mut help = t.wait_for("PgUp PgDn scroll · / filter", Duration::from_secs(20));
    for _ in 0..6 {
        t.keys("PageDown");
        std::thread::sleep(Duration::from_millis(200));
        help.push_str(&t.wait_for("? Esc q close", Duration::from_secs(20)));
    }
    assert!(
        !help.contains("faster / slower") && help.contains("pause / resume"),
        "the live help lists only the keys that apply:\n{help}"
    );
    t.keys("q");
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn v_opens_the_key_visualizer_h_the_history_and_both_go_back() {
    let t = Tmux::start("demo ascending --speed 32", 100, 30);
    t.wait_for("shard0000", START);
    t.keys("v");
    t.wait_for("Key visualizer · app.events", Duration::from_secs(20));
    let screen = t.wait_for("█", Duration::from_secs(15));
    assert!(screen.contains("MinKey at the bottom"), "{screen}");
    t.keys("v");
    t.wait_for("Key space", Duration::from_secs(20));
    t.keys("H");
    let screen = t.wait_for("History · app.events", Duration::from_secs(20));
    assert!(screen.contains("data per shard"), "{screen}");
    t.keys(">");
    t.wait_for("1 s per column", Duration::from_secs(20));
    t.keys("<");
    t.wait_for("2 s per column", Duration::from_secs(20));
    t.keys("Escape");
    t.wait_gone("History · app.events", Duration::from_secs(20));
    t.wait_for("Key space", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}
