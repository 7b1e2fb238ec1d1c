#![allow(clippy::unwrap_used)]
//! What real 8.x clusters have, on screen: the config shard's badge, a tracked unsharded
//! collection's shard, the balancing window in server time.

use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::cluster::Cluster;
use shardtop::sim::{Simulator, scenario};
use shardtop::source::SourceEvent;
use shardtop::ui::App;
use shardtop::view::ClockView;

fn screen(cluster: &Cluster, collection: usize, size: (u16, u16)) -> String {
    let mut app = App::new(size, true, 4.0, true);
    let clock = ClockView {
        time_ms: cluster.now_ms,
        paused: false,
        speed: 1.0,
        end_ms: None,
        virtual_time: false,
        wall_start_ms: None,
    };
    let mut req = app.request();
    req.collection = collection;
    let view = shardtop::view::build(cluster, &req, "mongodb://mongos", clock);
    app.apply(SourceEvent::View(Box::new(view)));
    let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    terminal.draw(|f| shardtop::ui::render(f, &app)).unwrap();
    format!("{}", terminal.backend())
}

fn sim_at(name: &str, t_ms: u64) -> Simulator {
    let sc = scenario::built_in(name).unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(t_ms);
    sim
}

#[test]
fn the_config_shard_has_its_badge() {
    // 8.0's embedded config server joins as the shard `config` (`ShardId::kConfigServerId`).
    let mut sim = sim_at("ascending", 60_000);
    sim.cluster.shards[0].shard.id = "config".into();
    let text = screen(&sim.cluster, 0, (100, 30));
    let row = text
        .lines()
        .find(|l| l.contains("config ") && l.contains("CONFIG"))
        .unwrap_or_else(|| panic!("no badge:\n{text}"));
    assert_eq!(text.matches("CONFIG").count(), 1, "{row}");
    assert_snapshot!("config_shard_badge_100x30", text);
    let json = sim
        .cluster
        .summary_json(&shardtop::cluster::SummaryOptions::default());
    assert_eq!(json["shards"][0]["configShard"], true);
    assert_eq!(json["shards"][1]["configShard"], false);
}

#[test]
fn a_tracked_unsharded_collection_names_its_shard() {
    let sim = sim_at("move-collection", 420_000);
    let c = sim
        .cluster
        .collections
        .iter()
        .position(|c| c.ns == "app.events")
        .unwrap();
    let text = screen(&sim.cluster, c, (120, 30));
    assert!(text.contains("unsharded (tracked) on shard0002"), "{text}");
}

#[test]
fn a_time_series_shows_its_view_name_and_buckets() {
    let sc = scenario::parse(
        r#"{
  "name": "timeseries", "description": "test", "seedPassage": "none",
  "serverVersion": "8.0", "shards": 2,
  "collections": [{"ns": "iot.system.buckets.weather", "key": {"meta.sensorId": 1}}],
  "workloads": [{"ns": "iot.system.buckets.weather", "rate": 500, "count": 2000,
    "docSize": {"min": 2000, "max": 2000},
    "fields": {"meta.sensorId": {"uniformInt": {"min": 1, "max": 500}}}}],
  "until": 10
}"#,
    )
    .unwrap();
    let mut sim = Simulator::from_scenario(&sc, 3, None).unwrap();
    sim.run_until(10_000);
    let text = screen(&sim.cluster, 0, (120, 30));
    assert!(text.contains("Key space · iot.weather"), "{text}");
    assert!(text.contains("2000 buckets"), "{text}");
    assert!(!text.contains("system.buckets.weather {"), "{text}");
}
