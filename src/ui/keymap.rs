//! Key bindings: one table of commands (name, action, default keys, help text) that maps key
//! presses, draws the help overlay and the footer, and that a configuration file rebinds by
//! name. Ctrl-C always quits.

use std::collections::BTreeMap;

use ratatui::crossterm::event::{KeyEvent, KeyEventKind, MouseEvent, MouseEventKind};

use super::action::Action;
use super::keys::{Code, Key};
use super::line_editor::Edit;

/// A command keys can be bound to.
pub struct Command {
    /// Its name in the configuration's `[keys]` table.
    pub name: &'static str,
    pub action: Action,
    pub defaults: &'static [&'static str],
    /// Whether it means anything on a live cluster (no speed, step or seek there).
    pub live: bool,
}

const fn cmd(
    name: &'static str,
    action: Action,
    defaults: &'static [&'static str],
    live: bool,
) -> Command {
    Command {
        name,
        action,
        defaults,
        live,
    }
}

/// Every command, in the template's order.
pub const COMMANDS: &[Command] = &[
    cmd("quit", Action::Quit, &["q"], true),
    cmd("help", Action::ToggleHelp, &["?"], true),
    cmd("palette", Action::OpenPalette, &[":"], true),
    cmd("focus-next", Action::FocusNext, &["Tab"], true),
    cmd("focus-prev", Action::FocusPrev, &["Shift-Tab"], true),
    cmd("next-collection", Action::Collection(true), &["c"], true),
    cmd("prev-collection", Action::Collection(false), &["C"], true),
    cmd("pause", Action::TogglePause, &["Space"], true),
    cmd("restart", Action::Restart, &["r"], false),
    cmd("faster", Action::Faster, &["+", "="], false),
    cmd("slower", Action::Slower, &["-", "_"], false),
    cmd("step-forward", Action::Step(true), &["."], false),
    cmd("step-back", Action::Step(false), &[","], false),
    cmd("seek-forward", Action::Seek(true), &["]"], false),
    cmd("seek-back", Action::Seek(false), &["["], false),
    cmd("next-migration", Action::Migration(true), &["n"], false),
    cmd("prev-migration", Action::Migration(false), &["p"], false),
    cmd("left", Action::Left, &["Left", "h"], true),
    cmd("right", Action::Right, &["Right", "l"], true),
    cmd("up", Action::Up, &["Up", "k"], true),
    cmd("down", Action::Down, &["Down", "j", "End"], true),
    cmd("page-up", Action::Page(true), &["PageUp"], true),
    cmd("page-down", Action::Page(false), &["PageDown"], true),
    cmd("zoom-in", Action::ZoomIn, &["i"], true),
    cmd("open", Action::Open, &["Enter"], true),
    cmd("zoom-out", Action::ZoomOut, &["o"], true),
    cmd("zoom-reset", Action::ZoomReset, &["0"], true),
    cmd("query", Action::StartQuery, &["t"], true),
    cmd("metric", Action::ToggleMetric, &["m"], true),
    cmd("zones", Action::ToggleZones, &["z"], true),
    cmd("heat", Action::ToggleHeat, &["w"], true),
    cmd("explain", Action::ToggleExplain, &["e"], true),
    cmd("sort-shards", Action::CycleShardSort, &["S"], true),
    cmd("export", Action::Export, &["s"], true),
    cmd("copy", Action::Copy, &["y"], true),
    cmd("key-visualizer", Action::ToggleKeyVisualizer, &["v"], true),
    cmd("history", Action::ToggleHistory, &["H"], true),
    cmd("lab", Action::ToggleLab, &["L"], false),
    cmd("whatif", Action::ToggleWhatIf, &["W"], true),
    cmd("time-zoom-in", Action::TimeZoom(true), &[">"], true),
    cmd("time-zoom-out", Action::TimeZoom(false), &["<"], true),
    cmd("filter-events", Action::CycleLogFilter, &["f"], true),
    cmd("search", Action::StartSearch, &["/"], true),
    cmd("clear", Action::Escape, &["Esc"], true),
];

pub use super::help_keys::{HELP, HelpRow};

/// The keys of each command, after the configuration's changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyMap {
    by_key: BTreeMap<Key, Action>,
    by_command: BTreeMap<&'static str, Vec<Key>>,
}

