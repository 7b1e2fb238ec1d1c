//! TUI benchmarks: one frame at 200×60 with 1,000 shards and 1,000,000 chunks (target ≤ 5 ms:
//! the view is pre-aggregated, so the frame does not grow with the chunk count), and building
//! that view from the simulator's state, and a key press through the reducer to the next frame
//! (the UI task never waits for the source). Run: `cargo bench --bench ui`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::source::SourceEvent;
use shardtop::ui::App;
use shardtop::view::{self, ClockView, LogKind, LogLine, ViewRequest};

mod common;

fn frame(c: &mut Criterion) {
    let sim = common::scale_cluster();
    let clock = ClockView {
        time_ms: 0,
        paused: false,
        speed: 4.0,
        end_ms: None,
        virtual_time: true,
    };
    let mut app = App::new((200, 60), true, 4.0, false);
    let request = app.request();
    let mut group = c.benchmark_group("ui 1000 shards × 1M chunks");
    group.bench_function("build the view (198 strip cells)", |b| {
        b.iter(|| black_box(view::build(&sim.cluster, &request, "bench", clock.clone())));
    });
    let selected = ViewRequest {
        selected: Some(100),
        ..request.clone()
    };
    group.bench_function(
        "build the view with a selected cell of ~5,000 chunks",
        |b| {
            b.iter(|| black_box(view::build(&sim.cluster, &selected, "bench", clock.clone())));
        },
    );
    app.apply(SourceEvent::View(Box::new(view::build(
        &sim.cluster,
        &request,
        "bench",
        clock.clone(),
    ))));
    app.apply(SourceEvent::Log {
        reset: true,
        lines: (0..2000)
            .map(|i| LogLine {
                at_ms: i * 100,
                kind: LogKind::Migration,
                text: format!("moveChunk.commit     #{i} app.big shard0001 → shard0002: 1000 docs"),
            })
            .collect(),
    });
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    group.bench_function("render one frame at 200×60", |b| {
        b.iter(|| {
            terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
        });
    });
    group.bench_function("a key press to the next frame (reduce + render)", |b| {
        b.iter(|| {
            let commands = app.update(shardtop::ui::Action::FocusNext);
            terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
            black_box(commands)
        });
    });
    group.finish();
}

criterion_group!(benches, frame);
criterion_main!(benches);
