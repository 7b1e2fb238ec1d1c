#![allow(clippy::unwrap_used)]
//! The views over time on a live cluster (`shardtop serve` through the real driver): with
//! `--heat changestream` the key visualizer lights the ranges written; with `--heat size` it
//! has no per-chunk signal and says so; the history view samples every poll.

use crate::common;

use std::time::Duration;

use shardtop::live::client::LiveClient;
use shardtop::live::poller::{Poller, now_ms};
use shardtop::serve::ServeOptions;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::live::{HeatMode, run_live};
use shardtop::source::past::Past;
use shardtop::source::{SourceControl, SourceEvent};
use shardtop::view::history::HistoryRequest;
use shardtop::view::key_visualizer::KeyVisualizerRequest;
use shardtop::view::{ClusterView, ViewRequest};

async fn serve() -> (shardtop::serve::Server, String) {
    let sc = scenario::built_in("hashed").unwrap().unwrap();
    let sim = Simulator::from_scenario(&sc, sc.seed, Some("8.0".parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    let (server, _, uri) = common::serve_opts(opts).await;
    (server, uri)
}

fn request() -> ViewRequest {
    ViewRequest {
        heatmap: Some(KeyVisualizerRequest {
            cols: 60,
            rows: 8,
            secs_per_col: 1,
            cursor: (59, 0),
            keys: None,
        }),
        history: Some(HistoryRequest {
            cols: 60,
            secs_per_col: 1,
        }),
        ..ViewRequest::default()
    }
}

/// Runs the live source with `heat`, inserts 30 users after its first view (and when `migrate`,
/// moves the chunk holding MinKey to another shard), and returns the first view that `done`
/// accepts (or the last one after 20 s).
async fn watch(heat: HeatMode, migrate: bool, done: impl Fn(&ClusterView) -> bool) -> ClusterView {
    let (server, uri) = serve().await;
    let mut poller = Poller::new(
        LiveClient::connect(&uri, Duration::from_secs(5))
            .await
            .unwrap(),
    );
    if heat == HeatMode::ChangeStream {
        poller.change_heat = Some(shardtop::live::change_heat::ChangeHeat::default());
    }
    poller.poll(now_ms()).await.unwrap();
    let (to_ui, mut views) = tokio::sync::mpsc::channel(64);
    let (controls, ctl) = tokio::sync::mpsc::channel(64);
    controls.send(SourceControl::View(request())).await.unwrap();
    let interval = Duration::from_millis(200);
    let source = tokio::spawn(run_live(
        poller,
        "test".into(),
        (interval, heat.into(), Past::keeping(3600)),
        to_ui,
        ctl,
    ));
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let users = client.database("app").collection::<bson::Document>("users");
    let docs: Vec<bson::Document> = (0..30)
        .map(|i| bson::doc! {"username": format!("user{i:03}")})
        .collect();
    users.insert_many(docs).await.unwrap();
    if migrate {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let chunks = client
            .database("config")
            .collection::<bson::Document>("chunks");
        let first = chunks
            .find_one(bson::doc! {"min.username": bson::Bson::MinKey})
            .await
            .unwrap()
            .unwrap();
        let to = if first.get_str("shard").unwrap() == "shard0000" {
            "shard0001"
        } else {
            "shard0000"
        };
        client
            .database("admin")
            .run_command(bson::doc! {
                "moveRange": "app.users",
                "min": {"username": bson::Bson::MinKey},
                "toShard": to,
            })
            .await
            .unwrap();
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut last = None;
    while let Ok(Some(e)) = tokio::time::timeout_at(deadline, views.recv()).await {
        if let SourceEvent::View(v) = e {
            if done(&v) {
                last = Some(*v);
                break;
            }
            last = Some(*v);
        }
    }
    drop(controls);
    source.abort();
    server.shutdown().await;
    last.unwrap()
}

/// The history samples of the view's first shard.
fn samples(v: &ClusterView) -> usize {
    v.history
        .as_ref()
        .and_then(|h| h.shards.first())
        .map_or(0, |s| s.bytes.iter().flatten().count())
}

fn written(v: &ClusterView) -> u64 {
    v.heatmap
        .as_ref()
        .map_or(0, |h| h.writes.iter().flatten().sum())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_streams_light_the_key_ranges_written() {
    let v = watch(HeatMode::ChangeStream, false, |v| {
        written(v) >= 30 && samples(v) >= 2
    })
    .await;
    let h = v.heatmap.as_ref().unwrap();
    assert_eq!(written(&v), 30, "{:?}", h.writes);
    let lit = h
        .writes
        .iter()
        .map(|c| c.iter().filter(|&&n| n > 0).count())
        .max()
        .unwrap();
    assert!(
        lit > 1,
        "a hashed key spreads the writes over ranges: {:?}",
        h.writes
    );
    let history = v.history.as_ref().unwrap();
    assert!(!history.shards.is_empty());
    assert!(samples(&v) >= 2, "sampled once a second of polls");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn size_heat_has_no_per_chunk_signal_and_the_view_says_so() {
    let v = watch(HeatMode::Size, false, |v| samples(v) >= 2).await;
    assert!(v.heatmap.is_none());
    assert_eq!(v.heat, Some("size"));
    let mut app = shardtop::ui::App::new((100, 30), false, 1.0, false);
    app.screen = shardtop::ui::screen::Screen::KeyVisualizer;
    app.apply(SourceEvent::View(Box::new(v)));
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).unwrap();
    terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
    let text = format!("{}", terminal.backend());
    assert!(text.contains("no per-chunk signal"), "{text}");
    assert!(text.contains("Per-shard heat only"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_in_the_changelog_changes_the_owner_through_time() {
    let moved = |v: &ClusterView| {
        v.heatmap.as_ref().is_some_and(|h| {
            let (first, last) = (h.owners.first().unwrap()[0], h.owners.last().unwrap()[0]);
            first != last
        })
    };
    let v = watch(HeatMode::ChangeStream, true, moved).await;
    assert!(moved(&v), "{:?}", v.heatmap.as_ref().map(|h| &h.owners));
}
