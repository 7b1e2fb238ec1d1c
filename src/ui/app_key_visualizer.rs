//! The key visualizer's part of the UI state: the grid's size from the terminal, its cursor, time
//! zoom and key zoom. (Which screen is shown is `screen`'s.)

use super::action::Action;
use super::app::App;
use super::screen::time_zoom;
use crate::model::ShardKey;

/// The screen shown, where it was before it had its own module.
#[doc(hidden)]
use super::screen::Screen;

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

impl App {
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
