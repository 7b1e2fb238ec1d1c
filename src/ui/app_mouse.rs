//! The mouse's part of the reducer: a click focuses the pane under it (and selects a cell of the
//! key-space strip, or puts the events pane's cursor on the line), the wheel scrolls the events
//! and the shard list and zooms the key space, over the same layout the panes are drawn in.
//!
//! Part of `ui`'s state: imports only `ui`; no I/O.

use super::action::Action;
use super::app::{App, Focus};

impl App {
    /// The pane under (x, y), and the layout it came from.
    fn pane_at(&self, x: u16, y: u16) -> Option<(Focus, super::layout::Areas)> {
        let area = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        let shards = self.view.as_ref().map_or(3, |v| v.shards.len());
        let areas = super::layout::layout(area, shards)?;
        let at = ratatui::layout::Position::new(x, y);
        let focus = [
            (areas.keyspace, Focus::KeySpace),
            (areas.shards, Focus::Shards),
            (areas.balancer, Focus::Balancer),
        ]
        .into_iter()
        .chain(areas.events.map(|e| (e, Focus::Events)))
        .find(|(r, _)| r.contains(at))
        .map(|(_, f)| f)?;
        Some((focus, areas))
    }

    /// A click focuses the pane; on the key-space strip it selects the cell, on an event it
    /// puts the cursor there.
    pub(super) fn click(&mut self, x: u16, y: u16) {
        let Some((focus, areas)) = self.pane_at(x, y) else {
            return;
        };
        self.set_focus(focus);
        let strip_row = areas.keyspace.y + 2;
        let cells = self
            .view
            .as_ref()
            .and_then(|v| v.collection.as_ref())
            .map_or(0, |c| c.cells.len());
        let width = usize::from(areas.keyspace.width.saturating_sub(2));
        if focus == Focus::KeySpace && y == strip_row && cells > 0 && width > 0 {
            let col = usize::from(x.saturating_sub(areas.keyspace.x + 1)).min(width - 1);
            self.cursor = (0..cells).rfind(|&i| i * width / cells <= col).unwrap_or(0);
        }
        if focus == Focus::Events {
            self.click_event(y);
        }
    }

    /// Puts the events pane's cursor on the line at row `y`, if one is there.
    fn click_event(&mut self, y: u16) {
        let Some(inner) = super::panes::events::inner_area(self) else {
            return;
        };
        let len = self.visible_log().count();
        let w = super::panes::events::window(self, inner, len);
        let first = usize::from(inner.y) + w.notes;
        let row = usize::from(y);
        if row >= first && row < first + (w.end - w.start) {
            self.log_row = w.end - w.start - 1 - (row - first);
        }
    }

    /// The wheel scrolls the events and the shard list, and zooms the key space.
    pub(super) fn wheel(&mut self, up: bool, x: u16, y: u16) {
        let Some((focus, _)) = self.pane_at(x, y) else {
            return;
        };
        if focus == Focus::Events {
            // The log scrolls under the cursor, as the wheel scrolls a page.
            self.log_scroll = if up {
                self.log_scroll + 1
            } else {
                self.log_scroll.saturating_sub(1)
            };
            return;
        }
        let saved = self.focus;
        self.focus = focus;
        self.arrow(if up { Action::Up } else { Action::Down });
        self.focus = saved;
    }
}
