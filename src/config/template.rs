//! `shardtop config --print-template`: every setting, commented out at its default, generated
//! from the same tables the settings are read with (the key map's commands, the palette's
//! colours), so it cannot fall behind them.

use crate::ui::keymap::COMMANDS;
use crate::ui::palette::{COLOR_NAMES, Palette};

const HEAD: &str = r##"# shardtop configuration.
#
# Read from --config PATH, else $SHARDTOP_CONFIG, else $XDG_CONFIG_HOME/shardtop/config.toml
# (~/.config/shardtop/config.toml when XDG_CONFIG_HOME is unset). shardtop never writes it.
# Every setting is optional and shown at its default: remove the leading "# " to change one.
# A flag on the command line wins over the file; an unknown key is an error.

# Colour theme of the TUI: dark, light, high-contrast, okabe-ito, or a [themes.NAME] below.
# When unset, the TUI asks the terminal for its background colour (OSC 11, at most 100 ms) and
# takes light on a light one; no answer: COLORFGBG's background, else dark.
# theme = "dark"

# Colours at all (false is --no-color; a non-empty NO_COLOR always turns them off).
# colors = true

# While a drain or a resharding runs, its percent done in the terminal's tab or title bar
# (OSC 9;4: Windows Terminal, Ghostty, WezTerm, ConEmu...). false: never sent.
# progress = true

# Frames per second of the TUI at most (1 to 120).
# fps = 30

# Virtual seconds per real second of demo and replay (a positive number).
# speed = 4.0

# The MongoDB release line demo, sim and serve simulate (4.4, 5.0, 6.0, 7.0, 8.0...);
# the newest when unset.
# server-version = "8.0"

# How much of the past the key visualizer and the history view keep (1m to 24h): writes, and a
# sample a second of each shard (about 45 MB an hour on 1,000 shards).
# history = "1h"

[watch]
# Time between polls of watch and record (100ms to 24h).
# interval = "2s"
# Write heat of watch: auto, size, sampled, changestream or off.
# heat = "auto"

[keys]
# Each command takes a key or a list of keys; a command named here loses its default keys,
# and a key bound to two commands is an error. A key is one character, or Space, Enter, Esc,
# Tab, Shift-Tab, Backspace, Left, Right, Up, Down, PageUp, PageDown, Home, End, Delete,
# Insert, F1 to F12, with Ctrl- or Alt- before it if wanted. Ctrl-C always quits.
"##;

const THEMES: &str = r#"
# A custom theme: start from a built-in one (base) and change colours by name. A colour is a
# name (red, light-blue, dark-gray...), #rrggbb or a 256-colour index; shards and zones take a
# list that repeats. Then set theme = "mine" above, or pass --theme mine.
# [themes.mine]
# base = "dark"
"#;

/// The template text.
pub fn template() -> String {
    let mut out = HEAD.to_string();
    for c in COMMANDS {
        let keys: Vec<String> = c.defaults.iter().map(|k| format!("{k:?}")).collect();
        out.push_str(&format!("# {} = [{}]\n", c.name, keys.join(", ")));
    }
    out.push_str(THEMES);
    let p = Palette::DARK;
    for name in COLOR_NAMES {
        let value = match *name {
            "shards" => list(&p.shards),
            "zones" => list(&p.zones),
            other => format!("{:?}", p.get(other).unwrap_or_default().to_string()),
        };
        out.push_str(&format!("# {name} = {value}\n"));
    }
    out
}

fn list(colors: &[ratatui::style::Color]) -> String {
    let items: Vec<String> = colors
        .iter()
        .map(|c| format!("{:?}", c.to_string()))
        .collect();
    format!("[{}]", items.join(", "))
}
