//! The application state and its reducer: actions (from keys) and source messages change the
//! state; actions may produce commands for the source. No I/O here.

use std::collections::VecDeque;

use super::Settings;
use super::action::Action;
use super::app_help::HelpState;
use super::app_history::HistoryState;
use super::app_key_visualizer::KeyVisualizerState;
pub use super::input_mode::InputMode;
use super::screen::Screen;
use super::shard_order::ShardSort;
use crate::source::runner::{MAX_SPEED, MIN_SPEED};
use crate::source::{SourceControl, SourceEvent};
use crate::view::{ClusterView, LogKind, LogLine, ViewRequest};

/// Event-log lines kept.
pub const LOG_KEEP: usize = 2000;

/// The pane that takes the arrow keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Focus {
    KeySpace,
    Shards,
    Balancer,
    Events,
}

impl Focus {
    /// The panes in the screen's order, as drawn: the top row left to right, then the key
    /// space, then the events.
    pub const ORDER: [Self; 4] = [Self::Shards, Self::Balancer, Self::KeySpace, Self::Events];

    /// The pane after (or before) this one in the screen's order; the events pane only when it
    /// is drawn (`events`).
    pub fn next(self, forward: bool, events: bool) -> Self {
        let order: Vec<Self> = Self::ORDER
            .into_iter()
            .filter(|&f| events || f != Self::Events)
            .collect();
        let n = order.len();
        let i = order.iter().position(|&f| f == self).unwrap_or(0);
        order[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// What an action asks of the caller of [`App::update`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Effects {
    /// Commands for the source, in order.
    pub controls: Vec<SourceControl>,
    /// `s`: write the screen to files (the runtime writes them and says so).
    pub save_screen: bool,
    /// `y`: text for the clipboard (the runtime sends it to the terminal with OSC 52).
    pub clipboard: Option<String>,
    /// End the TUI.
    pub quit: bool,
}

/// Which shard bar comes first (and is the only one on narrow terminals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Chunks,
    Data,
}

/// The whole UI state.
#[derive(Clone, Debug)]
pub struct App {
    pub view: Option<ClusterView>,
    pub log: VecDeque<LogLine>,
    pub focus: Focus,
    pub help: bool,
    /// The help's scroll and filter.
    pub help_view: HelpState,
    /// The command palette, when open.
    pub palette: Option<super::command_palette::PaletteState>,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// Theme, keys and frame rate.
    pub settings: Settings,
    pub collection: usize,
    /// Visible window of the key space: start and span as fractions of the chunk list.
    pub start: f64,
    pub span: f64,
    /// Selected strip cell (while the key space has the focus).
    pub cursor: usize,
    pub metric: Metric,
    pub zones: bool,
    pub heat: bool,
    /// The explain panel (in place of the event log) is open.
    pub explain: bool,
    pub log_filter: Option<LogKind>,
    pub search: String,
    /// What the keys do now: commands, or typing into the footer.
    pub input: InputMode,
    /// The shard list's order, and its filter on shard names and zones.
    pub shard_sort: ShardSort,
    pub shard_filter: String,
    /// The query filter being typed, and the one whose targeting is shown.
    pub query_text: String,
    /// The prompt reopened on its old text, shown selected: typing replaces it.
    pub query_selected: bool,
    pub query: Option<String>,
    /// Lines scrolled back from the newest (0 follows the log).
    pub log_scroll: usize,
    /// The events pane's cursor: rows above the last line shown (0: that line).
    pub log_row: usize,
    /// The detail view (`Enter` on an event or on the balancer's why), when open.
    pub detail: Option<super::app_detail::DetailState>,
    /// The Shards pane's row cursor: a place in the list as sorted and filtered.
    pub shard_row: usize,
    /// The shard whose chunks the key space lights (`Enter` on a shard; Esc clears).
    pub lit_shard: Option<String>,
    /// The one line editor of every text input: the cursor and each input's history.
    pub line: super::line_editor::LineEditor,
    pub notice: Option<String>,
    /// The screen shown: the main layout, the key visualizer or the history.
    pub screen: Screen,
    /// The key visualizer's cursor, time zoom and key zoom.
    pub heatmap: KeyVisualizerState,
    /// The history view's time zoom and scroll.
    pub history: HistoryState,
    /// What the source was last told (the view's clock is the source's answer).
    pub paused: bool,
    pub speed: f64,
    /// The what-if mode's prompt and the changes of the fork shown.
    pub whatif: super::app_whatif::WhatIfState,
}

impl App {
    pub fn new(size: (u16, u16), colors: bool, speed: f64, paused: bool) -> Self {
        Self {
            view: None,
            log: VecDeque::new(),
            focus: Focus::Shards,
            help: false,
            help_view: HelpState::default(),
            palette: None,
            size,
            settings: Settings::new(colors),
            collection: 0,
            start: 0.0,
            span: 1.0,
            cursor: 0,
            metric: Metric::Chunks,
            zones: true,
            heat: true,
            explain: false,
            log_filter: None,
            search: String::new(),
            input: InputMode::Commands,
            shard_sort: ShardSort::Name,
            shard_filter: String::new(),
            query_text: String::new(),
            query_selected: false,
            query: None,
            log_scroll: 0,
            log_row: 0,
            detail: None,
            shard_row: 0,
            lit_shard: None,
            line: super::line_editor::LineEditor::default(),
            notice: None,
            screen: Screen::Main,
            heatmap: KeyVisualizerState::default(),
            history: HistoryState::default(),
            paused,
            speed,
            whatif: super::app_whatif::WhatIfState::default(),
        }
    }

