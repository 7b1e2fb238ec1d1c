//! The what-if mode through tmux (issue 37): `W` opens the prompt, the changes are typed in the
//! `whatif` CLI's words, Enter shows "now" and the fork side by side with the added shards; `W`
//! leaves. On the default demo, on `open` of a capture taken from `shardtop serve`, and on `watch`
//! of `shardtop serve`.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::{BIN, START, Served, Tmux};

/// `W`, the changes typed literally (they start with `-`), Enter: both sides and `added01`.
fn fork_with_two_added_shards(t: &Tmux) -> String {
    t.keys("W");
    t.wait_for("Enter forks · Esc cancels", Duration::from_secs(5));
    t.command(&["send-keys", "-t", "t", "-l", "--", "--add-shards 2"]);
    t.wait_for("what if: --add-shards 2", Duration::from_secs(5));
    t.keys("Enter");
    let screen = t.wait_for("what if: +2 shards", Duration::from_secs(20));
    let screen = if screen.contains("added01") {
        screen
    } else {
        t.wait_for("added01", Duration::from_secs(20))
    };
    assert!(screen.contains("now · "), "{screen}");
    assert_eq!(screen.matches("Shards · app.events").count(), 2, "{screen}");
    screen
}

#[test]
fn w_on_the_default_demo_forks_it_beside_now() {
    let t = Tmux::start("", 120, 40);
    t.wait_for("sim:ascending", START);
    let screen = fork_with_two_added_shards(&t);
    assert!(screen.contains("forked at"), "{screen}");
    // The prediction comes from its own thread: "…" until then, then its numbers.
    t.wait_for("migrations ·", Duration::from_secs(120));
    t.keys("W");
    t.wait_gone("what if: +2 shards", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn w_on_an_opened_capture_forks_its_state_and_says_what_it_assumed() {
    let served = Served::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.capture");
    let uri = format!("mongodb://127.0.0.1:{}/?directConnection=true", served.1);
    let out = Command::new(BIN)
        .args(["capture", &uri, "-o", &path.display().to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    drop(served);
    let t = Tmux::start(&format!("open {}", path.display()), 120, 40);
    t.wait_for("capture taken", START);
    let screen = fork_with_two_added_shards(&t);
    assert!(screen.contains("assumed: "), "{screen}");
    t.keys("Escape");
    t.wait_gone("what if: +2 shards", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn w_on_watch_forks_the_latest_poll() {
    let served = Served::start();
    let uri = format!("'mongodb://127.0.0.1:{}/?directConnection=true'", served.1);
    let t = Tmux::start(&format!("watch {uri} --interval 1s"), 120, 40);
    t.wait_for("● live", START);
    let screen = fork_with_two_added_shards(&t);
    assert!(screen.contains("UTC"), "{screen}");
    assert!(screen.contains("assumed: "), "{screen}");
    // `e`: every input, the session's calibration among them (its changelog, its growth).
    t.keys("e");
    let inputs = t.wait_for("· migrationRate: ", Duration::from_secs(20));
    assert!(inputs.contains("measured · chunkSizes: "), "{inputs}");
    assert!(inputs.contains("· writes: "), "{inputs}");
    t.keys("W");
    t.wait_gone("what if: +2 shards", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
    drop(served);
}

/// The header's clock (`13.4s / 5m00s`), to see it run.
fn clock(screen: &str) -> String {
    let head = screen.lines().next().unwrap_or_default();
    head.split('│')
        .nth(3)
        .unwrap_or_default()
        .trim()
        .to_string()
}

/// Types the what-if changes into an open prompt, after clearing what it held.
fn type_changes(t: &Tmux, text: &str) {
    for _ in 0..40 {
        t.keys("BSpace");
    }
    t.command(&["send-keys", "-t", "t", "-l", "--", text]);
    t.wait_for(&format!("what if: {text}"), Duration::from_secs(5));
}

#[test]
fn a_fork_of_as_many_shards_as_allowed_leaves_the_clock_running_and_esc_and_q_answer_at_once() {
    let t = Tmux::start("", 120, 40);
    t.wait_for("sim:ascending", START);
    t.keys("W");
    t.wait_for("Enter forks · Esc cancels", Duration::from_secs(5));
    // Past the one bound of shards: said in the prompt, which stays open.
    type_changes(&t, "--add-shards 1000000");
    t.keys("Enter");
    t.wait_for("at most 10000 shards", Duration::from_secs(5));
    // The most the bound allows beside the demo's 3 shards: the fork is made on a thread of
    // its own while the clock runs, and Esc leaves at once.
    type_changes(&t, "--add-shards 9997");
    t.keys("Enter");
    let before = clock(&t.wait_for("+9997 shards", Duration::from_secs(5)));
    t.keys("Escape");
    let asked = Instant::now();
    t.wait_gone("+9997 shards", Duration::from_secs(1));
    let esc_took = asked.elapsed();
    let deadline = Instant::now() + Duration::from_secs(20);
    while clock(&t.screen()) == before {
        assert!(Instant::now() < deadline, "the clock stayed at {before}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Again, and q while the fork is being made (or just made): the TUI ends at once.
    t.keys("W");
    t.wait_for("Enter forks · Esc cancels", Duration::from_secs(5));
    t.keys("Enter");
    t.wait_for("+9997 shards", Duration::from_secs(5));
    t.keys("q");
    let asked = Instant::now();
    t.wait_for("EXIT=0", Duration::from_secs(1));
    eprintln!(
        "Esc left the fork in {esc_took:?}; q ended the TUI in {:?}",
        asked.elapsed()
    );
}
