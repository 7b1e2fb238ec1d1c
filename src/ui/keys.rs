//! One key as a binding names it (`q`, `Space`, `Shift-Tab`, `Ctrl-d`, `F5`), read from its text
//! and matched against crossterm's key events.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key: its code and whether Ctrl or Alt is held (Shift is part of the character).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub code: Code,
    pub ctrl: bool,
    pub alt: bool,
}

/// The keys a binding may name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    Char(char),
    Left,
    Right,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Insert,
    F(u8),
}

const NAMED: &[(&str, Code, &str)] = &[
    ("Left", Code::Left, "←"),
    ("Right", Code::Right, "→"),
    ("Up", Code::Up, "↑"),
    ("Down", Code::Down, "↓"),
    ("PageUp", Code::PageUp, "PgUp"),
    ("PageDown", Code::PageDown, "PgDn"),
    ("Home", Code::Home, "Home"),
    ("End", Code::End, "End"),
    ("Enter", Code::Enter, "Enter"),
    ("Esc", Code::Esc, "Esc"),
    ("Tab", Code::Tab, "Tab"),
    ("Shift-Tab", Code::BackTab, "Shift-Tab"),
    ("Backspace", Code::Backspace, "Backspace"),
    ("Delete", Code::Delete, "Del"),
    ("Insert", Code::Insert, "Ins"),
    ("Space", Code::Char(' '), "Space"),
];

impl Key {
    pub const fn plain(code: Code) -> Self {
        Self {
            code,
            ctrl: false,
            alt: false,
        }
    }

    /// Ctrl-C, which always quits (it is not rebindable, so a mistake cannot trap the user).
    pub const CTRL_C: Self = Self {
        code: Code::Char('c'),
        ctrl: true,
        alt: false,
    };

    /// The key of a press, if a binding can name it.
    pub fn of(event: &KeyEvent) -> Option<Self> {
        let code = match event.code {
            KeyCode::Char(c) => Code::Char(c),
            KeyCode::Left => Code::Left,
            KeyCode::Right => Code::Right,
            KeyCode::Up => Code::Up,
            KeyCode::Down => Code::Down,
            KeyCode::PageUp => Code::PageUp,
            KeyCode::PageDown => Code::PageDown,
            KeyCode::Home => Code::Home,
            KeyCode::End => Code::End,
            KeyCode::Enter => Code::Enter,
            KeyCode::Esc => Code::Esc,
            KeyCode::Tab => Code::Tab,
            KeyCode::BackTab => Code::BackTab,
            KeyCode::Backspace => Code::Backspace,
            KeyCode::Delete => Code::Delete,
            KeyCode::Insert => Code::Insert,
            KeyCode::F(n) => Code::F(n),
            _ => return None,
        };
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        let code = match code {
            // Ctrl with a letter arrives as the letter, upper case when Shift is held too.
            Code::Char(c) if ctrl => Code::Char(c.to_ascii_lowercase()),
            other => other,
        };
        Some(Self {
            code,
            ctrl,
            alt: event.modifiers.contains(KeyModifiers::ALT),
        })
    }

    /// How the help and the footer show the key.
    pub fn label(self) -> String {
        let base = match self.code {
            Code::Char(c) => c.to_string(),
            Code::F(n) => format!("F{n}"),
            code => NAMED
                .iter()
                .find(|(_, c, _)| *c == code)
                .map_or_else(String::new, |(_, _, shown)| (*shown).to_string()),
        };
        let base = if self.code == Code::Char(' ') {
            "Space".to_string()
        } else {
            base
        };
        let ctrl = if self.ctrl { "Ctrl-" } else { "" };
        let alt = if self.alt { "Alt-" } else { "" };
        format!("{ctrl}{alt}{base}")
    }
}

impl std::str::FromStr for Key {
    type Err = String;

    /// `q`, `Q`, `?`, `Space`, `Enter`, `Left`, `Shift-Tab`, `F5`, `Ctrl-d`, `Alt-x`.
    fn from_str(text: &str) -> Result<Self, String> {
        let mut rest = text;
        let mut key = Self::plain(Code::Char(' '));
        loop {
            if let Some(r) = strip_prefix_ci(rest, "ctrl-").filter(|r| !r.is_empty()) {
                key.ctrl = true;
                rest = r;
            } else if let Some(r) = strip_prefix_ci(rest, "alt-").filter(|r| !r.is_empty()) {
                key.alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        key.code = match (chars.next(), chars.next()) {
            (Some(c), None) if !c.is_control() => Code::Char(if key.ctrl {
                c.to_ascii_lowercase()
            } else {
                c
            }),
            _ => named(rest).ok_or_else(|| {
                format!(
                    "{text:?} is not a key: give one character, or Space, Enter, Esc, Tab, Shift-Tab, Backspace, Left, Right, Up, Down, PageUp, PageDown, Home, End, Delete, Insert, F1–F12, with Ctrl- or Alt- before it if wanted"
                )
            })?,
        };
        Ok(key)
    }
}

fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

fn named(text: &str) -> Option<Code> {
    if let Some(n) = text
        .strip_prefix(['F', 'f'])
        .and_then(|n| n.parse::<u8>().ok())
        .filter(|n| (1..=12).contains(n))
    {
        return Some(Code::F(n));
    }
    NAMED
        .iter()
        .find(|(name, _, _)| name.eq_ignore_ascii_case(text))
        .map(|(_, code, _)| *code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Key {
        text.parse().expect("a key")
    }

    #[test]
    fn keys_read_and_show_as_written() {
        assert_eq!(key("q"), Key::plain(Code::Char('q')));
        assert_eq!(key("Q"), Key::plain(Code::Char('Q')));
        assert_eq!(key("space"), Key::plain(Code::Char(' ')));
        assert_eq!(key("Shift-Tab"), Key::plain(Code::BackTab));
        assert_eq!(key("F5"), Key::plain(Code::F(5)));
        assert_eq!(key("Ctrl-D"), Key::CTRL_C.with_code(Code::Char('d')));
        assert_eq!(key("-"), Key::plain(Code::Char('-')));
        assert_eq!(key("Left").label(), "←");
        assert_eq!(key("Ctrl-x").label(), "Ctrl-x");
        assert_eq!(key(" ").label(), "Space");
        for bad in ["", "qq", "F13", "Ctrl-", "Hyper-q", "\u{7}"] {
            assert!(bad.parse::<Key>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn a_press_is_the_key_it_names() {
        let ev = KeyEvent::new(
            KeyCode::Char('D'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT,
        );
        assert_eq!(Key::of(&ev), Some(key("Ctrl-d")));
        let ev = KeyEvent::new(KeyCode::Char('C'), KeyModifiers::SHIFT);
        assert_eq!(Key::of(&ev), Some(key("C")));
    }

    impl Key {
        fn with_code(mut self, code: Code) -> Self {
            self.code = code;
            self
        }
    }
}
