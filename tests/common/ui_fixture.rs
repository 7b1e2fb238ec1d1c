//! A scenario's simulator at a fixed virtual time feeding an app, drawn on a TestBackend: what
//! the pane snapshots share.
#![allow(clippy::unwrap_used)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::sim::scenario;
use shardtop::source::sim::SimTimeline;
use shardtop::source::{SourceControl, SourceEvent, Timeline};
use shardtop::ui::{Action, App};
use shardtop::view::ClockView;

/// A scenario's simulator advanced to `t_ms`, with an app of the given size fed its view.
pub struct Fixture {
    pub timeline: SimTimeline,
    pub app: App,
}

impl Fixture {
    pub fn new(name: &str, t_ms: u64, size: (u16, u16)) -> Self {
        let sc = scenario::built_in(name).unwrap().unwrap();
        let mut timeline = SimTimeline::new(&sc, sc.seed, None).unwrap();
        let mut log = timeline.take_initial_log();
        timeline.advance_to(t_ms, &mut log).unwrap();
        let mut app = App::new(size, true, 4.0, true);
        app.apply(SourceEvent::Log {
            reset: true,
            lines: log,
        });
        let mut f = Self { timeline, app };
        f.refresh();
        f
    }

    pub fn refresh(&mut self) {
        let clock = ClockView {
            time_ms: self.timeline.now_ms(),
            paused: self.app.paused,
            speed: self.app.speed,
            end_ms: self.timeline.end_ms(),
            virtual_time: true,
            wall_start_ms: None,
        };
        // The diagnosis the source's thread would give, waited for: the same frame every time.
        let diagnoses = (self.timeline.diagnosis_work()).and_then(shardtop::source::diagnose::now);
        let view = (self.timeline).view(&self.app.request(), clock, diagnoses.as_ref());
        self.app.apply(SourceEvent::View(Box::new(view)));
    }

    pub fn keys(&mut self, actions: &[Action]) -> Vec<SourceControl> {
        let mut out = Vec::new();
        for &a in actions {
            out.extend(self.app.update(a).controls);
            self.refresh();
        }
        out
    }

    pub fn draw(&self) -> Terminal<TestBackend> {
        let (w, h) = self.app.size;
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| shardtop::ui::render(f, &self.app))
            .unwrap();
        terminal
    }
}
