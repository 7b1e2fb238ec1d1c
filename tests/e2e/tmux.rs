#![allow(clippy::unwrap_used)]
//! The real binary in tmux: the demo shows the hot shard, `?` opens the help, `q` exits 0 and
//! leaves the terminal as it found it, a too-small terminal says so, a trace replays. tmux is
//! required (CI installs it): a missing tmux fails these tests.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::{START, Served, Tmux};

#[test]
fn demo_shows_the_hot_shard_opens_help_and_quits_cleanly() {
    let t = Tmux::start("demo ascending", 100, 30);
    t.wait_for("sim:ascending", START);
    // Every write goes to shard0000 at once: within the first seconds of virtual time (the
    // header's clock, not the wall clock, which a loaded machine stretches) …
    let screen = t.wait_for("100%", Duration::from_secs(20));
    let clock = virtual_seconds(&screen);
    assert!(clock <= 10.0, "the writes showed at {clock} s:\n{screen}");
    assert!(screen.contains("shard0000"), "{screen}");
    // … and it is HOT once the balancer has given another shard a chunk (41 s of virtual time,
    // about 10 s at ×4): while the collection lives on shard0000 alone, no other shard can take
    // its writes, so there is no fair share to exceed.
    let screen = t.wait_for("◀ HOT", Duration::from_secs(30));
    assert!(
        screen.contains("shard0000") && screen.contains("100%"),
        "{screen}"
    );
    t.keys("?");
    t.wait_for("? Esc q close", Duration::from_secs(20));
    // Another key leaves it open; PgDn scrolls to the legend at its end.
    t.keys("x");
    t.keys("PageDown");
    t.keys("PageDown");
    let screen = t.wait_for("bands below.", Duration::from_secs(20));
    assert!(screen.contains("? Esc q close"), "{screen}");
    t.keys("Escape");
    // Escape and q sent together read as Alt-q: q goes once the help is closed.
    t.wait_gone("? Esc q close", Duration::from_secs(20));
    t.wait_for("Events", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
    let deadline = Instant::now() + Duration::from_secs(5);
    while t.stty("after").is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        t.stty("before"),
        t.stty("after"),
        "the terminal settings were not restored"
    );
    assert!(!t.stty("before").is_empty());
}

#[test]
fn a_too_small_terminal_shows_its_message() {
    let t = Tmux::start("demo", 50, 12);
    t.wait_for("terminal too small", START);
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn a_fixture_trace_replays_and_pauses_at_its_end() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/traces/ascending.ndjson.zst"
    );
    let t = Tmux::start(&format!("replay {trace} --speed 512"), 100, 30);
    t.wait_for("replay:ascending.ndjson.zst", START);
    let screen = t.wait_for("end of trace — r restarts", Duration::from_secs(15));
    assert!(screen.contains("■ end, paused"), "{screen}");
    assert!(screen.contains("moved 5"), "{screen}");
    // `r` plays it again from the start (at ×128: the 5 minutes in about 2 s, long enough to
    // see the notice), and says so; at the end the footer says the end again (on the history
    // screen too), and Space there restarts as well.
    t.keys("-");
    t.keys("-");
    t.wait_for("×128", Duration::from_secs(15));
    t.keys("r");
    t.wait_for("restarted from the start", Duration::from_secs(15));
    t.keys("H");
    t.wait_for("end of trace — r restarts", Duration::from_secs(15));
    t.keys("Space");
    t.wait_for("restarted from the start", Duration::from_secs(15));
    t.keys("[");
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn an_unknown_scenario_exits_2_with_the_terminal_untouched() {
    let t = Tmux::start("demo no-such-scenario", 100, 30);
    t.wait_for("EXIT=2", START);
    let screen = t.screen();
    assert!(screen.contains("unknown scenario"), "{screen}");
}

#[test]
fn watch_shows_a_live_cluster_and_survives_losing_it() {
    let mut served = Served::start();
    let uri = format!("'mongodb://127.0.0.1:{}/?directConnection=true'", served.1);
    let t = Tmux::start(&format!("watch {uri} --interval 500ms"), 100, 30);
    let screen = t.wait_for("● live", START);
    assert!(
        screen.contains("app.events") && screen.contains("heat changestream (auto)"),
        "{screen}"
    );
    let _ = served.0.kill();
    let _ = served.0.wait();
    let screen = t.wait_for("disconnected since", Duration::from_secs(15));
    assert!(
        screen.contains("app.events"),
        "the last state stays on screen:\n{screen}"
    );
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn a_signal_gives_the_terminal_back() {
    for (signal, number) in [("TERM", 15), ("HUP", 1), ("QUIT", 3), ("INT", 2)] {
        let t = Tmux::start("demo ascending", 100, 30);
        t.wait_for("sim:ascending", START);
        assert_eq!(
            t.format("#{alternate_on}"),
            "1",
            "the TUI is on the alternate screen"
        );
        let pid = t.shardtop_pid();
        let status = Command::new("kill")
            .args(["-s", signal, &pid])
            .status()
            .unwrap();
        assert!(status.success());
        t.wait_for(&format!("EXIT={}", 128 + number), Duration::from_secs(20));
        let deadline = Instant::now() + Duration::from_secs(5);
        while t.stty("after").is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            t.stty("before"),
            t.stty("after"),
            "SIG{signal}: raw mode left on"
        );
        assert_eq!(
            t.format("#{alternate_on}"),
            "0",
            "SIG{signal}: still on the alternate screen"
        );
        assert_eq!(
            t.format("#{cursor_flag}"),
            "1",
            "SIG{signal}: the cursor is hidden"
        );
        assert_eq!(
            t.format("#{mouse_any_flag}"),
            "0",
            "SIG{signal}: mouse reporting is on"
        );
    }
}

/// The header's virtual clock, in seconds (`… │ 12.3s / 5m00s │ …`, `1m02s / 5m00s`).
fn virtual_seconds(screen: &str) -> f64 {
    let header = screen.lines().next().unwrap_or_default();
    let clock = header
        .split('│')
        .find(|part| part.contains(" / "))
        .and_then(|part| part.split(" / ").next())
        .map_or_else(|| panic!("no clock in the header: {header}"), str::trim);
    let (minutes, seconds) = match clock.split_once('m') {
        Some((m, s)) => (m.parse::<f64>().unwrap(), s),
        None => (0.0, clock),
    };
    minutes * 60.0 + seconds.trim_end_matches('s').parse::<f64>().unwrap()
}
