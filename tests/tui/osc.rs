#![allow(clippy::unwrap_used)]
//! What the real event loop sends the terminal besides the frames, read from its writer: the
//! clipboard's OSC 52 bytes after `y` on a selected cell, a drain's progress (OSC 9;4) while it
//! runs, and the progress cleared when the TUI ends. The source's view is sent by the test.

use std::time::Duration;

use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use shardtop::runtime::osc::{Osc, clipboard};
use shardtop::sim::scenario;
use shardtop::source::sim::SimTimeline;
use shardtop::source::{SourceEvent, Timeline};
use shardtop::ui::App;
use shardtop::view::{ClockView, ViewRequest};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn y_sends_osc_52_and_a_drain_s_progress_is_sent_then_cleared() {
    // The source's view is in the channel before the first key: the drain at 40 s, a cell
    // selected.
    let sc = scenario::built_in("drain").unwrap().unwrap();
    let mut timeline = SimTimeline::new(&sc, sc.seed, None).unwrap();
    let mut log = timeline.take_initial_log();
    timeline.advance_to(40_000, &mut log).unwrap();
    let mut app = App::new((100, 30), false, 4.0, true);
    let request = ViewRequest {
        selected: Some(0),
        cells: app.strip_cells(),
        ..ViewRequest::default()
    };
    let clock = ClockView {
        time_ms: timeline.now_ms(),
        paused: true,
        speed: 4.0,
        end_ms: timeline.end_ms(),
        virtual_time: true,
        wall_start_ms: None,
    };
    let view = timeline.view(&request, clock, None);
    let sel = view.collection.as_ref().unwrap().selection.clone().unwrap();
    let (to_ui, from_source) = mpsc::channel(64);
    to_ui.send(SourceEvent::View(Box::new(view))).await.unwrap();
    let (to_source, _controls) = mpsc::channel(16);
    let mut tasks = JoinSet::new();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let keys = [
        KeyCode::Tab,
        KeyCode::Tab,
        KeyCode::Char('y'),
        KeyCode::Char('q'),
    ];
    let input = Box::pin(futures::stream::iter(keys).then(|code| async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(Event::Key(KeyEvent::from(code)))
    }));
    let mut osc = Osc::new(Vec::new());
    shardtop::runtime::run_with(
        &mut terminal,
        &mut app,
        input,
        from_source,
        to_source,
        &mut tasks,
        &mut osc,
    )
    .await
    .unwrap();
    drop(to_ui);
    osc.finish().unwrap();
    let sent = osc.output().clone();
    let text = String::from_utf8_lossy(&sent).to_string();
    let copied = clipboard(&format!("{{min: {}, max: {}}}", sel.min, sel.max));
    assert!(
        sent.windows(copied.len()).any(|w| w == copied.as_slice()),
        "{text:?}"
    );
    assert!(text.starts_with("\u{1b}]9;4;1;"), "{text:?}");
    assert!(text.ends_with("\u{1b}]9;4;0\u{7}"), "{text:?}");
    assert_eq!(text.matches("\u{1b}]9;4;0").count(), 1, "{text:?}");
}
