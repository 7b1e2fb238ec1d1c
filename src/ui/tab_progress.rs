//! What the terminal's tab or title bar shows of long work: while a drain or a resharding runs
//! on the source shown, its share done (the least advanced when several run), or "under way,
//! share unknown" when the source does not tell it. The runtime sends it with OSC 9;4 (ConEmu's
//! sequence, read by Windows Terminal, Ghostty, WezTerm and others); `progress = false` in the
//! configuration turns it off.
//!
//! Part of `ui`'s state: a pure function of the app; no I/O.

use super::app::App;

/// The progress the terminal is asked to show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TabProgress {
    /// Nothing runs (or the indicator is off): no progress shown.
    #[default]
    Off,
    /// Percent done, 0 to 100.
    Percent(u8),
    /// Something runs whose share done the source does not tell.
    Unknown,
}

impl App {
    /// The progress for the terminal's tab, from the last view.
    pub fn tab_progress(&self) -> TabProgress {
        let Some(view) = self.view.as_ref().filter(|_| self.settings.progress) else {
            return TabProgress::Off;
        };
        let mut least: Option<f64> = None;
        for share in &view.under_way {
            match share {
                None => return TabProgress::Unknown,
                Some(s) => least = Some(least.map_or(*s, |l| l.min(*s))),
            }
        }
        least.map_or(TabProgress::Off, |s| {
            TabProgress::Percent((s.clamp(0.0, 1.0) * 100.0).floor() as u8)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::TabProgress;
    use crate::ui::App;
    use crate::view::ClusterView;

    fn app(under_way: Vec<Option<f64>>, on: bool) -> App {
        let mut app = App::new((80, 24), true, 1.0, false);
        app.settings.progress = on;
        app.view = Some(ClusterView {
            under_way,
            ..ClusterView::default()
        });
        app
    }

    #[test]
    fn the_least_advanced_work_is_shown_and_unknown_shares_are_not_guessed() {
        assert_eq!(app(vec![], true).tab_progress(), TabProgress::Off);
        assert_eq!(
            app(vec![Some(0.426)], true).tab_progress(),
            TabProgress::Percent(42)
        );
        assert_eq!(
            app(vec![Some(0.9), Some(0.25)], true).tab_progress(),
            TabProgress::Percent(25)
        );
        assert_eq!(
            app(vec![Some(1.0)], true).tab_progress(),
            TabProgress::Percent(100)
        );
        assert_eq!(
            app(vec![Some(0.5), None], true).tab_progress(),
            TabProgress::Unknown
        );
        assert_eq!(app(vec![Some(0.5)], false).tab_progress(), TabProgress::Off);
        assert_eq!(
            App::new((80, 24), true, 1.0, false).tab_progress(),
            TabProgress::Off
        );
    }
}
