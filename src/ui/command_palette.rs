//! The command palette (`:`, as in k9s and lazygit): every command of the screen shown, with its
//! keys as bound and what it does there (the help's rows), filtered as one types; ↑/↓ choose,
//! Enter runs the chosen command as its key would, Esc closes. It lists only what acts on the
//! screen shown and on the source (a live cluster has no speed, step or seek; the lab's screen
//! is only `shardtop lab`'s). Also `y`: the selected key-space cell's bounds, for the clipboard.
//!
//! Part of `ui`'s state: imports only `ui` and `view`; no I/O (the runtime sends the clipboard's
//! text to the terminal); the overlay is drawn by `panes::command_palette`.

use super::action::Action;
use super::app::{App, Effects, Focus};
use super::help_keys::help_of;
use super::input_mode::InputMode;
use super::keymap::{self, COMMANDS};

/// The palette's filter and the chosen row (an index into [`App::palette_entries`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaletteState {
    pub filter: String,
    pub selected: usize,
}

/// One row of the palette.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The command's name (as the configuration's `[keys]` table names it).
    pub command: &'static str,
    pub action: Action,
    /// Its keys as bound (empty when the configuration unbound them).
    pub keys: String,
    /// What it does on this screen, in the help's words (its own half of a row the help shares
    /// between two commands: `faster`, not `faster / slower`).
    pub what: String,
}

