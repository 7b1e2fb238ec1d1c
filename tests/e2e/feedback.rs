//! Feedback on long work (issue 35) through tmux: `watch` against a host that never answers says
//! at once what it connects to and within which time, then fails with exit 1; `record` shows
//! its polls, events and bytes while it records, and its summary at the end.

use crate::common;

use std::time::{Duration, Instant};

use common::tmux::{START, Served, Tmux};

/// A host that never answers: a listener nothing accepts from (the kernel completes the TCP
/// handshake; no byte ever comes back), so connecting waits for its timeout — deterministic,
/// no network.
fn blackhole() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

#[test]
fn watch_says_at_once_what_it_connects_to_and_within_which_time() {
    let (_listener, port) = blackhole();
    let t = Tmux::start(&format!("watch mongodb://127.0.0.1:{port}"), 120, 30);
    // The first thing on the screen says what it connects to (an order, not a time: the wall
    // clock of a loaded machine proves nothing).
    let screen = first_non_blank(&t);
    assert!(
        screen.contains(&format!("connecting to mongodb://127.0.0.1:{port}…")),
        "the first screen: {screen}"
    );
    assert!(screen.contains("(timeout 10 s;"), "{screen}");
    // Later, still the host (or what it waits for from it, and since when): never a blank
    // screen.
    std::thread::sleep(Duration::from_secs(3));
    let screen = t.screen();
    assert!(
        screen.contains(&format!("connecting to mongodb://127.0.0.1:{port}…"))
            || screen.contains(&format!("waiting for mongodb://127.0.0.1:{port}: ")),
        "{screen}"
    );
    let screen = t.wait_for("EXIT=", Duration::from_secs(40));
    assert!(screen.contains("EXIT=1"), "{screen}");
    assert!(
        !screen.contains("connecting to mongodb"),
        "the line is cleared before the error:\n{screen}"
    );
}

#[test]
fn record_shows_its_polls_events_and_bytes_as_it_goes() {
    let served = Served::start();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.ndjson");
    let uri = format!("'mongodb://127.0.0.1:{}/?directConnection=true'", served.1);
    let args = format!(
        "record {uri} -o {} --interval 1s --duration 8s",
        out.display()
    );
    let t = Tmux::start(&args, 120, 30);
    let first = t.wait_for("shardtop: recording: ", START);
    let line = |screen: &str| {
        (screen.lines())
            .find(|l| l.contains("recording: "))
            .map(str::to_string)
            .unwrap_or_default()
    };
    let first = line(&first);
    assert!(first.contains(" s / 8 s · "), "{first}");
    assert!(
        first.contains(" event") && first.contains(" poll"),
        "{first}"
    );
    assert!(first.contains('B'), "bytes: {first}");
    // It goes on: a later line with more polls, before the end.
    let polls = |l: &str| -> u64 {
        (l.split_once(" poll"))
            .and_then(|(before, _)| before.rsplit(' ').next()?.parse().ok())
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(6);
    let mut later = first.clone();
    while polls(&later) <= polls(&first) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        let screen = t.screen();
        if screen.contains("EXIT=") {
            break;
        }
        let now = line(&screen);
        if !now.is_empty() {
            later = now;
        }
    }
    assert!(
        polls(&later) > polls(&first),
        "no progress after {first:?}: {later:?}"
    );
    let screen = t.wait_for("EXIT=", Duration::from_secs(30));
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert!(out.exists());
}

/// The first screen with anything on it (the shell's own line, which holds `EXIT=` or
/// `stty`, is not the program's).
fn first_non_blank(t: &Tmux) -> String {
    let deadline = Instant::now() + START;
    loop {
        let screen = t.screen();
        if !screen.trim().is_empty() {
            return screen;
        }
        assert!(
            Instant::now() < deadline,
            "nothing on the screen within {START:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