impl Default for KeyMap {
    fn default() -> Self {
        Self::with(&[]).unwrap_or_else(|_| Self {
            by_key: BTreeMap::new(),
            by_command: BTreeMap::new(),
        })
    }
}

/// Why a configuration's binding cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingError {
    /// The command named in the configuration.
    pub command: String,
    pub message: String,
}

impl KeyMap {
    /// The default keys, with the commands named in `changes` bound to the keys given instead.
    pub fn with(changes: &[(String, Vec<String>)]) -> Result<Self, BindingError> {
        let mut by_command: BTreeMap<&'static str, Vec<Key>> = COMMANDS
            .iter()
            .map(|c| (c.name, parse_all(c.defaults)))
            .collect();
        for (name, keys) in changes {
            let err = |message: String| BindingError {
                command: name.clone(),
                message,
            };
            let command = COMMANDS.iter().find(|c| c.name == name).ok_or_else(|| {
                err(format!(
                    "unknown command `{name}`; the commands are {}",
                    names()
                ))
            })?;
            let parsed = keys
                .iter()
                .map(|k| k.parse::<Key>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            if parsed.contains(&Key::CTRL_C) {
                return Err(err("Ctrl-C always quits; it cannot be bound".into()));
            }
            by_command.insert(command.name, parsed);
        }
        let mut by_key = BTreeMap::new();
        let mut owner: BTreeMap<Key, &str> = BTreeMap::new();
        for c in COMMANDS {
            for &key in &by_command[c.name] {
                if let Some(other) = owner.insert(key, c.name) {
                    let changed = changes.iter().find(|(n, _)| n == c.name || n == other);
                    return Err(BindingError {
                        command: changed.map_or(c.name, |(n, _)| n.as_str()).to_string(),
                        message: format!(
                            "key {} is bound to both `{other}` and `{}`; give one of them another key",
                            key.label(),
                            c.name
                        ),
                    });
                }
                by_key.insert(key, c.action);
            }
        }
        Ok(Self { by_key, by_command })
    }

    /// The keys of a command, as the help shows them.
    pub fn keys_of(&self, command: &str) -> String {
        self.by_command
            .get(command)
            .map(|keys| keys.iter().map(|k| k.label()).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }

    /// The first key of a command (the footer's).
    pub fn first_key_of(&self, command: &str) -> Option<String> {
        self.by_command
            .get(command)
            .and_then(|keys| keys.first())
            .map(|k| k.label())
    }

    /// The action of a key press; `None` for keys without a binding and for releases/repeats
    /// of other kinds. While a search is being typed, printable keys go to the search.
    pub fn map(&self, event: &KeyEvent, searching: bool) -> Option<Action> {
        if event.kind != KeyEventKind::Press {
            return None;
        }
        let key = Key::of(event)?;
        if key == Key::CTRL_C {
            return Some(Action::Interrupt);
        }
        if searching {
            return match key.code {
                Code::Char(c) if !key.ctrl && !key.alt => Some(Action::SearchChar(c)),
                Code::Char(c) if key.ctrl && !key.alt => ctrl_edit(c).map(Action::Edit),
                // The palette's and the help's lists move while their filter is typed; the other
                // inputs walk their history.
                Code::Up => Some(Action::Up),
                Code::Down => Some(Action::Down),
                Code::Backspace => Some(Action::SearchBackspace),
                Code::Delete => Some(Action::Edit(Edit::Delete)),
                Code::Left => Some(Action::Edit(Edit::Left)),
                Code::Right => Some(Action::Edit(Edit::Right)),
                Code::Home => Some(Action::Edit(Edit::Home)),
                Code::End => Some(Action::Edit(Edit::End)),
                Code::Enter => Some(Action::SearchDone),
                Code::Esc => Some(Action::Escape),
                _ => None,
            };
        }
        self.by_key.get(&key).copied()
    }
}

/// The line editor's Ctrl keys, as a shell's (readline's) are.
fn ctrl_edit(c: char) -> Option<Edit> {
    Some(match c {
        'a' => Edit::Home,
        'e' => Edit::End,
        'u' => Edit::KillToStart,
        'k' => Edit::KillToEnd,
        'w' => Edit::KillWord,
        'b' => Edit::Left,
        'f' => Edit::Right,
        'h' => Edit::Backspace,
        'd' => Edit::Delete,
        'p' => Edit::Older,
        'n' => Edit::Newer,
        _ => return None,
    })
}

fn parse_all(keys: &[&str]) -> Vec<Key> {
    keys.iter().filter_map(|k| k.parse().ok()).collect()
}

/// The command names, for messages.
pub fn names() -> String {
    COMMANDS
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a command means anything on a live cluster (the mouse and the line editor's keys
/// always do).
pub fn applies_live(command: &str) -> bool {
    super::help_keys::NOT_COMMANDS.contains(&command)
        || COMMANDS.iter().any(|c| c.name == command && c.live)
}

/// The action of a mouse event: left clicks and the wheel.
pub fn map_mouse(m: &MouseEvent) -> Option<Action> {
    match m.kind {
        MouseEventKind::Down(ratatui::crossterm::event::MouseButton::Left) => {
            Some(Action::Click(m.column, m.row))
        }
        MouseEventKind::ScrollUp => Some(Action::Wheel(true, m.column, m.row)),
        MouseEventKind::ScrollDown => Some(Action::Wheel(false, m.column, m.row)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    fn press(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn every_default_key_parses_and_none_is_bound_twice() {
        let map = KeyMap::with(&[]).expect("the defaults have no conflict");
        for c in COMMANDS {
            assert_eq!(parse_all(c.defaults).len(), c.defaults.len(), "{}", c.name);
        }
        assert_eq!(map.map(&press('q'), false), Some(Action::Quit));
        assert_eq!(map.map(&press('x'), false), None);
        for (_, rows) in super::super::help_keys::SCREENS
            .iter()
            .flat_map(|&s| super::super::help_keys::help_of(s))
        {
            for (commands, _) in *rows {
                let keys_only = super::super::help_keys::NOT_COMMANDS;
                for name in commands.iter().filter(|n| !keys_only.contains(n)) {
                    assert!(COMMANDS.iter().any(|c| c.name == *name), "{name}");
                }
            }
        }
    }

    #[test]
    fn a_rebound_key_replaces_the_default_and_conflicts_are_refused() {
        let map = KeyMap::with(&[("quit".into(), vec!["x".into()])]).expect("rebound");
        assert_eq!(map.map(&press('x'), false), Some(Action::Quit));
        assert_eq!(map.map(&press('q'), false), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(map.map(&ctrl_c, false), Some(Action::Interrupt));
        assert_eq!(map.map(&ctrl_c, true), Some(Action::Interrupt));
        let e = KeyMap::with(&[("quit".into(), vec!["m".into()])]).expect_err("conflict");
        assert_eq!(e.command, "quit");
        assert!(e.message.contains("`quit` and `metric`") || e.message.contains("`metric`"));
        let e = KeyMap::with(&[("quitt".into(), vec!["x".into()])]).expect_err("unknown");
        assert!(
            e.message.contains("unknown command `quitt`"),
            "{}",
            e.message
        );
        let e = KeyMap::with(&[("help".into(), vec!["Ctrl-c".into()])]).expect_err("ctrl-c");
        assert!(e.message.contains("Ctrl-C always quits"));
        assert_eq!(map.map(&press('x'), true), Some(Action::SearchChar('x')));
    }

    #[test]
    fn while_typing_the_line_editor_s_keys_edit() {
        let map = KeyMap::default();
        let ctrl = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
        let key = |code| KeyEvent::new(code, KeyModifiers::NONE);
        assert_eq!(map.map(&ctrl('a'), true), Some(Action::Edit(Edit::Home)));
        assert_eq!(map.map(&ctrl('e'), true), Some(Action::Edit(Edit::End)));
        assert_eq!(
            map.map(&ctrl('u'), true),
            Some(Action::Edit(Edit::KillToStart))
        );
        assert_eq!(
            map.map(&ctrl('w'), true),
            Some(Action::Edit(Edit::KillWord))
        );
        assert_eq!(
            map.map(&key(KeyCode::Left), true),
            Some(Action::Edit(Edit::Left))
        );
        assert_eq!(
            map.map(&key(KeyCode::Home), true),
            Some(Action::Edit(Edit::Home))
        );
        assert_eq!(
            map.map(&key(KeyCode::Delete), true),
            Some(Action::Edit(Edit::Delete))
        );
        // Not typing: the arrows are commands again.
        assert_eq!(map.map(&key(KeyCode::Left), false), Some(Action::Left));
        assert_eq!(map.map(&ctrl('c'), true), Some(Action::Interrupt));
    }
}
