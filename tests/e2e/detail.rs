//! The whole event through tmux (issue 44): `Enter` on the events pane's cursor opens the event
//! whole — on the simulator the failed move back onto a shard still holding the range's orphans,
//! with what it means; on `watch` of `serve` a `config.changelog` / `config.actionlog` entry as
//! Extended JSON — `y` copies it (OSC 52) and `Esc` closes it.

use crate::common;

use std::time::Duration;

use common::tmux::{START, Served, Tmux};

/// Waits for tmux's paste buffer to be filled (OSC 52 with `set-clipboard on`).
fn buffer(t: &Tmux) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let b = t.command(&["show-buffer"]);
        if !b.is_empty() || std::time::Instant::now() > deadline {
            return b;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn enter_on_a_failed_migration_shows_its_error_whole_and_what_it_means() {
    let t = Tmux::start("demo manual --speed 64", 120, 40);
    t.command(&["set-option", "-g", "set-clipboard", "on"]);
    t.wait_for("OperationFailed", START);
    t.keys("Space");
    t.wait_for("paused", Duration::from_secs(20));
    // Three Tabs: Shards → Balancer → Key space → Events; there `/` searches the log.
    t.keys("Tab");
    t.keys("Tab");
    t.keys("Tab");
    t.keys("/");
    t.keys("OperationFailed");
    t.keys("Enter");
    t.wait_for("/OperationFailed", Duration::from_secs(20));
    t.keys("Enter");
    t.wait_for(
        "what it means: orphans of the range are still on the recipient",
        Duration::from_secs(20),
    );
    // The status line is drawn after the text: a capture may fall between the two.
    let screen = t.wait_for("y copy · Esc q close", Duration::from_secs(20));
    assert!(screen.contains("code     OperationFailed (96)"), "{screen}");
    t.keys("y");
    t.wait_for("(OSC 52)", Duration::from_secs(20));
    let copied = buffer(&t);
    assert!(
        copied.contains("didn't clear yet a portion of the range being migrated"),
        "{copied:?}"
    );
    assert!(
        copied.contains("\"what\": \"moveChunk.error\""),
        "{copied:?}"
    );
    t.keys("Escape");
    t.wait_gone("what it means", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn enter_on_a_live_event_shows_the_config_entry_as_extended_json() {
    // serve's orphans scenario moves a chunk in its first balancer round (about 10 s; ascending
    // takes about 40 s to its first move).
    let served = Served::of("orphans", &[]);
    let uri = format!("'mongodb://127.0.0.1:{}/?directConnection=true'", served.1);
    let t = Tmux::start(&format!("watch {uri} --interval 500ms"), 120, 40);
    t.wait_for("moveChunk", START);
    t.keys("Tab");
    t.keys("Tab");
    t.keys("Tab");
    t.keys("Enter");
    let screen = t.wait_for("$date", Duration::from_secs(20));
    assert!(
        screen.contains("config.changelog") || screen.contains("config.actionlog"),
        "{screen}"
    );
    t.keys("Escape");
    t.wait_gone("$date", Duration::from_secs(20));
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}
