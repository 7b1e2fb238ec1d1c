//! The one line editor every text input of the TUI shares — the event search (`/`), the query
//! filter (`t`), the shard filter (`/` with the Shards pane focused), the help's filter, the
//! command palette (`:`) and the what-if prompt (`W`): `←`/`→`, `Home`/`End` (`Ctrl-A`/`Ctrl-E`),
//! `Backspace`/`Delete`, `Ctrl-U` (delete to the start), `Ctrl-K` (to the end), `Ctrl-W` (the word
//! before the cursor), and `↑`/`↓` through the texts kept earlier (Enter) in the same input, as a
//! shell's history (the palette's and the help's `↑`/`↓` move their lists instead).
//!
//! Part of `ui`'s state: plain values on the text of the input being typed; no I/O. The text
//! itself stays in the field the rest of the UI reads (`App::search`, `App::query_text`, …); the
//! editor keeps the cursor and the histories.

use std::collections::BTreeMap;

use super::input_mode::InputMode;

/// Texts kept per input.
pub const HISTORY_KEEP: usize = 50;

/// One edit of the text being typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    Insert(char),
    /// Deletes the character before the cursor.
    Backspace,
    /// Deletes the character under the cursor.
    Delete,
    Left,
    Right,
    /// `Home` or `Ctrl-A`.
    Home,
    /// `End` or `Ctrl-E`.
    End,
    /// `Ctrl-U`: deletes from the start to the cursor.
    KillToStart,
    /// `Ctrl-K`: deletes from the cursor to the end.
    KillToEnd,
    /// `Ctrl-W`: deletes the word before the cursor (and the spaces after it).
    KillWord,
    /// `↑`: the text kept before the one shown.
    Older,
    /// `↓`: the text kept after the one shown, then the text being typed.
    Newer,
}

impl Edit {
    /// Whether the edit changes the text (rather than moving the cursor or browsing).
    pub fn deletes_or_inserts(self) -> bool {
        matches!(
            self,
            Self::Insert(_)
                | Self::Backspace
                | Self::Delete
                | Self::KillToStart
                | Self::KillToEnd
                | Self::KillWord
        )
    }
}

/// The cursor of the input being typed and each input's history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineEditor {
    /// The cursor, in characters from the start; `None`: at the end of the text.
    cursor: Option<usize>,
    histories: BTreeMap<InputMode, Vec<String>>,
    /// While browsing the history: the entry shown (an index into it) and the text typed before.
    browsing: Option<(usize, String)>,
}

impl LineEditor {
    /// A new input starts (or the typed one ends): the cursor goes to the end of the text.
    pub fn reset(&mut self) {
        self.cursor = None;
        self.browsing = None;
    }

    /// The cursor's place in `text`, in characters.
    pub fn cursor(&self, text: &str) -> usize {
        let len = text.chars().count();
        self.cursor.map_or(len, |c| c.min(len))
    }

    /// `text` split at the cursor, for drawing it (`before▏after`).
    pub fn split<'a>(&self, text: &'a str) -> (&'a str, &'a str) {
        text.split_at(byte_at(text, self.cursor(text)))
    }

    /// Keeps `text` in `input`'s history (Enter): not empty, not the same as the last one kept.
    pub fn keep(&mut self, input: InputMode, text: &str) {
        let text = text.trim();
        let history = self.histories.entry(input).or_default();
        if !text.is_empty() && history.last().map(String::as_str) != Some(text) {
            history.push(text.to_string());
            if history.len() > HISTORY_KEEP {
                history.remove(0);
            }
        }
    }

    /// The texts kept in `input`, oldest first.
    pub fn history(&self, input: InputMode) -> &[String] {
        self.histories.get(&input).map_or(&[], Vec::as_slice)
    }

    /// Applies `edit` to `text`, the text of `input`; returns whether the text changed.
    pub fn apply(&mut self, input: InputMode, text: &mut String, edit: Edit) -> bool {
        let len = text.chars().count();
        let at = self.cursor(text);
        let before = text.clone();
        let cursor = match edit {
            Edit::Insert(c) => {
                text.insert(byte_at(text, at), c);
                at + 1
            }
            Edit::Backspace if at > 0 => {
                text.remove(byte_at(text, at - 1));
                at - 1
            }
            Edit::Delete if at < len => {
                text.remove(byte_at(text, at));
                at
            }
            Edit::Backspace | Edit::Delete => at,
            Edit::Left => at.saturating_sub(1),
            Edit::Right => (at + 1).min(len),
            Edit::Home => 0,
            Edit::End => len,
            Edit::KillToStart => {
                text.replace_range(..byte_at(text, at), "");
                0
            }
            Edit::KillToEnd => {
                text.truncate(byte_at(text, at));
                at
            }
            Edit::KillWord => {
                let start = word_start(text, at);
                text.replace_range(byte_at(text, start)..byte_at(text, at), "");
                start
            }
            Edit::Older | Edit::Newer => {
                self.browse(input, text, edit == Edit::Older);
                return *text != before;
            }
        };
        if edit.deletes_or_inserts() {
            self.browsing = None;
        }
        self.cursor = Some(cursor);
        *text != before
    }

    /// `↑`/`↓`: the older or newer kept text in place of the one shown; past the newest, the
    /// text that was being typed comes back.
    fn browse(&mut self, input: InputMode, text: &mut String, older: bool) {
        let n = self.history(input).len();
        let next = match (&self.browsing, older) {
            (None, true) if n > 0 => Some(n - 1),
            (None, _) => return,
            (Some((i, _)), true) => Some(i.saturating_sub(1)),
            (Some((i, _)), false) if i + 1 < n => Some(i + 1),
            (Some(_), false) => None,
        };
        match next {
            Some(i) => {
                let shown = self.history(input)[i].clone();
                let draft = match self.browsing.take() {
                    Some((_, draft)) => draft,
                    None => text.clone(),
                };
                *text = shown;
                self.browsing = Some((i, draft));
            }
            None => {
                if let Some((_, draft)) = self.browsing.take() {
                    *text = draft;
                }
            }
        }
        self.cursor = None;
    }
}

