//! The lab's side-by-side screen in the UI state: the candidate chosen is the collection chosen
//! (the lab source names its candidates as its collections), so ←/→ move between columns and
//! Enter opens that candidate in the full layout; `L` comes back.

use super::action::Action;
use super::app::App;
use super::screen::Screen;

impl App {
    /// The candidates' count, from the view.
    fn candidates(&self) -> usize {
        self.view
            .as_ref()
            .and_then(|v| v.lab.as_ref())
            .map_or(0, |l| l.columns.len())
    }

    /// The side-by-side screen and back, when the source is the lab.
    pub(super) fn toggle_lab(&mut self) {
        if self.candidates() > 0 {
            self.toggle_screen(Screen::Lab);
        }
    }

    /// ←/→ choose a candidate, Enter opens it; false for the actions it leaves to the rest.
    pub(super) fn lab_action(&mut self, action: Action) -> bool {
        let n = self.candidates();
        match action {
            Action::Left if n > 0 => self.collection = (self.collection + n - 1) % n,
            Action::Right if n > 0 => self.collection = (self.collection + 1) % n,
            Action::ZoomIn => self.screen = Screen::Main,
            _ => return false,
        }
        self.start = 0.0;
        self.span = 1.0;
        self.cursor = 0;
        true
    }
}
