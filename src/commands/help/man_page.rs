//! The parts of `shardtop man` that clap does not generate: the list of commands (each one is
//! described further down the same page, so no `shardtop-demo(1)` page is referred to), and the
//! KEYS (from the help overlay's tables and the default key map), EXAMPLES, FILES and
//! ENVIRONMENT sections.
//!
//! Part of the `help` command's output; may import `ui`'s key tables, never another command.

use std::io::Write;

use crate::ui::help_keys::{SCREENS, help_of};
use crate::ui::keymap::KeyMap;
use crate::ui::screen::Screen;

/// Text made safe for roff: backslashes doubled as `\e`, hyphens kept, a leading `.` or `'`
/// escaped so it is not read as a request.
fn esc(text: &str) -> String {
    let s = text.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// `.TP` paragraphs: a bold tag, then its text.
fn tagged(out: &mut impl Write, tag: &str, text: &str) -> std::io::Result<()> {
    writeln!(out, ".TP\n\\fB{}\\fR\n{}", esc(tag), esc(text))
}

/// The COMMANDS section: each subcommand's one-line description; its options follow under its
/// own heading on this page.
pub fn commands(out: &mut impl Write, cmd: &clap::Command) -> std::io::Result<()> {
    writeln!(out, ".SH COMMANDS")?;
    writeln!(
        out,
        "Without a command, shardtop runs \\fBshardtop demo ascending\\fR (the demo's options apply). Each command is described under its own heading below."
    )?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        tagged(out, &format!("shardtop {}", sub.get_name()), &about)?;
    }
    Ok(())
}

fn screen_title(screen: Screen) -> &'static str {
    match screen {
        Screen::Main => "The main layout",
        Screen::KeyVisualizer => "The key visualizer (v)",
        Screen::History => "The history (H)",
        Screen::Lab => "The lab's candidates side by side (shardtop lab)",
        Screen::WhatIf => "The what-if screen (W): now and a fork of it side by side",
    }
}

/// The KEYS section: every screen's help, with the default keys (the configuration's `[keys]`
/// table may change them).
pub fn keys(out: &mut impl Write) -> std::io::Result<()> {
    let map = KeyMap::default();
    writeln!(out, ".SH KEYS")?;
    writeln!(
        out,
        "The default keys; the configuration file's [keys] table rebinds them (shardtop config --print-template lists the command names). In the TUI, ? shows the keys of the screen in view."
    )?;
    for screen in SCREENS {
        writeln!(out, ".SS \"{}\"", esc(screen_title(screen)))?;
        for (group, rows) in help_of(screen) {
            writeln!(out, ".PP\n\\fI{}\\fR", esc(group))?;
            for (commands, what) in *rows {
                let keys: Vec<String> = commands
                    .iter()
                    .map(|c| match map.keys_of(c) {
                        k if k.is_empty() => (*c).to_string(),
                        k => k,
                    })
                    .collect();
                tagged(out, &keys.join("  "), what)?;
            }
        }
    }
    Ok(())
}

/// The EXAMPLES, FILES and ENVIRONMENT sections.
pub fn closing(out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, ".SH EXAMPLES")?;
    for (example, what) in EXAMPLES {
        tagged(out, example, what)?;
    }
    writeln!(out, ".SH FILES")?;
    for (file, what) in FILES {
        tagged(out, file, what)?;
    }
    writeln!(out, ".SH ENVIRONMENT")?;
    for (var, what) in ENVIRONMENT {
        tagged(out, var, what)?;
    }
    Ok(())
}

const EXAMPLES: &[(&str, &str)] = &[
    (
        "shardtop --paused",
        "The demo (an ascending shard key filling one shard), paused at its start; Space plays.",
    ),
    (
        "shardtop demo hot-customer --speed 16",
        "Another built-in scenario, at 16 virtual seconds per second (shardtop scenarios lists them).",
    ),
    (
        "shardtop sim ascending --json",
        "The same simulation headless: the JSON summary at the scenario's end.",
    ),
    (
        "shardtop watch mongodb://127.0.0.1:27017",
        "A live cluster through its mongos, read-only.",
    ),
    (
        "shardtop watch mongodb://127.0.0.1:27017 --check",
        "Which reads this user may make, and the role that grants the missing ones.",
    ),
    (
        "shardtop record mongodb://127.0.0.1:27017 -o cluster.trace.zst --duration 10m",
        "Record ten minutes of a live cluster; shardtop replay cluster.trace.zst plays it back.",
    ),
    (
        "shardtop serve hot-customer",
        "A simulated mongos on 127.0.0.1:27017 for mongosh and drivers.",
    ),
    (
        "shardtop lab --data orders.jsonl --workload queries.jsonl --key '{\"customerId\": 1}' --key '{\"_id\": \"hashed\"}'",
        "Two candidate shard keys side by side on your documents and queries.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "$XDG_CONFIG_HOME/shardtop/config.toml",
        "The configuration file (speed, interval, theme, keys, …); without XDG_CONFIG_HOME, ~/.config/shardtop/config.toml. shardtop config --print-template prints every setting with its default.",
    ),
    (
        "shardtop-TIME.txt, shardtop-TIME.svg",
        "The screen saved by the export key (s), in the current directory.",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "SHARDTOP_CONFIG",
        "The configuration file, in place of the default path (--config takes precedence).",
    ),
    (
        "XDG_CONFIG_HOME",
        "The folder of the default configuration file's shardtop/ folder.",
    ),
    ("HOME", "Without XDG_CONFIG_HOME: $HOME/.config is used."),
    (
        "NO_COLOR",
        "When set and not empty: no colours (as --no-color).",
    ),
    (
        "COLORFGBG",
        "With no theme set and no answer from the terminal to its background question (OSC 11): its background colour (FG;BG) picks the light or the dark theme.",
    ),
];
