//! The keys of issue 48 through tmux: Tab in the screen's order, the Shards pane's row cursor and
//! `Enter` lighting a shard's chunks in the key space, and the one line editor (`W`'s prompt and
//! the shard filter: `Ctrl-A`, `Ctrl-W`, `Ctrl-U`, `←`, `Home`, `↑` for the history). Each waits
//! for the screen's words, with no fixed sleep.

use crate::common;

use std::time::Duration;

use common::tmux::{START, Tmux};

const STEP: Duration = Duration::from_secs(20);

#[test]
fn tab_takes_the_panes_in_the_screen_s_order() {
    let t = Tmux::start("demo ascending --paused", 100, 30);
    t.wait_for("sim:ascending", START);
    // Shards first, with its cursor.
    t.wait_for("0▶shard0000", STEP);
    // Balancer: the cursor goes; then the key space: its selection's line.
    t.keys("Tab");
    t.wait_gone("0▶shard0000", STEP);
    t.keys("Tab");
    t.wait_for("chunk 1 of 1:", STEP);
    // The events, then back to the Shards.
    t.keys("Tab");
    t.wait_gone("chunk 1 of 1:", STEP);
    t.keys("Tab");
    t.wait_for("0▶shard0000", STEP);
    t.keys("q");
    t.wait_for("EXIT=0", STEP);
}

#[test]
fn the_shards_cursor_moves_and_enter_lights_the_shard_s_chunks() {
    let t = Tmux::start("demo drain --paused", 100, 30);
    t.wait_for("sim:drain", START);
    t.wait_for("0▶shard0000", STEP);
    t.keys("j");
    t.keys("Down");
    t.wait_for("2▶shard0002", STEP);
    t.keys("k");
    t.wait_for("1▶shard0001", STEP);
    t.keys("Enter");
    t.wait_for("● shard0001 lit: ", STEP);
    t.keys("Escape");
    t.wait_gone("● shard0001 lit: ", STEP);
    t.keys("q");
    t.wait_for("EXIT=0", STEP);
}

#[test]
fn the_w_prompt_and_the_shard_filter_edit_as_a_shell_does() {
    let t = Tmux::start("demo ascending --paused", 100, 30);
    t.wait_for("sim:ascending", START);
    t.keys("W");
    t.wait_for("Enter forks · Esc cancels", STEP);
    t.command(&["send-keys", "-t", "t", "-l", "--", "--drain shard0000"]);
    t.wait_for("what if: --drain shard0000▏", STEP);
    // Ctrl-A, then text at the start; the cursor stays where it was typed.
    t.keys("C-a");
    t.command(&["send-keys", "-t", "t", "-l", "--", "--add-shards 1 "]);
    t.wait_for("what if: --add-shards 1 ▏--drain shard0000", STEP);
    // Ctrl-W: the word before the cursor; End, ← and Backspace; Ctrl-U: all before the cursor.
    t.keys("C-w");
    t.wait_for("what if: --add-shards ▏--drain shard0000", STEP);
    t.keys("End");
    t.keys("Left");
    t.keys("BSpace");
    t.wait_for("what if: --add-shards --drain shard00▏0", STEP);
    t.keys("C-e");
    t.keys("C-u");
    t.wait_for("what if: ▏", STEP);
    t.keys("Escape");
    t.wait_gone("Enter forks · Esc cancels", STEP);
    // The shard filter keeps what Enter kept; ↑ brings it back.
    t.keys("/");
    t.keys("0001");
    t.keys("Enter");
    t.wait_for("· /0001", STEP);
    t.keys("Escape");
    t.wait_gone("· /0001", STEP);
    t.keys("/");
    t.wait_for("shard or zone: ▏", STEP);
    t.keys("Up");
    t.wait_for("shard or zone: 0001▏", STEP);
    t.keys("Escape");
    t.keys("q");
    t.wait_for("EXIT=0", STEP);
}
