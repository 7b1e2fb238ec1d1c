//! The key visualizer's part of the UI state: which screen is shown, the grid's size from the
//! terminal, its cursor, time zoom and key zoom.

use super::action::Action;
use super::app::App;
use crate::model::ShardKey;

/// The screen shown: the main layout, or one of the views over time in its place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Screen {
    #[default]
    Main,
    KeyVisualizer,
    History,
    /// `shardtop lab`'s candidates side by side.
    Lab,
}

/// The key visualizer's cursor (column, row from the lowest range), seconds per column, and
/// the key ranges zoomed into (innermost last).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyVisualizerState {
    pub cursor: (usize, usize),
    pub secs_per_col: u64,
    pub keys: Vec<(ShardKey, ShardKey)>,
}

impl Default for KeyVisualizerState {
    fn default() -> Self {
        Self {
            cursor: (usize::MAX, 0),
            secs_per_col: 1,
            keys: Vec::new(),
        }
    }
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

    /// [`App::key_visualizer_request`] under its former name.
    #[doc(hidden)]
    pub fn heatmap_request(&self) -> crate::view::key_visualizer::KeyVisualizerRequest {
        self.key_visualizer_request()
    }

    /// The key visualizer's grid: the terminal less the header, footer, borders, owner bands,
    /// axis, legend and cursor lines.
    pub fn key_visualizer_request(&self) -> crate::view::key_visualizer::KeyVisualizerRequest {
        let cols = usize::from(self.size.0.saturating_sub(5)).max(1);
        let rows = usize::from(self.size.1.saturating_sub(8)).clamp(1, 64);
        let h = &self.heatmap;
        crate::view::key_visualizer::KeyVisualizerRequest {
            cols,
            rows,
            secs_per_col: h.secs_per_col,
            cursor: (h.cursor.0.min(cols - 1), h.cursor.1.min(rows - 1)),
            keys: h.keys.last().cloned().map(Box::new),
        }
    }

    /// Arrows move the key visualizer's cursor (up is towards MaxKey), zoom in and out work on
    /// the keys around the cursor's range, `<`/`>` on time, Esc closes it; false for the
    /// actions it leaves to the main layout.
    pub(super) fn key_visualizer_action(&mut self, action: Action) -> bool {
        let req = self.key_visualizer_request();
        let (col, row) = req.cursor;
        let h = &mut self.heatmap;
        match action {
            Action::Escape => self.screen = Screen::Main,
            Action::Left => h.cursor = (col.saturating_sub(1), row),
            Action::Right => h.cursor = ((col + 1).min(req.cols - 1), row),
            Action::Up => h.cursor = (col, (row + 1).min(req.rows - 1)),
            Action::Down => h.cursor = (col, row.saturating_sub(1)),
            Action::TimeZoom(zoom_in) => h.secs_per_col = time_zoom(h.secs_per_col, zoom_in),
            Action::ZoomIn => {
                let bounds = self
                    .view
                    .as_ref()
                    .and_then(|v| v.heatmap.as_ref())
                    .map(|v| &v.bounds);
                if let Some((low, high)) = bounds.and_then(|b| b.get(row).zip(b.get(row + 1)))
                    && low < high
                {
                    h.keys.push((low.clone(), high.clone()));
                    h.cursor.1 = req.rows / 2;
                }
            }
            Action::ZoomOut => {
                h.keys.pop();
            }
            Action::ZoomReset => *h = KeyVisualizerState::default(),
            _ => return false,
        }
        true
    }
}