    /// The strip width the current terminal gives the key-space pane.
    pub fn strip_cells(&self) -> usize {
        usize::from(self.pane_width().saturating_sub(2)).max(8)
    }

    /// What the source should aggregate for the current state.
    pub fn request(&self) -> ViewRequest {
        ViewRequest {
            collection: self.collection,
            start: self.start,
            span: self.span,
            cells: self.strip_cells(),
            selected: (self.focus == Focus::KeySpace).then_some(self.cursor),
            query: self.query.clone(),
            heatmap: (self.screen == Screen::KeyVisualizer).then(|| self.key_visualizer_request()),
            history: (self.screen == Screen::History).then(|| self.history_request()),
            explain: self.explain && self.screen == Screen::Main,
        }
    }

    /// Applies a source message.
    pub fn apply(&mut self, msg: SourceEvent) {
        match msg {
            SourceEvent::View(v) => {
                self.paused = v.clock.paused;
                self.speed = v.clock.speed;
                let cells = v.collection.as_ref().map_or(0, |c| c.cells.len());
                self.cursor = self.cursor.min(cells.saturating_sub(1));
                // Reaching the end: the footer says so (`footer::end_notice`) in place of a
                // notice of an earlier moment ("restarted from the start").
                let was_at_end = self.view.as_ref().is_some_and(|old| old.clock.at_end());
                if v.clock.at_end() && !was_at_end {
                    self.notice = None;
                }
                self.view = Some(*v);
            }
            SourceEvent::Log { reset, lines } => {
                if reset {
                    self.log.clear();
                    self.log_scroll = 0;
                    self.log_row = 0;
                }
                for line in lines {
                    crate::view::append_log(&mut self.log, line);
                }
                while self.log.len() > LOG_KEEP {
                    self.log.pop_front();
                }
            }
            SourceEvent::Notice(n) => self.notice = Some(n),
        }
    }

    /// The log lines the filter and search let through, oldest first.
    pub fn visible_log(&self) -> impl Iterator<Item = &LogLine> {
        let needle = self.search.to_lowercase();
        self.log.iter().filter(move |l| {
            self.log_filter.is_none_or(|k| l.kind == k)
                && (needle.is_empty() || l.text.to_lowercase().contains(&needle))
        })
    }

    /// Applies an action; returns what it asks of the caller (commands for the source, saving
    /// the screen, quitting).
    pub fn update(&mut self, action: Action) -> Effects {
        let was = self.input;
        if let Some(effects) = self.edit_first(action) {
            return effects;
        }
        let effects = self.update_unedited(action);
        self.after_typing(was, action);
        effects
    }

    fn update_unedited(&mut self, action: Action) -> Effects {
        if self.help {
            return self.help_action(action);
        }
        if self.detail.is_some() {
            return self.detail_action(action);
        }
        self.notice = None;
        if let Some(effects) = self.palette_first(action) {
            return effects;
        }
        let before = self.request();
        let mut effects = Effects {
            controls: self.time_action(action),
            ..Effects::default()
        };
        self.view_action(action, &mut effects);
        let after = self.request();
        if after != before {
            effects.controls.push(SourceControl::View(after));
        }
        effects
    }

