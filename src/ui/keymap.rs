//! Key bindings: one table, used both to map key presses and to draw the help overlay.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};

use super::action::Action;

/// One binding as the help overlay lists it.
pub struct Binding {
    pub keys: &'static str,
    pub what: &'static str,
}

/// Every key, grouped as the help shows them.
pub const HELP: &[(&str, &[Binding])] = &[
    (
        "general",
        &[
            Binding {
                keys: "q  Ctrl-C",
                what: "quit",
            },
            Binding {
                keys: "?",
                what: "help (any key closes it)",
            },
            Binding {
                keys: "Tab  Shift-Tab",
                what: "next / previous pane",
            },
            Binding {
                keys: "c  C",
                what: "next / previous collection",
            },
        ],
    ),
    (
        "time",
        &[
            Binding {
                keys: "Space",
                what: "pause / resume",
            },
            Binding {
                keys: "+  -",
                what: "faster / slower",
            },
            Binding {
                keys: ".  ,",
                what: "step 1 s forward / back (pauses)",
            },
            Binding {
                keys: "]  [",
                what: "jump 10 s forward / back",
            },
            Binding {
                keys: "n  p",
                what: "next / previous migration",
            },
        ],
    ),
    (
        "key space (focused)",
        &[
            Binding {
                keys: "←  →  h  l",
                what: "select a cell (pans at the edges)",
            },
            Binding {
                keys: "i  Enter  o",
                what: "zoom in / in / out around the selection",
            },
            Binding {
                keys: "0",
                what: "whole key space",
            },
        ],
    ),
    (
        "views",
        &[
            Binding {
                keys: "t",
                what: "query targeting: type a filter (JSON); ◆ marks the chunks asked",
            },
            Binding {
                keys: "mouse",
                what: "click focuses a pane or selects a cell; wheel scrolls, zooms",
            },
            Binding {
                keys: "m",
                what: "shard bars: chunk count / data size first",
            },
            Binding {
                keys: "z",
                what: "zone bands on / off",
            },
            Binding {
                keys: "w",
                what: "write heat on / off",
            },
        ],
    ),
    (
        "events (focused)",
        &[
            Binding {
                keys: "↑  ↓  k  j",
                what: "scroll (back at the bottom it follows)",
            },
            Binding {
                keys: "f",
                what: "filter: all, splits, migrations, jumbo, …",
            },
            Binding {
                keys: "/",
                what: "search text (Enter keeps, Esc clears)",
            },
        ],
    ),
];

/// The action of a key press; `None` for keys without a binding and for releases/repeats of
/// other kinds. While a search is being typed, printable keys go to the search.
pub fn map(key: &KeyEvent, searching: bool) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return matches!(key.code, KeyCode::Char('c' | 'q')).then_some(Action::Quit);
    }
    if searching {
        return match key.code {
            KeyCode::Char(c) => Some(Action::SearchChar(c)),
            KeyCode::Backspace => Some(Action::SearchBackspace),
            KeyCode::Enter => Some(Action::SearchDone),
            KeyCode::Esc => Some(Action::Escape),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Char('q') => Action::Quit,
        KeyCode::Char('?') => Action::ToggleHelp,
        KeyCode::Char(' ') => Action::TogglePause,
        KeyCode::Char('+' | '=') => Action::Faster,
        KeyCode::Char('-' | '_') => Action::Slower,
        KeyCode::Char('.') => Action::Step(true),
        KeyCode::Char(',') => Action::Step(false),
        KeyCode::Char(']') => Action::Seek(true),
        KeyCode::Char('[') => Action::Seek(false),
        KeyCode::Char('n') => Action::Migration(true),
        KeyCode::Char('p') => Action::Migration(false),
        KeyCode::Tab => Action::FocusNext,
        KeyCode::BackTab => Action::FocusPrev,
        KeyCode::Char('c') => Action::Collection(true),
        KeyCode::Char('C') => Action::Collection(false),
        KeyCode::Left | KeyCode::Char('h') => Action::Left,
        KeyCode::Right | KeyCode::Char('l') => Action::Right,
        KeyCode::Up | KeyCode::Char('k') | KeyCode::PageUp => Action::Up,
        KeyCode::Down | KeyCode::Char('j') | KeyCode::PageDown | KeyCode::End => Action::Down,
        KeyCode::Char('i') | KeyCode::Enter => Action::ZoomIn,
        KeyCode::Char('o') => Action::ZoomOut,
        KeyCode::Char('0') => Action::ZoomReset,
        KeyCode::Char('m') => Action::ToggleMetric,
        KeyCode::Char('z') => Action::ToggleZones,
        KeyCode::Char('w') => Action::ToggleHeat,
        KeyCode::Char('f') => Action::CycleLogFilter,
        KeyCode::Char('/') => Action::StartSearch,
        KeyCode::Char('t') => Action::StartQuery,
        KeyCode::Esc => Action::Escape,
        _ => return None,
    })
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
