//! The help overlay's part of the UI state: open or not, how far it is scrolled and the filter
//! typed after `/`. While it is open the keys act on it alone: ↑/↓ (`k`/`j`) and PgUp/PgDn
//! scroll, `/` types a filter (Enter keeps it, Esc clears it), `?`, Esc and `q` close it, Ctrl-C
//! quits; every other key does nothing.
//!
//! Part of `ui`'s state: imports only `ui`; no I/O.

use super::action::Action;
use super::app::{App, Effects};
use super::input_mode::InputMode;

/// The help's scroll (lines past its first) and its filter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HelpState {
    pub scroll: usize,
    pub filter: String,
}

impl App {
    /// Applies an action while the help is open.
    pub(super) fn help_action(&mut self, action: Action) -> Effects {
        let (lines, page) = super::panes::help::extent(self);
        let max = lines.saturating_sub(page);
        let h = &mut self.help_view;
        let typing = self.input == InputMode::HelpFilter;
        match action {
            Action::Interrupt => {
                return Effects {
                    quit: true,
                    ..Effects::default()
                };
            }
            Action::SearchDone if typing => self.input = InputMode::Commands,
            Action::Escape if typing => {
                h.filter.clear();
                self.input = InputMode::Commands;
            }
            Action::StartSearch => self.input = InputMode::HelpFilter,
            Action::Up => h.scroll = h.scroll.min(max).saturating_sub(1),
            Action::Down => h.scroll = (h.scroll + 1).min(max),
            Action::Page(true) => h.scroll = h.scroll.min(max).saturating_sub(page.max(1)),
            Action::Page(false) => h.scroll = (h.scroll + page.max(1)).min(max),
            Action::ToggleHelp | Action::Escape | Action::Quit => self.close_help(),
            Action::Resize(w, hgt) => self.size = (w, hgt),
            _ => {}
        }
        Effects::default()
    }

    /// Opens the help at its top, unfiltered.
    pub(super) fn open_help(&mut self) {
        self.help = true;
        self.help_view = HelpState::default();
    }

    fn close_help(&mut self) {
        self.help = false;
        self.help_view = HelpState::default();
        self.input = InputMode::Commands;
    }
}