    fn time_action(&mut self, action: Action) -> Vec<SourceControl> {
        let control = match action {
            Action::TogglePause => {
                self.paused = !self.paused;
                SourceControl::SetPaused(self.paused)
            }
            Action::Restart => {
                self.paused = false;
                SourceControl::Restart
            }
            Action::Faster | Action::Slower => {
                let factor = if action == Action::Faster { 2.0 } else { 0.5 };
                self.speed = (self.speed * factor).clamp(MIN_SPEED, MAX_SPEED);
                SourceControl::SetSpeed(self.speed)
            }
            Action::Step(forward) => {
                self.paused = true;
                SourceControl::Step(if forward { 1000 } else { -1000 })
            }
            Action::Seek(forward) => SourceControl::SeekBy(if forward { 10_000 } else { -10_000 }),
            Action::Migration(forward) => {
                self.paused = true;
                SourceControl::Migration { forward }
            }
            _ => return Vec::new(),
        };
        vec![control]
    }

    fn view_action(&mut self, action: Action, effects: &mut Effects) {
        let action = match (self.screen, action) {
            (Screen::Main, Action::Open) if self.open_detail() || self.light_shard() => return,
            (_, Action::Open) => Action::ZoomIn,
            (Screen::Main | Screen::WhatIf, a) => a,
            (_, Action::Page(up)) => {
                if up {
                    Action::Up
                } else {
                    Action::Down
                }
            }
            (_, a) => a,
        };
        let taken = !self.input.typing()
            && match self.screen {
                Screen::Main | Screen::WhatIf => false,
                Screen::KeyVisualizer => self.key_visualizer_action(action),
                Screen::History => self.history_action(action),
                Screen::Lab => self.lab_action(action),
            };
        if taken {
            return;
        }
        match action {
            Action::Quit | Action::Interrupt => effects.quit = true,
            Action::ToggleHelp => self.open_help(),
            Action::FocusNext => self.set_focus(self.focus.next(true, self.events_shown())),
            Action::FocusPrev => self.set_focus(self.focus.next(false, self.events_shown())),
            Action::Collection(forward) => self.switch_collection(forward),
            Action::Left | Action::Right | Action::Up | Action::Down => self.arrow(action),
            Action::Page(up) => self.page(up),
            Action::ZoomIn => self.zoom(true),
            Action::ZoomOut => self.zoom(false),
            Action::ZoomReset => {
                self.start = 0.0;
                self.span = 1.0;
                self.cursor = 0;
            }
            Action::ToggleMetric => self.toggle_metric(),
            Action::ToggleZones => self.zones = !self.zones,
            Action::ToggleHeat => self.heat = !self.heat,
            Action::ToggleExplain => self.explain = !self.explain,
            Action::Export => effects.save_screen = true,
            Action::ToggleKeyVisualizer => self.toggle_screen(Screen::KeyVisualizer),
            Action::ToggleHistory => self.toggle_screen(Screen::History),
            Action::ToggleLab => self.toggle_lab(),
            Action::CycleShardSort => {
                self.shard_sort = self.shard_sort.next();
                self.shard_row = 0;
            }
            Action::CycleLogFilter => self.cycle_filter(),
            Action::StartSearch
            | Action::StartQuery
            | Action::SearchChar(_)
            | Action::SearchBackspace
            | Action::SearchDone
            | Action::Escape => self.typing_action(action),
            Action::Resize(w, h) => self.size = (w, h),
            Action::Click(x, y) => self.click(x, y),
            Action::Wheel(up, x, y) => self.wheel(up, x, y),
            _ => {}
        }
    }

    fn cycle_filter(&mut self) {
        let all = LogKind::ALL;
        self.log_filter = match self.log_filter {
            None => Some(all[0]),
            Some(k) => all
                .iter()
                .position(|&x| x == k)
                .and_then(|i| all.get(i + 1).copied()),
        };
        self.log_scroll = 0;
        self.log_row = 0;
    }

    fn toggle_metric(&mut self) {
        self.metric = match self.metric {
            Metric::Chunks => Metric::Data,
            Metric::Data => Metric::Chunks,
        };
    }

    fn switch_collection(&mut self, forward: bool) {
        let n = self.view.as_ref().map_or(0, |v| v.collections.len());
        if n > 1 {
            self.collection = if forward {
                (self.collection + 1) % n
            } else {
                (self.collection + n - 1) % n
            };
            self.start = 0.0;
            self.span = 1.0;
            self.cursor = 0;
        }
    }
}
