//! The what-if mode in the UI state: `W` opens a prompt in the footer for the changes, in the
//! `whatif` CLI's own words (`--add-shards 2 --drain shard0001 --chunk-size 256 --window
//! 23:00-06:00 --balancer on`; empty is no change), checked as the source checks them (a bad one
//! is said in the prompt, which stays open); Enter asks the source for the fork and shows it
//! beside "now", Esc cancels. On that screen `e` lists every input of the fork (measured or
//! assumed), and `W` or Esc leaves it and the fork is dropped.
//!
//! Part of `ui`'s state: no I/O; the fork itself lives in the source (`source::whatif`).

use std::collections::VecDeque;

use super::action::Action;
use super::app::{App, Effects};
use super::input_mode::InputMode;
use super::screen::Screen;
use crate::source::SourceControl;
use crate::view::{ClusterView, LogLine};

/// The prompt's text and its error, and the words of the changes asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WhatIfState {
    pub text: String,
    /// Why the text cannot be forked (said in the prompt).
    pub error: Option<String>,
    /// The changes of the fork asked for, as the screen names them.
    pub changes: String,
    /// Whether the screen lists every input of the fork (`e`), not only the first assumed one.
    pub inputs: bool,
}

impl App {
    /// The what-if prompt's keys, `W` and, on its screen, Esc; `None` leaves the action to the
    /// rest of the reducer.
    pub(super) fn whatif_first(&mut self, action: Action) -> Option<Effects> {
        if self.input == InputMode::WhatIf {
            return Some(self.whatif_typing(action));
        }
        if self.input.typing() {
            return None;
        }
        match (action, self.screen) {
            (Action::ToggleWhatIf | Action::Escape, Screen::WhatIf) => Some(self.leave_whatif()),
            // The fork's own explanation: what it measured of the source and what it assumed.
            (Action::ToggleExplain, Screen::WhatIf) => {
                self.whatif.inputs = !self.whatif.inputs;
                Some(Effects::default())
            }
            (Action::ToggleWhatIf, _) => {
                self.open_whatif_prompt();
                Some(Effects::default())
            }
            // The other screens replace the main layout, not this one: leave it first.
            (
                Action::ToggleKeyVisualizer | Action::ToggleHistory | Action::ToggleLab,
                Screen::WhatIf,
            ) => {
                self.notice = Some("leave the what-if screen first (W)".into());
                Some(Effects::default())
            }
            _ => None,
        }
    }

    fn open_whatif_prompt(&mut self) {
        let Some(v) = &self.view else { return };
        if v.lab.is_some() {
            self.notice = Some("the lab's candidates are side by side already: no what-if".into());
        } else if v.collections.is_empty() {
            self.notice = Some("no sharded collection to fork".into());
        } else {
            self.input = InputMode::WhatIf;
            self.whatif.error = None;
        }
    }

    fn whatif_typing(&mut self, action: Action) -> Effects {
        match action {
            Action::Interrupt => {
                return Effects {
                    quit: true,
                    ..Effects::default()
                };
            }
            Action::Escape => {
                self.whatif.error = None;
                self.input = InputMode::Commands;
            }
            Action::SearchDone => return self.fork(),
            Action::Resize(cols, rows) => self.size = (cols, rows),
            _ => {}
        }
        Effects::default()
    }

    /// Enter: the changes checked against the shards shown, then the fork asked for.
    fn fork(&mut self) -> Effects {
        let shards: Vec<&str> = (self.view.iter())
            .flat_map(|v| v.shards.iter().map(|s| s.id.as_str()))
            .collect();
        match crate::source::whatif::check(&self.whatif.text, &shards) {
            Err(e) => {
                self.whatif.error = Some(e);
                Effects::default()
            }
            Ok(changes) => {
                self.whatif.changes = changes;
                self.input = InputMode::Commands;
                self.screen = Screen::WhatIf;
                let text = self.whatif.text.trim().to_string();
                Effects {
                    controls: vec![
                        SourceControl::WhatIf(Some(text)),
                        SourceControl::View(self.request()),
                    ],
                    ..Effects::default()
                }
            }
        }
    }

    fn leave_whatif(&mut self) -> Effects {
        self.screen = Screen::Main;
        self.whatif.inputs = false;
        Effects {
            controls: vec![
                SourceControl::WhatIf(None),
                SourceControl::View(self.request()),
            ],
            ..Effects::default()
        }
    }

    /// The width a pane of the key space has: half the terminal on the what-if screen.
    pub(super) fn pane_width(&self) -> u16 {
        if self.screen == Screen::WhatIf {
            self.size.0 / 2
        } else {
            self.size.0
        }
    }

    /// This state drawing `view` and its `log` in place of the source's: the fork's side of the
    /// what-if screen, drawn by the same panes as "now" with the same choices (collection, key
    /// window, metric, zones, heat, shard order and filter, focus).
    pub fn side(&self, view: &ClusterView, log: &[LogLine]) -> App {
        let mut a = App::new(self.size, true, self.speed, self.paused);
        a.settings = self.settings.clone();
        a.view = Some(view.clone());
        a.log = log.iter().cloned().collect::<VecDeque<_>>();
        a.screen = self.screen;
        a.focus = self.focus;
        a.collection = self.collection;
        (a.start, a.span, a.cursor) = (self.start, self.span, self.cursor);
        (a.metric, a.zones, a.heat) = (self.metric, self.zones, self.heat);
        a.shard_sort = self.shard_sort;
        a.shard_filter.clone_from(&self.shard_filter);
        a.shard_row = self.shard_row;
        a.lit_shard.clone_from(&self.lit_shard);
        a.query.clone_from(&self.query);
        a
    }
}
