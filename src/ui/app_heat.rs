//! The key visualizer's part of the UI state: its grid's size from the terminal, its cursor and
//! time zoom.

use super::action::Action;
use super::app::App;

impl App {
    /// The key visualizer's grid: the terminal less the header, footer, borders, owner band,
    /// axis, legend and cursor lines.
    pub fn heatmap_request(&self) -> crate::view::heatmap::HeatmapRequest {
        let cols = usize::from(self.size.0.saturating_sub(5)).max(1);
        let rows = usize::from(self.size.1.saturating_sub(7)).clamp(1, 64);
        crate::view::heatmap::HeatmapRequest {
            cols,
            rows,
            secs_per_col: self.heat_zoom,
            cursor: (
                self.heat_cursor.0.min(cols - 1),
                self.heat_cursor.1.min(rows - 1),
            ),
        }
    }

    /// Arrows move the key visualizer's cursor (up is towards MaxKey), `i`/`o` zoom its time,
    /// Esc closes it; false for the actions it leaves to the main layout.
    pub(super) fn heat_action(&mut self, action: Action) -> bool {
        if action == Action::Escape {
            self.key_visualizer = false;
            return true;
        }
        if !matches!(
            action,
            Action::Left
                | Action::Right
                | Action::Up
                | Action::Down
                | Action::ZoomIn
                | Action::ZoomOut
        ) {
            return false;
        }
        let req = self.heatmap_request();
        let (col, row) = req.cursor;
        self.heat_cursor = match action {
            Action::Left => (col.saturating_sub(1), row),
            Action::Right => ((col + 1).min(req.cols - 1), row),
            Action::Up => (col, (row + 1).min(req.rows - 1)),
            Action::Down => (col, row.saturating_sub(1)),
            _ => (col, row),
        };
        match action {
            Action::ZoomIn => self.heat_zoom = (self.heat_zoom / 2).max(1),
            Action::ZoomOut => self.heat_zoom = (self.heat_zoom * 2).min(64),
            _ => {}
        }
        true
    }
}
