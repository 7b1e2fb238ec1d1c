//! The history view's part of the UI state: its time zoom and the shards scrolled past.

use super::action::Action;
use super::app::App;
use super::screen::{Screen, time_zoom};

/// The history view's seconds per column and shard rows scrolled past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryState {
    pub secs_per_col: u64,
    pub scroll: usize,
}

impl Default for HistoryState {
    fn default() -> Self {
        Self {
            secs_per_col: 1,
            scroll: 0,
        }
    }
}

/// The width the history's chart leaves of the terminal (borders, its axis labels).
pub const CHART_MARGIN: usize = 14;

impl App {
    /// The history view's columns: the chart's width (the rows' sparklines show the newest
    /// of them).
    pub fn history_request(&self) -> crate::view::history::HistoryRequest {
        let width = usize::from(self.size.0);
        crate::view::history::HistoryRequest {
            cols: width.saturating_sub(CHART_MARGIN).max(4),
            secs_per_col: self.history.secs_per_col,
        }
    }

    /// Up and down scroll the shards, `<`/`>` zoom time, Esc closes the view; false for the
    /// actions it leaves to the main layout.
    pub(super) fn history_action(&mut self, action: Action) -> bool {
        let h = &mut self.history;
        match action {
            Action::Escape => self.screen = Screen::Main,
            Action::Up => h.scroll = h.scroll.saturating_sub(1),
            Action::Down => {
                let shards = self
                    .view
                    .as_ref()
                    .and_then(|v| v.history.as_ref())
                    .map_or(0, |v| v.shards.len());
                h.scroll = (h.scroll + 1).min(shards.saturating_sub(1));
            }
            Action::TimeZoom(zoom_in) => h.secs_per_col = time_zoom(h.secs_per_col, zoom_in),
            Action::ZoomReset => *h = HistoryState::default(),
            _ => return false,
        }
        true
    }
}
