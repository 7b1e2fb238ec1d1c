//! TUI benchmarks: one frame at 200×60 with 1,000 shards and 1,000,000 chunks (target ≤ 5 ms:
//! the view is pre-aggregated, so the frame does not grow with the chunk count), and building
//! that view from the simulator's state, and a key press through the reducer to the next frame
//! (the UI task never waits for the source); the key visualizer's frame at 200×60 over the same
//! 1,000,000 chunks and an hour of writes (target ≤ 2 ms: pre-aggregated per key range and
//! interval, never per chunk). Run: `cargo bench --bench ui`.
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
        wall_start_ms: None,
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
                migration: None,
                detail: None,
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

/// An hour of writes, one `writes` event a second, each to ten chunks spread over the key space,
/// and a committed migration every 4 s (900 in the hour) for the owners through time.
fn an_hour_of_writes(sim: &shardtop::sim::Simulator) -> shardtop::cluster::heat_history::HeatLog {
    use shardtop::cluster::{ChunkWrites, Event, EventKind};
    let c = &sim.cluster.collections[0];
    let mut heat = shardtop::cluster::heat_history::HeatLog::keeping(3_600_000);
    for t in 0..3600u64 {
        let chunks = (0..10u64)
            .map(|k| {
                let i = ((t * 7919 + k * 104_729) % c.table.len() as u64) as usize;
                let min = c.table.chunk(i).min.clone();
                ChunkWrites {
                    sample: min.clone(),
                    min,
                    stats: shardtop::model::ChunkStats::new(1, 100, 25),
                }
            })
            .collect();
        let ns = c.ns.clone();
        heat.observe(&[Event {
            at_ms: t * 1000,
            kind: EventKind::Writes { ns, chunks },
        }]);
        if t % 4 == 0 {
            let i = ((t * 104_729) % c.table.len() as u64) as usize;
            let chunk = c.table.chunk(i);
            let range = shardtop::cluster::event::MigrationRange {
                id: t,
                ns: c.ns.clone(),
                min: chunk.min.clone(),
                max: chunk.max.clone(),
                from: chunk.info.shard,
                to: shardtop::model::ShardIdx(0),
            };
            heat.observe(&[Event {
                at_ms: t * 1000,
                kind: EventKind::MigrationCommitted {
                    range,
                    moved: shardtop::model::ChunkStats::ZERO,
                    millis: 10,
                },
            }]);
        }
    }
    heat
}

fn key_visualizer(c: &mut Criterion) {
    let sim = common::scale_cluster();
    let heat = an_hour_of_writes(&sim);
    let mut app = App::new((200, 60), true, 4.0, false);
    app.screen = shardtop::ui::screen::Screen::KeyVisualizer;
    let req = app.heatmap_request();
    let ns = sim.cluster.collections[0].ns.clone();
    let clock = ClockView {
        time_ms: 3_599_000,
        paused: false,
        speed: 4.0,
        end_ms: None,
        virtual_time: true,
        wall_start_ms: None,
    };
    let mut group = c.benchmark_group("key visualizer 1M chunks × an hour of writes");
    group.bench_function("build the 195×52 grid", |b| {
        b.iter(|| {
            black_box(view::key_visualizer::build(
                &heat,
                &sim.cluster,
                &ns,
                &req,
                (3_599_000, &clock),
            ))
        });
    });
    let mut v = view::build(&sim.cluster, &app.request(), "bench", clock.clone());
    v.heatmap = view::key_visualizer::build(&heat, &sim.cluster, &ns, &req, (3_599_000, &clock));
    app.apply(SourceEvent::View(Box::new(v)));
    let mut terminal = Terminal::new(TestBackend::new(200, 60)).unwrap();
    group.bench_function("render the key visualizer at 200×60", |b| {
        b.iter(|| {
            terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
        });
    });
    group.bench_function("build the grid at 64 s per column (the whole hour)", |b| {
        let wide = view::key_visualizer::KeyVisualizerRequest {
            secs_per_col: 64,
            ..req.clone()
        };
        b.iter(|| {
            black_box(view::key_visualizer::build(
                &heat,
                &sim.cluster,
                &ns,
                &wide,
                (3_599_000, &clock),
            ))
        });
    });
    group.finish();
}

criterion_group!(benches, frame, key_visualizer);
criterion_main!(benches);
