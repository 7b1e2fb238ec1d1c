//! The TUI against a mongos that stops answering (`tests/live/hostile_mongos.rs`): keys are
//! handled while a poll waits, and the footer says what it waits for; job control (Ctrl-Z,
//! `fg`) gives the terminal back and takes it again.

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::common::tmux::{START, Tmux};
use crate::hostile_mongos::{self, Mode};

/// A runtime of its own for the server (the tests are synchronous).
fn server(mode: Mode) -> (tokio::runtime::Runtime, hostile_mongos::Hostile) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(hostile_mongos::start(mode));
    (rt, server)
}

#[test]
fn q_quits_at_once_while_a_poll_waits_for_a_silent_server() {
    let (_rt, server) = server(Mode::Slow { ms: 0 });
    let t = Tmux::start(&format!("watch '{}' --interval 10s", server.uri), 100, 30);
    t.wait_for("● live", START);
    server.silenced.store(true, Ordering::Relaxed);
    // The next poll (10 s later) waits; after 2 s the footer says for what (its deadline is
    // 50 s).
    t.wait_for("waiting for mongodb://127.0.0.1", Duration::from_secs(30));
    // Keys that each send the source a control (pause, play: more than its channel holds),
    // then q.
    for _ in 0..20 {
        t.keys("Space");
        t.keys("Tab");
    }
    t.keys("q");
    // Before, the UI waited on the full channel until the poll ended (here 50 s; minutes with
    // `--interval 1m`); now it is the time a key takes (tens of ms measured; the bound is
    // generous for a loaded machine and still far below the poll's deadline).
    t.wait_for("EXIT=0", Duration::from_secs(15));
}

#[test]
fn ctrl_z_gives_the_terminal_back_and_fg_redraws() {
    let t = Tmux::shell(100, 30);
    t.wait_for("READY$", START);
    t.keys("\"$ST\" demo ascending");
    t.keys("Enter");
    t.wait_for("sim:ascending", START);
    assert_eq!(t.format("#{alternate_on}"), "1");
    t.keys("C-z");
    let screen = t.wait_for("Stopped", Duration::from_secs(20));
    assert!(screen.contains("READY$"), "the prompt is back:\n{screen}");
    assert_eq!(t.format("#{alternate_on}"), "0", "off the alternate screen");
    assert_eq!(t.format("#{mouse_any_flag}"), "0", "mouse reporting off");
    assert_eq!(t.format("#{cursor_flag}"), "1", "the cursor shown");
    t.keys("fg");
    t.keys("Enter");
    t.wait_for("sim:ascending", Duration::from_secs(20));
    assert_eq!(
        t.format("#{alternate_on}"),
        "1",
        "back on the alternate screen"
    );
    assert_eq!(
        t.format("#{mouse_any_flag}"),
        "1",
        "mouse reporting on again"
    );
    // Raw mode is back: q is a key, not a line.
    t.keys("q");
    t.wait_for("READY$", Duration::from_secs(20));
    // A SIGTSTP from outside (`kill -TSTP`) does the same.
    t.keys("\"$ST\" demo ascending");
    t.keys("Enter");
    t.wait_for("sim:ascending", START);
    let pid = t.shardtop_pid();
    let status = std::process::Command::new("kill")
        .args(["-s", "TSTP", &pid])
        .status()
        .unwrap();
    assert!(status.success());
    t.wait_for("Stopped", Duration::from_secs(20));
    assert_eq!(
        t.format("#{alternate_on}"),
        "0",
        "SIGTSTP: off the alternate screen"
    );
    t.keys("fg");
    t.keys("Enter");
    t.wait_for("sim:ascending", Duration::from_secs(20));
    t.keys("q");
}

#[test]
fn before_the_tui_opens_the_first_poll_says_what_it_waits_for() {
    let (_rt, server) = server(Mode::Silent);
    let t = Tmux::start(&format!("watch '{}'", server.uri), 200, 30);
    // Before, a blank screen until the poll ended (never); now the read (the first: the
    // cluster's shards) and the seconds.
    let screen = t.wait_for("find config.shards, ", START);
    assert!(
        screen.contains("shardtop: waiting for mongodb://127.0.0.1:"),
        "{screen}"
    );
    // The first poll's deadline (30 s) ends it with the read named, before any TUI.
    let screen = t.wait_for("EXIT=1", Duration::from_secs(60));
    assert!(
        screen.contains("no reply to find config.shards within 30 s"),
        "{screen}"
    );
}
