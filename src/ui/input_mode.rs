//! What the keys do now: commands (the key map), or typing into one of the footer's fields — the
//! event search, a query filter or the shard filter — and the typing actions' part of the
//! reducer. While typing, keys are characters, Backspace, Enter (keep) and Esc (clear).
//!
//! Part of `ui`'s state: imports only `ui`; no I/O.

use super::action::Action;
use super::app::{App, Focus};

/// What the keys do now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    /// Starting, typing, keeping (Enter) and clearing (Esc) the footer's fields; Esc in the
    /// commands clears the shard filter, else the query, else the search and the log filter.
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
            Action::SearchChar(c) => match self.input {
                InputMode::Query => {
                    if std::mem::take(&mut self.query_selected) {
                        self.query_text.clear();
                    }
                    self.query_text.push(c);
                }
                InputMode::ShardFilter => {
                    self.shard_filter.push(c);
                    self.shard_scroll = 0;
                }
                InputMode::Search
                | InputMode::Commands
                | InputMode::HelpFilter
                | InputMode::Palette
                | InputMode::WhatIf => {
                    self.search.push(c);
                }
            },
            Action::SearchBackspace => {
                match self.input {
                    InputMode::Query if std::mem::take(&mut self.query_selected) => {
                        self.query_text.clear();
                        None
                    }
                    InputMode::Query => self.query_text.pop(),
                    InputMode::ShardFilter => self.shard_filter.pop(),
                    InputMode::Search
                    | InputMode::Commands
                    | InputMode::HelpFilter
                    | InputMode::Palette
                    | InputMode::WhatIf => self.search.pop(),
                };
            }
            Action::SearchDone => {
                self.query_selected = false;
                if self.input == InputMode::Query {
                    let text = self.query_text.trim();
                    self.query = (!text.is_empty()).then(|| text.to_string());
                }
                self.input = InputMode::Commands;
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
}