/// The words of the `i`th of a help row's `commands`: a row of two commands whose words hold one
/// `a / b` pair gives each its own side (`step 1 s forward / back` → `step 1 s forward` and
/// `step 1 s back`); any other row's words are every command's.
pub fn own_words(commands: &[&str], what: &str, i: usize) -> String {
    let Some((before, after)) = what.split_once(" / ") else {
        return what.to_string();
    };
    if commands.len() != 2 || after.contains(" / ") {
        return what.to_string();
    }
    let (head, first) = before.rsplit_once(' ').unwrap_or(("", before));
    let (second, tail) = after.split_once(' ').unwrap_or((after, ""));
    let own = if i == 0 { first } else { second };
    [head, own, tail]
        .iter()
        .filter(|w| !w.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// How well `needle` (lower case) matches a command: its name containing it ranks first (by
/// where it starts), then its keys or words containing it, then the needle's letters in order
/// but apart in the name (by how spread out they are); `None` for no match.
pub fn score(name: &str, words: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if let Some(at) = name.find(needle) {
        return Some(at);
    }
    if let Some(at) = words.to_lowercase().find(needle) {
        return Some(1_000 + at);
    }
    let mut wanted = needle.chars().peekable();
    let (mut first, mut last) = (None, 0);
    for (i, c) in name.chars().enumerate() {
        if wanted.peek() == Some(&c) {
            wanted.next();
            first.get_or_insert(i);
            last = i;
        }
    }
    if wanted.peek().is_some() {
        return None;
    }
    Some(10_000 + last - first.unwrap_or(0))
}

impl App {
    /// The palette's rows for the screen shown and the source, best match of the filter first
    /// (in the help's order among equals).
    pub fn palette_entries(&self) -> Vec<Entry> {
        let live = self.view.as_ref().is_some_and(|v| v.clock.is_live());
        let lab = self.view.as_ref().is_some_and(|v| v.lab.is_some());
        let needle = self
            .palette
            .as_ref()
            .map(|p| p.filter.to_lowercase())
            .unwrap_or_default();
        let mut seen = Vec::new();
        let mut out: Vec<(usize, Entry)> = Vec::new();
        for (_, rows) in help_of(self.screen) {
            for (commands, what) in *rows {
                for (i, &name) in commands.iter().enumerate() {
                    let Some(c) = COMMANDS.iter().find(|c| c.name == name) else {
                        continue; // the mouse: no command to run
                    };
                    if seen.contains(&name)
                        || name == "palette"
                        || (live && !keymap::applies_live(name))
                        || (!lab && name == "lab")
                    {
                        continue;
                    }
                    seen.push(name);
                    let keys = self.settings.keys.keys_of(name);
                    let what = own_words(commands, what, i);
                    if let Some(s) = score(name, &format!("{keys} {what}"), &needle) {
                        let entry = Entry {
                            command: name,
                            action: c.action,
                            keys,
                            what,
                        };
                        out.push((s, entry));
                    }
                }
            }
        }
        out.sort_by_key(|(s, _)| *s);
        out.into_iter().map(|(_, e)| e).collect()
    }

    /// Opens the palette, copies, or applies an action while the palette is open; `None` leaves
    /// the action to the rest of the reducer. Then the what-if mode's keys (`app_whatif`).
    pub(super) fn palette_first(&mut self, action: Action) -> Option<Effects> {
        if self.palette.is_some() {
            return Some(self.palette_action(action));
        }
        match action {
            Action::OpenPalette if !self.input.typing() => {
                self.palette = Some(PaletteState::default());
                self.input = InputMode::Palette;
                Some(Effects::default())
            }
            Action::Copy if !self.input.typing() => Some(self.copy_selection()),
            _ => self.whatif_first(action),
        }
    }

    fn palette_action(&mut self, action: Action) -> Effects {
        let entries = self.palette_entries();
        let count = entries.len();
        if action == Action::SearchDone {
            let chosen = self
                .palette
                .as_ref()
                .and_then(|p| entries.into_iter().nth(p.selected));
            self.close_palette();
            return chosen.map_or_else(Effects::default, |entry| self.update(entry.action));
        }
        let Some(p) = self.palette.as_mut() else {
            return Effects::default();
        };
        match action {
            Action::Interrupt => {
                return Effects {
                    quit: true,
                    ..Effects::default()
                };
            }
            Action::Up => p.selected = p.selected.min(count).saturating_sub(1),
            Action::Down => p.selected = (p.selected + 1).min(count.saturating_sub(1)),
            Action::Escape => self.close_palette(),
            Action::Resize(w, h) => self.size = (w, h),
            _ => {}
        }
        Effects::default()
    }

    fn close_palette(&mut self) {
        self.palette = None;
        self.input = InputMode::Commands;
    }

    /// `y`: the selected key-space cell's bounds as a mongosh document, for the clipboard; the
    /// notice says what was sent (or why nothing was).
    fn copy_selection(&mut self) -> Effects {
        let selection = (self.focus == Focus::KeySpace)
            .then(|| self.view.as_ref()?.collection.as_ref()?.selection.clone())
            .flatten();
        let Some(s) = selection else {
            self.notice = Some(
                "nothing to copy: select a cell of the key space first (Tab to it, ←/→)".into(),
            );
            return Effects::default();
        };
        let text = format!("{{min: {}, max: {}}}", s.min, s.max);
        let what = if s.count == 1 {
            "the chunk's bounds".to_string()
        } else {
            format!("the bounds of {} chunks", s.count)
        };
        self.notice = Some(format!("copied {what} (OSC 52): {text}"));
        Effects {
            clipboard: Some(text),
            ..Effects::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::score;

    #[test]
    fn names_rank_before_words_and_scattered_letters_match_names_only() {
        assert_eq!(score("quit", "q quit", ""), Some(0));
        assert_eq!(score("quit", "q quit", "qu"), Some(0));
        assert_eq!(score("history", "H history: per shard", "story"), Some(2));
        let words = score("heat", "w write heat on / off", "write").expect("in the words");
        assert!(words > score("key-visualizer", "", "vis").expect("in the name"));
        let scattered = score("key-visualizer", "", "kvz").expect("in order");
        assert!(scattered > words);
        // Letters scattered over the words do not match: "clear the search…" is not "heat".
        assert_eq!(
            score("clear", "Esc clear the search, filter or query", "heat"),
            None
        );
        assert_eq!(score("quit", "q", "tq"), None);
    }
}

#[cfg(test)]
mod own_words_tests {
    use super::own_words;

    #[test]
    fn each_command_of_a_shared_row_gets_its_own_side() {
        let pair = ["faster", "slower"];
        assert_eq!(own_words(&pair, "faster / slower", 1), "slower");
        let steps = ["step-forward", "step-back"];
        let what = "step 1 s forward / back (pauses)";
        assert_eq!(own_words(&steps, what, 0), "step 1 s forward (pauses)");
        assert_eq!(own_words(&steps, what, 1), "step 1 s back (pauses)");
        let moves = ["next-migration", "prev-migration"];
        assert_eq!(
            own_words(&moves, "next / previous migration", 1),
            "previous migration"
        );
        assert_eq!(own_words(&["pause"], "pause / resume", 0), "pause / resume");
        assert_eq!(own_words(&["up", "down"], "scroll", 1), "scroll");
    }
}
