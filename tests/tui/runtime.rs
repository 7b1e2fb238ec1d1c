#![allow(clippy::unwrap_used)]
//! The real event loop with a TestBackend and scripted key presses, the real simulator source
//! behind it; a panicking source ends the loop with an error; a paused source sends nothing.

use std::time::Duration;

use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use shardtop::sim::scenario;
use shardtop::source::sim::SimTimeline;
use shardtop::source::{Playback, SourceControl, Timeline, run_timeline};
use shardtop::ui::App;
use shardtop::view::{ClockView, ClusterView, LogLine, ViewRequest};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

fn key(c: char) -> Event {
    Event::Key(KeyEvent::from(KeyCode::Char(c)))
}

fn ascending() -> SimTimeline {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    SimTimeline::new(&sc, sc.seed, None).unwrap()
}

/// Key presses, each after the previous one has had `gap` to take effect.
fn scripted(
    keys: &[char],
    gap: Duration,
) -> impl futures::Stream<Item = std::io::Result<Event>> + Unpin {
    let keys: Vec<char> = keys.to_vec();
    Box::pin(futures::stream::iter(keys).then(move |c| async move {
        tokio::time::sleep(gap).await;
        Ok(key(c))
    }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_reach_the_app_and_q_quits() {
    let mut timeline = ascending();
    let log = timeline.take_initial_log();
    let (to_ui, from_source) = mpsc::channel(64);
    let (to_source, controls) = mpsc::channel(16);
    let mut tasks = JoinSet::new();
    let playback = Playback {
        speed: 64.0,
        paused: false,
        start_ms: None,
    };
    tasks.spawn(run_timeline(timeline, playback, log, to_ui, controls));
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut app = App::new((100, 30), false, 64.0, false);
    let input = scripted(&[' ', '?', 'j', 'q', 'q'], Duration::from_millis(500));
    let ended = shardtop::runtime::run(
        &mut terminal,
        &mut app,
        input,
        from_source,
        to_source,
        &mut tasks,
    )
    .await
    .unwrap();
    assert_eq!(ended, shardtop::runtime::Ended::Quit);
    assert!(app.paused, "Space paused the source");
    let view = app.view.as_ref().unwrap();
    assert!(view.clock.paused, "the source confirmed the pause");
    assert!(view.clock.time_ms > 0, "the simulator ran before the pause");
    assert!(!app.log.is_empty());
    let screen = format!("{}", terminal.backend());
    assert!(!app.help, "the first q closed the help, the second quit");
    assert!(
        screen.contains("Events") && !screen.contains("Keys —"),
        "the last frame shows the main layout:\n{screen}"
    );
}

/// A timeline whose clock panics when it is advanced.
struct Panicking(SimTimeline);

impl Timeline for Panicking {
    fn label(&self) -> String {
        self.0.label()
    }
    fn now_ms(&self) -> u64 {
        self.0.now_ms()
    }
    fn stop_at_ms(&self) -> Option<u64> {
        None
    }
    fn end_ms(&self) -> Option<u64> {
        None
    }
    fn advance_to(&mut self, _: u64, _: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        panic!("the source broke");
    }
    fn seek(&mut self, _: u64, _: &mut Vec<LogLine>) -> color_eyre::Result<()> {
        Ok(())
    }
    fn migration(&mut self, _: bool, _: &mut Vec<LogLine>) -> color_eyre::Result<bool> {
        Ok(false)
    }
    fn view(
        &self,
        req: &ViewRequest,
        clock: ClockView,
        diagnoses: Option<&shardtop::diagnosis::Diagnoses>,
    ) -> ClusterView {
        self.0.view(req, clock, diagnoses)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_source_ends_the_loop_with_an_error() {
    let (to_ui, from_source) = mpsc::channel(64);
    let (to_source, controls) = mpsc::channel(16);
    let mut tasks = JoinSet::new();
    let playback = Playback {
        speed: 4.0,
        paused: false,
        start_ms: None,
    };
    tasks.spawn(run_timeline(
        Panicking(ascending()),
        playback,
        Vec::new(),
        to_ui,
        controls,
    ));
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut app = App::new((100, 30), false, 4.0, false);
    let input = futures::stream::pending();
    let err = shardtop::runtime::run(
        &mut terminal,
        &mut app,
        input,
        from_source,
        to_source,
        &mut tasks,
    )
    .await
    .unwrap_err();
    assert!(format!("{err:#}").contains("panicked"), "{err:#}");
}

#[tokio::test(start_paused = true)]
async fn a_paused_source_sends_nothing_until_told() {
    let (to_ui, mut from_source) = mpsc::channel(64);
    let (to_source, controls) = mpsc::channel(16);
    let playback = Playback {
        speed: 4.0,
        paused: true,
        start_ms: None,
    };
    let task = tokio::spawn(run_timeline(
        ascending(),
        playback,
        Vec::new(),
        to_ui,
        controls,
    ));
    // The first view (and the log reset) arrive at once, then the view with the state's
    // diagnosis when its thread has worked it out …
    loop {
        if let Some(shardtop::source::SourceEvent::View(v)) = from_source.recv().await
            && v.diagnosis.is_some()
        {
            break;
        }
    }
    // … then nothing, however long the wait (virtual time: the runtime skips ahead only when
    // every task is idle, which is what "no CPU while paused" means).
    let quiet = tokio::time::timeout(Duration::from_secs(3600), from_source.recv()).await;
    assert!(quiet.is_err(), "a paused source sent {quiet:?}");
    to_source.send(SourceControl::Step(1000)).await.unwrap();
    let SourceEventView(t) = next_view(&mut from_source).await;
    assert_eq!(t, 1000, "one step forward is one virtual second");
    drop(to_source);
    task.await.unwrap().unwrap();
}

struct SourceEventView(u64);

async fn next_view(rx: &mut mpsc::Receiver<shardtop::source::SourceEvent>) -> SourceEventView {
    loop {
        if let Some(shardtop::source::SourceEvent::View(v)) = rx.recv().await {
            return SourceEventView(v.clock.time_ms);
        }
    }
}
