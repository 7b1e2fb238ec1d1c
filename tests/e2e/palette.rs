//! The command palette and the clipboard through tmux (issue 35): `:` opens the palette, typing
//! filters it and Enter runs the chosen command; `y` on a selected cell sends OSC 52, which tmux
//! (with `set-clipboard on`) keeps as its paste buffer.

use crate::common;

use std::time::Duration;

use common::tmux::{START, Tmux};

#[test]
fn colon_opens_the_palette_and_enter_runs_the_chosen_command() {
    let t = Tmux::start("demo drain --paused", 100, 30);
    t.wait_for("sim:drain", START);
    t.keys(":");
    let screen = t.wait_for("Enter runs · Esc closes", Duration::from_secs(20));
    assert!(screen.contains("Commands"), "{screen}");
    t.keys("histo");
    let screen = t.wait_for(": histo", Duration::from_secs(20));
    assert!(screen.contains("history"), "{screen}");
    t.keys("Enter");
    t.wait_for("data per shard", Duration::from_secs(20));
    // Esc closes the palette without running anything.
    t.keys(":");
    t.wait_for("Enter runs · Esc closes", Duration::from_secs(20));
    t.keys("Escape");
    t.wait_gone("Enter runs · Esc closes", Duration::from_secs(20));
    let screen = t.screen();
    assert!(screen.contains("data per shard"), "{screen}");
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}

#[test]
fn y_puts_the_selected_cell_s_bounds_on_the_clipboard_through_osc_52() {
    let t = Tmux::start("demo ascending --paused", 100, 30);
    t.command(&["set-option", "-g", "set-clipboard", "on"]);
    t.wait_for("sim:ascending", START);
    // Two Tabs (Shards → Balancer → Key space), not two Shift-Tabs: a Tab is one byte, while
    // Shift-Tab's escape sequence read in two parts on a loaded machine is Esc, `[`, `Z`.
    for _ in 0..2 {
        t.keys("Tab");
    }
    // The selected cell's line shows once the source has built the view the focus asked for.
    t.wait_for("chunk 1 of 1:", Duration::from_secs(20));
    t.keys("y");
    t.wait_for("(OSC 52)", Duration::from_secs(20));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let buffer = loop {
        let b = t.command(&["show-buffer"]);
        if !b.is_empty() || std::time::Instant::now() > deadline {
            break b;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        buffer.starts_with("{min: {") && buffer.contains("}, max: {") && buffer.ends_with("}}"),
        "{buffer:?}"
    );
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}
