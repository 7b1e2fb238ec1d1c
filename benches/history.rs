//! History's cost: one sample of 1,000 shards × 1,000,000 chunks, the memory an hour of it at
//! one sample a second holds (target ≤ 50 MB), printed, and the history view's frame over that
//! hour at 200×60 (built, and drawn). Run: `cargo bench --bench history`.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use shardtop::cluster::history::History;

mod common;

#[global_allocator]
static COUNTING: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fn history(c: &mut Criterion) {
    let mut sim = common::scale_cluster();
    let base = COUNTING.current_usage();
    let mut hour = History::new(3600);
    for t in 0..3600 {
        sim.cluster.now_ms = t * 1000;
        hour.sample(&sim.cluster);
    }
    let held = COUNTING.current_usage().saturating_sub(base);
    println!(
        "history: an hour at 1 s on 1,000 shards holds {:.1} MB",
        held as f64 / 1e6
    );
    let mut group = c.benchmark_group("history 1000 shards");
    group.bench_function("one sample (ring full)", |b| {
        b.iter(|| {
            sim.cluster.now_ms += 1000;
            hour.sample(black_box(&sim.cluster));
        });
    });
    let ns = sim.cluster.collections[0].ns.clone();
    let req = shardtop::view::history::HistoryRequest {
        cols: 186,
        secs_per_col: 16,
    };
    group.bench_function("build the history view at 200×60 (16 s per column)", |b| {
        b.iter(|| {
            black_box(shardtop::view::history::build(
                &hour,
                &sim.cluster,
                &ns,
                &req,
            ))
        });
    });
    let mut app = shardtop::ui::App::new((200, 60), true, 4.0, false);
    app.screen = shardtop::ui::screen::Screen::History;
    let mut v = shardtop::view::build(
        &sim.cluster,
        &app.request(),
        "bench",
        shardtop::view::ClockView::default(),
    );
    v.history = shardtop::view::history::build(&hour, &sim.cluster, &ns, &req);
    app.apply(shardtop::source::SourceEvent::View(Box::new(v)));
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 60)).unwrap();
    group.bench_function("draw the history view at 200×60", |b| {
        b.iter(|| {
            terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
        });
    });
    group.finish();
    black_box(hour);
}

criterion_group!(benches, history);
criterion_main!(benches);
