//! Which screen is shown — the main layout, or one of the views over time (the key visualizer,
//! the history) or the lab's candidates in its place — and the time zoom those views share.
//!
//! Part of `ui`'s state: imports only `ui`; no I/O.

use super::app::App;

/// The screen shown: the main layout, or one of the views over time in its place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Screen {
    #[default]
    Main,
    KeyVisualizer,
    History,
    /// `shardtop lab`'s candidates side by side.
    Lab,
    /// The what-if mode: "now" and the fork side by side.
    WhatIf,
}

/// The coarsest time zoom of the views over time, in seconds per column.
pub const MAX_SECS_PER_COL: u64 = 64;

/// Halves (in) or doubles (out) seconds per column, within 1 to [`MAX_SECS_PER_COL`].
pub fn time_zoom(secs: u64, zoom_in: bool) -> u64 {
    if zoom_in {
        (secs / 2).max(1)
    } else {
        (secs * 2).min(MAX_SECS_PER_COL)
    }
}

impl App {
    /// Shows `screen` in place of the main layout, or the main layout when it is shown.
    pub(super) fn toggle_screen(&mut self, screen: Screen) {
        self.screen = if self.screen == screen {
            Screen::Main
        } else {
            screen
        };
    }
}