/// The byte offset of the `chars`th character of `text` (its length past the end).
fn byte_at(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

/// Where the word before `at` starts (a shell's Ctrl-W: spaces before the cursor, then the word).
fn word_start(text: &str, at: usize) -> usize {
    let chars: Vec<char> = text.chars().take(at).collect();
    let mut i = chars.len();
    while i > 0 && chars[i - 1].is_whitespace() {
        i -= 1;
    }
    while i > 0 && !chars[i - 1].is_whitespace() {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, edits: &[Edit]) -> (String, usize) {
        let mut e = LineEditor::default();
        let mut t = text.to_string();
        for &edit in edits {
            e.apply(InputMode::Search, &mut t, edit);
        }
        let c = e.cursor(&t);
        (t, c)
    }

    #[test]
    fn moves_inserts_and_deletes_where_the_cursor_is() {
        use Edit::*;
        assert_eq!(run("abc", &[Left, Insert('X')]), ("abXc".into(), 3));
        assert_eq!(run("abc", &[Home, Insert('>')]), (">abc".into(), 1));
        assert_eq!(run("abc", &[Home, Delete, End, Backspace]), ("b".into(), 1));
        assert_eq!(run("abc", &[Home, Left, Backspace]), ("abc".into(), 0));
        assert_eq!(run("abc", &[Right, Delete]), ("abc".into(), 3));
        assert_eq!(run("ab cd", &[Left, Left, KillToStart]), ("cd".into(), 0));
        assert_eq!(run("ab cd", &[Left, Left, KillToEnd]), ("ab ".into(), 3));
        assert_eq!(run("--drain s1  ", &[KillWord]), ("--drain ".into(), 8));
        assert_eq!(run("é€x", &[Left, Backspace]), ("éx".into(), 1));
    }

    #[test]
    fn up_and_down_walk_the_inputs_own_history_and_come_back_to_the_draft() {
        let mut e = LineEditor::default();
        e.keep(InputMode::Query, "{_id: 1}");
        e.keep(InputMode::Query, "{_id: 2}");
        e.keep(InputMode::Query, "{_id: 2}");
        e.keep(InputMode::Query, "  ");
        e.keep(InputMode::Search, "split");
        assert_eq!(e.history(InputMode::Query), ["{_id: 1}", "{_id: 2}"]);
        let mut t = "{u".to_string();
        e.apply(InputMode::Query, &mut t, Edit::Older);
        assert_eq!(t, "{_id: 2}");
        e.apply(InputMode::Query, &mut t, Edit::Older);
        e.apply(InputMode::Query, &mut t, Edit::Older);
        assert_eq!(t, "{_id: 1}");
        assert_eq!(e.cursor(&t), t.chars().count());
        e.apply(InputMode::Query, &mut t, Edit::Newer);
        assert_eq!(t, "{_id: 2}");
        e.apply(InputMode::Query, &mut t, Edit::Newer);
        assert_eq!(t, "{u");
        let mut none = String::new();
        assert!(!e.apply(InputMode::ShardFilter, &mut none, Edit::Older));
    }
}
