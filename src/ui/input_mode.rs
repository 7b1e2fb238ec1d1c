//! What the keys do now: commands (the key map), or typing into one of the footer's fields — the
//! event search, a query filter or the shard filter — and the typing actions' part of the
//! reducer. While typing, keys edit the text through the one line editor every input shares
//! (`line_editor`: cursor, deletions, history), Enter keeps it and Esc clears it.
//!
//! Part of `ui`'s state: imports only `ui`; no I/O.

use super::action::Action;
use super::app::{App, Effects, Focus};
use super::line_editor::Edit;

/// What the keys do now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum InputMode {
    /// Keys are commands, through the key map.
    #[default]
    Commands,
    /// Typing the event search.
    Search,
    /// Typing a query filter (its targeting is shown once kept).
    Query,
    /// Typing the shard filter (shard names and zones).
    ShardFilter,
    /// Typing the help's filter.
    HelpFilter,
    /// Typing the command palette's filter.
    Palette,
    /// Typing the what-if mode's changes.
    WhatIf,
}

impl InputMode {
    /// Whether keys are typed into the footer rather than taken as commands.
    pub fn typing(self) -> bool {
        self != Self::Commands
    }
}

impl App {
    /// Starting, keeping (Enter) and clearing (Esc) the footer's fields; Esc in the commands
    /// puts out the lit shard, else clears the shard filter, else the query, else the search and
    /// the log filter.
    pub(super) fn typing_action(&mut self, action: Action) {
        match action {
            Action::StartSearch if self.focus == Focus::Shards => {
                self.input = InputMode::ShardFilter;
            }
            Action::StartSearch => {
                self.focus = Focus::Events;
                self.input = InputMode::Search;
            }
            Action::StartQuery => {
                self.input = InputMode::Query;
                self.query_selected = !self.query_text.is_empty();
            }
            Action::SearchDone => {
                self.query_selected = false;
                if self.input == InputMode::Query {
                    let text = self.query_text.trim();
                    self.query = (!text.is_empty()).then(|| text.to_string());
                }
                self.input = InputMode::Commands;
            }
            // The lit shard first (the newest thing on screen), then the fields below.
            Action::Escape if !self.input.typing() && self.lit_shard.is_some() => {
                self.lit_shard = None;
            }
            Action::Escape
                if self.input == InputMode::ShardFilter
                    || (self.focus == Focus::Shards && !self.shard_filter.is_empty()) =>
            {
                self.input = InputMode::Commands;
                self.shard_filter.clear();
            }
            Action::Escape if self.input == InputMode::Query || self.query.is_some() => {
                self.input = InputMode::Commands;
                self.query_text.clear();
                self.query_selected = false;
                self.query = None;
            }
            Action::Escape => {
                self.input = InputMode::Commands;
                self.search.clear();
                self.log_filter = None;
            }
            _ => {}
        }
    }

    /// The text the input being typed edits.
    fn typed_text(&mut self) -> Option<&mut String> {
        match self.input {
            InputMode::Commands => None,
            InputMode::Search => Some(&mut self.search),
            InputMode::Query => Some(&mut self.query_text),
            InputMode::ShardFilter => Some(&mut self.shard_filter),
            InputMode::HelpFilter => Some(&mut self.help_view.filter),
            InputMode::Palette => self.palette.as_mut().map(|p| &mut p.filter),
            InputMode::WhatIf => Some(&mut self.whatif.text),
        }
    }

    /// While an input is typed, the keys that edit its text, through the one line editor; `None`
    /// leaves the action to the rest of the reducer (Enter, Esc, and `↑`/`↓` in the palette's
    /// and the help's lists).
    pub(super) fn edit_first(&mut self, action: Action) -> Option<Effects> {
        let input = self.input;
        let lists = matches!(input, InputMode::Palette | InputMode::HelpFilter);
        let edit = match action {
            _ if input == InputMode::Commands => return None,
            Action::SearchChar(c) => Edit::Insert(c),
            Action::SearchBackspace => Edit::Backspace,
            Action::Edit(e) => e,
            Action::Up if !lists => Edit::Older,
            Action::Down if !lists => Edit::Newer,
            _ => return None,
        };
        // The old query filter shown selected: an edit replaces it, a move unselects it.
        if input == InputMode::Query && std::mem::take(&mut self.query_selected) {
            if edit.deletes_or_inserts() {
                self.query_text.clear();
            }
            if !matches!(edit, Edit::Insert(_)) && edit.deletes_or_inserts() {
                return Some(Effects::default());
            }
        }
        let mut line = std::mem::take(&mut self.line);
        let changed = self
            .typed_text()
            .is_some_and(|text| line.apply(input, text, edit));
        self.line = line;
        if changed {
            match input {
                InputMode::Palette => {
                    if let Some(p) = self.palette.as_mut() {
                        p.selected = 0;
                    }
                }
                InputMode::HelpFilter => self.help_view.scroll = 0,
                InputMode::ShardFilter => self.shard_row = 0,
                InputMode::WhatIf => self.whatif.error = None,
                InputMode::Commands | InputMode::Search | InputMode::Query => {}
            }
        }
        Some(Effects::default())
    }

    /// After an action: an input left by Enter keeps its text in its history; an input started
    /// or left puts the editor's cursor back at the end.
    pub(super) fn after_typing(&mut self, was: InputMode, action: Action) {
        if self.input == was {
            return;
        }
        if action == Action::SearchDone {
            let text = match was {
                InputMode::Search => Some(&self.search),
                InputMode::Query => Some(&self.query_text),
                InputMode::ShardFilter => Some(&self.shard_filter),
                InputMode::WhatIf => Some(&self.whatif.text),
                InputMode::Commands | InputMode::HelpFilter | InputMode::Palette => None,
            };
            if let Some(text) = text.cloned() {
                self.line.keep(was, &text);
            }
        }
        self.line.reset();
    }
}
