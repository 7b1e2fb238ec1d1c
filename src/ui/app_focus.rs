//! The panes' navigation in the reducer: the focus and its order (Tab and Shift-Tab take the
//! panes as the screen draws them: Shards, Balancer, Key space, Events), the arrows and pages,
//! the key space's cursor and zoom, and the Shards pane's row cursor — `↑`/`↓` (`k`/`j`), PgUp/PgDn
//! and the wheel move it over the list as sorted and filtered; `Enter` lights the shard under it
//! in the key space (its cells keep their colour, the others dim; k9s's jump from a row to what it
//! owns), `Enter` again or Esc clears it.
//!
//! Part of `ui`'s state: imports only `ui` and `view`; no I/O.

use super::action::Action;
use super::app::{App, Focus};
use super::screen::Screen;

impl App {
    /// Moves the focus; the key space starts its selection at the hottest chunk (the most written
    /// of the last 60 s, hotspot or not).
    pub(super) fn set_focus(&mut self, focus: Focus) {
        if focus == Focus::KeySpace && self.focus != Focus::KeySpace {
            let hot = self
                .view
                .as_ref()
                .and_then(|v| v.collection.as_ref())
                .and_then(|c| {
                    let h = c.hot.as_ref()?.ordinal;
                    c.cells
                        .iter()
                        .position(|cell| (cell.first..cell.first + cell.count).contains(&h))
                });
            if let Some(i) = hot {
                self.cursor = i;
            }
        }
        self.focus = focus;
    }

    /// Whether the events pane is drawn (not on a short terminal, not under the explain panel):
    /// Tab skips it otherwise.
    pub(super) fn events_shown(&self) -> bool {
        let area = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        let shards = self.view.as_ref().map_or(3, |v| v.shards.len());
        let drawn = super::layout::layout(area, shards).is_some_and(|a| a.events.is_some());
        drawn && !(self.explain && self.screen == Screen::Main)
    }

    /// The shard list's rows as the pane shows them: indices into the view's shards, sorted and
    /// filtered.
    pub fn shard_list(&self) -> Vec<usize> {
        self.view.as_ref().map_or_else(Vec::new, |v| {
            super::shard_order::order(&v.shards, self.shard_sort, &self.shard_filter)
        })
    }

    /// The shard under the Shards pane's cursor (an index into the view's shards).
    pub fn shard_at_cursor(&self) -> Option<usize> {
        let list = self.shard_list();
        list.get(self.shard_row.min(list.len().saturating_sub(1)))
            .copied()
    }

    /// The lit shard's index into the view's shards, while it is still there.
    pub fn lit_index(&self) -> Option<usize> {
        let id = self.lit_shard.as_deref()?;
        self.view.as_ref()?.shards.iter().position(|s| s.id == id)
    }

    fn move_shard_row(&mut self, up: bool) {
        let n = self.shard_list().len();
        self.shard_row = if up {
            self.shard_row.min(n.saturating_sub(1)).saturating_sub(1)
        } else {
            (self.shard_row + 1).min(n.saturating_sub(1))
        };
    }

    /// `Enter` on the Shards pane: lights the shard under the cursor in the key space, or puts
    /// out the one lit; false when the pane has no focus (the action is another pane's).
    pub(super) fn light_shard(&mut self) -> bool {
        if self.focus != Focus::Shards {
            return false;
        }
        let id = self
            .shard_at_cursor()
            .and_then(|i| Some(self.view.as_ref()?.shards.get(i)?.id.clone()));
        self.lit_shard = match id {
            Some(id) if self.lit_shard.as_ref() != Some(&id) => {
                self.notice = Some(format!("{id}'s chunks lit in the key space · Esc clears"));
                Some(id)
            }
            _ => None,
        };
        true
    }

    /// The arrows: `←`/`→` move in the key space whatever the focus (as `i`/`o` zoom there),
    /// and give it the focus so the selection shows; `↑`/`↓` act on the focused pane.
    pub(super) fn arrow(&mut self, action: Action) {
        match (self.focus, action) {
            (_, Action::Left | Action::Right) => {
                self.focus = Focus::KeySpace;
                self.move_cursor(action == Action::Right);
            }
            (Focus::KeySpace, Action::Up) => self.zoom(true),
            (Focus::KeySpace, Action::Down) => self.zoom(false),
            (Focus::Events, Action::Up | Action::Down) => {
                self.move_log_cursor(action == Action::Up);
            }
            (Focus::Shards, Action::Up | Action::Down) => self.move_shard_row(action == Action::Up),
            _ => {}
        }
    }

    /// PgUp/PgDn: the event log and the shard list move by a page; elsewhere one arrow.
    pub(super) fn page(&mut self, up: bool) {
        let arrow = if up { Action::Up } else { Action::Down };
        let steps = match self.focus {
            Focus::Events | Focus::Shards => usize::from(self.size.1 / 3).max(1),
            Focus::KeySpace | Focus::Balancer => 1,
        };
        for _ in 0..steps {
            self.arrow(arrow);
        }
    }

    /// Cells and chunks of the window the last view showed.
    pub(super) fn window_shape(&self) -> (usize, usize, usize) {
        self.view
            .as_ref()
            .and_then(|v| v.collection.as_ref())
            .map_or((1, 1, 1), |c| {
                (c.cells.len().max(1), c.window_len.max(1), c.chunks.max(1))
            })
    }

    pub(super) fn move_cursor(&mut self, right: bool) {
        let (cells, window, _) = self.window_shape();
        let cell_span = self.span * (window as f64 / cells as f64) / window as f64;
        if right {
            if self.cursor + 1 < cells {
                self.cursor += 1;
            } else if self.start + self.span < 1.0 {
                self.start = (self.start + cell_span).min(1.0 - self.span);
            }
        } else if self.cursor > 0 {
            self.cursor -= 1;
        } else {
            self.start = (self.start - cell_span).max(0.0);
        }
    }

    /// Zooms by a factor of two around the selected cell.
    pub(super) fn zoom(&mut self, zoom_in: bool) {
        let (cells, _, chunks) = self.window_shape();
        let focus = self.start + self.span * (self.cursor as f64 + 0.5) / cells as f64;
        let min_span = (1.0 / chunks as f64).min(1.0);
        self.span = if zoom_in {
            (self.span / 2.0).max(min_span)
        } else {
            (self.span * 2.0).min(1.0)
        };
        self.start = (focus - self.span / 2.0).clamp(0.0, 1.0 - self.span);
        let new_cells = self
            .strip_cells()
            .min((self.span * chunks as f64).ceil() as usize)
            .max(1);
        self.cursor = (((focus - self.start) / self.span) * new_cells as f64) as usize;
        self.cursor = self.cursor.min(new_cells - 1);
    }
}
