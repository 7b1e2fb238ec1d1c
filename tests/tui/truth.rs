//! Screens that must not say what is not so, from cluster states built as a live poll builds
//! them (`config.*` documents through `live::snapshot`): the balancer's `autoSplitOnly` mode,
//! a collection with `noBalance`, a draining shard with a migration in flight, 40 shards with
//! long names, a poll that failed — and the property of cut shard names.

use bson::doc;
use insta::assert_snapshot;
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::cluster::Cluster;
use shardtop::cluster::event::MigrationReason;
use shardtop::live::config::{CollectionDoc, SettingsDocs, ShardDoc};
use shardtop::live::in_flight;
use shardtop::live::snapshot::{self, ConfigSnapshot, ShardList};
use shardtop::model::{ChunkInfo, ChunkStats, ChunkVersion, RoutingTable, ShardIdx, ShardKey};
use shardtop::source::SourceEvent;
use shardtop::ui::App;
use shardtop::view::ClockView;

/// 2026-12-03 03:00:00 UTC.
const NOW_MS: u64 = 1_796_266_800_000;

fn key(a: i64) -> ShardKey {
    shardtop::model::KeyPattern::parse(&doc! {"a": 1})
        .unwrap()
        .bound_from_document(&doc! {"a": a})
        .unwrap()
}

/// Shards `(id, draining)`, one collection `app.orders` `{a: 1}` (its document: `extra` over
/// the plain one) with two chunks per shard, 64 MiB owned per shard, balancer settings
/// `balancer`.
fn cluster(shards: &[(String, bool)], extra: bson::Document, balancer: bson::Document) -> Cluster {
    let shard_docs: Vec<ShardDoc> = shards
        .iter()
        .map(|(id, d)| ShardDoc::parse(&doc! {"_id": id.as_str(), "draining": *d}).unwrap())
        .collect();
    let mut d = doc! {"_id": "app.orders", "key": {"a": 1}};
    d.extend(extra);
    let coll = CollectionDoc::parse(&d).unwrap();
    let mut chunks = Vec::new();
    for i in 0..shards.len() * 2 {
        let min = if i == 0 {
            coll.key.global_min()
        } else {
            key(i as i64 * 100)
        };
        let shard = ShardIdx((i % shards.len()) as u32);
        chunks.push((min, ChunkInfo::new(shard, ChunkVersion::new(1, i as u32))));
    }
    let mut table = RoutingTable::from_chunks(chunks, coll.key.global_max()).unwrap();
    let owned: Vec<(ShardIdx, ChunkStats)> = (0..shards.len())
        .map(|s| (ShardIdx(s as u32), ChunkStats::new(1000, 64 << 20, 0)))
        .collect();
    table.spread_owned(&owned);
    let c = snapshot::collection(&coll, table, &[]).0;
    let mut set = doc! {"_id": "balancer"};
    set.extend(balancer);
    let settings = SettingsDocs::parse(&[set]).unwrap();
    let snap = ConfigSnapshot {
        version: shardtop::cluster::ServerVersion::V8_0,
        shards: &shard_docs,
        settings: &settings,
        databases: &[],
        tags: &[],
    };
    let list = ShardList::new(&shard_docs, &snapshot::empty());
    let mut out = snapshot::cluster(&snap, list, vec![c]);
    out.now_ms = NOW_MS;
    out
}

fn three() -> Vec<(String, bool)> {
    ["rs0", "rs1", "rs2"]
        .iter()
        .map(|s| ((*s).to_string(), false))
        .collect()
}

/// The whole screen of a live source showing `c`.
fn screen(c: &Cluster, size: (u16, u16), disconnected_since: Option<u64>) -> String {
    let mut app = App::new(size, false, 1.0, false);
    let clock = ClockView {
        time_ms: c.now_ms,
        paused: false,
        speed: 1.0,
        end_ms: None,
        virtual_time: false,
        wall_start_ms: None,
    };
    let mut v = shardtop::view::build(c, &app.request(), "mongodb://mongos.test:27017", clock);
    v.heat = Some("off");
    v.disconnected_since = disconnected_since;
    app.apply(SourceEvent::View(Box::new(v)));
    let mut t = Terminal::new(TestBackend::new(size.0, size.1)).unwrap();
    t.draw(|f| shardtop::ui::render(f, &app)).unwrap();
    format!("{}", t.backend())
}

/// A window the config server rejects (any hour of 24 or more): it loads no balancer settings
/// and skips every round — never "window always", never "balancer on"; the diagnosis says
/// blocked, in MongoDB's words, and the simulator's rounds stay idle.
#[test]
fn a_rejected_window_is_no_balancing_until_fixed() {
    let window = doc! {"activeWindow": {"start": "00:00", "stop": "24:00"}};
    let mut c = cluster(&three(), doc! {}, window);
    // Uneven: shard rs0 holds most of the data, so balancing has work to do.
    let t = &mut c.collections[0].table;
    t.spread_owned(&[(ShardIdx(0), ChunkStats::new(1000, 4 << 30, 0))]);
    let text = screen(&c, (140, 30), None);
    assert!(text.contains("balancer settings rejected"), "{text}");
    assert!(text.contains("no balancing until fixed"), "{text}");
    assert!(!text.contains("balancer on"), "{text}");
    assert!(!text.contains("window always"), "{text}");
    let mut sim = shardtop::sim::Simulator::over(c);
    let d = shardtop::diagnosis::diagnose(&shardtop::diagnosis::Input::of(
        &sim,
        shardtop::diagnosis::SourceKind::Live,
    ));
    let d = d.of("app.orders").unwrap();
    assert_eq!(d.status.as_str(), "blocked", "{d:?}");
    assert_eq!(d.cause.rule, "activeWindowRejected");
    assert!(d.cause.message.contains("activeWindow format is"), "{d:?}");
    let before = sim.cluster.balancer.rounds;
    sim.run_until(sim.cluster.now_ms + 60_000);
    assert_eq!(sim.cluster.balancer.rounds, before, "no round runs");
}

#[test]
fn auto_split_only_is_never_shown_as_on() {
    let mut c = cluster(&three(), doc! {}, doc! {"mode": "autoSplitOnly"});
    c.balancer.why_not = in_flight::why(&c, &["app.orders: chunksImbalance".to_string()]);
    let text = screen(&c, (120, 30), None);
    assert!(text.contains("autoSplitOnly"), "{text}");
    assert!(!text.contains("balancer on"), "{text}");
    assert!(!text.contains("mode on"), "{text}");
    let summary = c.summary_text_at("watch", "now", true);
    assert!(
        summary.contains("Balancer: autoSplitOnly (never migrates)"),
        "{summary}"
    );
    let json = c.summary_json(&shardtop::cluster::SummaryOptions::default());
    assert_eq!(json["balancer"]["mode"], "autoSplitOnly");
    assert_snapshot!("truth_auto_split_only_120x30", text);
}

#[test]
fn no_balance_is_said_in_the_shards_pane_and_the_json() {
    let mut c = cluster(
        &three(),
        doc! {"noBalance": true, "enableAutoMerge": false},
        doc! {},
    );
    c.balancer.why_not = in_flight::why(&c, &["app.orders: chunksImbalance".to_string()]);
    let text = screen(&c, (120, 30), None);
    assert!(text.contains("balancing: noBalance"), "{text}");
    assert!(
        text.contains("why: app.orders: noBalance (the balancer"),
        "{text}"
    );
    let json = c.summary_json(&shardtop::cluster::SummaryOptions::default());
    assert_eq!(json["collections"][0]["balancing"]["noBalance"], true);
    assert_eq!(
        json["collections"][0]["balancing"]["enableAutoMerge"],
        false
    );
    assert_snapshot!("truth_no_balance_120x30", text);
}

#[test]
fn a_drain_in_flight_says_drain_and_an_unknown_size() {
    let mut shards = three();
    shards[2].1 = true;
    let mut c = cluster(&shards, doc! {}, doc! {});
    c.balancer
        .in_flight
        .push(shardtop::cluster::balancer::Migration {
            id: 1,
            ns: "app.orders".into(),
            min: key(200),
            end: None,
            max: key(300),
            from: ShardIdx(2),
            to: ShardIdx(0),
            started_ms: NOW_MS - 4000,
            finish_ms: NOW_MS - 4000,
            bytes: None,
            bytes_estimated: true,
            reason: MigrationReason::Drain,
        });
    let text = screen(&c, (160, 40), None);
    assert!(text.contains("DRAIN"), "{text}");
    assert!(text.contains("drain · size unknown"), "{text}");
    assert!(!text.contains("0 B"), "{text}");
    let summary = c.summary_text_at("watch", "now", true);
    assert!(summary.contains("size unknown, drain"), "{summary}");
    assert_snapshot!("truth_drain_in_flight_160x40", text);
}

#[test]
fn forty_long_shard_names_stay_distinct() {
    let shards: Vec<(String, bool)> = (1..=40)
        .map(|i| (format!("mongos-01-shard-rs-{i:04}"), false))
        .collect();
    let c = cluster(&shards, doc! {}, doc! {});
    let text = screen(&c, (120, 50), None);
    // Each row's name is distinct and ends in the shard's own number.
    let rows: Vec<String> = text
        .lines()
        .filter(|l| l.contains("mongos-01"))
        .map(|l| {
            let l = l.replacen('▶', " ", 1);
            l.split_whitespace().nth(1).unwrap().to_string()
        })
        .collect();
    assert!(rows.len() >= 30, "{text}");
    let distinct: std::collections::HashSet<&String> = rows.iter().collect();
    assert_eq!(distinct.len(), rows.len(), "{text}");
    for (i, name) in rows.iter().enumerate() {
        assert!(name.ends_with(&format!("{:02}", i + 1)), "{name}: {text}");
    }
    assert_snapshot!("truth_forty_long_names_120x50", text);
}

#[test]
fn the_shards_not_shown_are_counted_with_the_notes_on_screen() {
    let shards: Vec<(String, bool)> = (1..=40)
        .map(|i| (format!("mongos-01-shard-rs-{i:04}"), false))
        .collect();
    for (extra, height) in [
        (doc! {}, 30),
        (doc! {"noBalance": true, "permitMigrations": false}, 30),
        (doc! {"noBalance": true}, 50),
    ] {
        let noted = !extra.is_empty();
        let c = cluster(&shards, extra, doc! {});
        let text = screen(&c, (120, height), None);
        let shown = text.lines().filter(|l| l.contains("mongos-01")).count();
        let more: usize = (text.lines())
            .find_map(|l| l.split("… ").nth(1)?.split(" more").next()?.parse().ok())
            .unwrap_or_else(|| panic!("no \"… N more\": {text}"));
        assert_eq!(shown + more, 40, "{text}");
        assert_eq!(
            text.contains("noBalance: the balancer skips it"),
            noted,
            "{text}"
        );
    }
}

#[test]
fn a_failed_poll_shows_disconnected_not_live() {
    let c = cluster(&three(), doc! {}, doc! {});
    let text = screen(&c, (120, 30), Some(NOW_MS + 5000));
    assert!(text.contains("disconnected since 03:00:05 UTC"), "{text}");
    assert!(!text.contains("● live"), "{text}");
}

proptest! {
    #[test]
    fn cut_names_are_distinct_and_keep_head_and_tail(
        prefix in "[a-z-]{0,20}",
        suffixes in proptest::collection::hash_set("[a-z0-9]{1,8}", 1..50),
        width in 4usize..30,
    ) {
        let names: Vec<String> = suffixes.iter().map(|s| format!("{prefix}{s}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let (w, cut) = shardtop::units::shortest_unique(&refs, width);
        prop_assert!(w >= width);
        let mut seen = std::collections::HashSet::new();
        for (name, c) in names.iter().zip(&cut) {
            prop_assert!(seen.insert(c.clone()), "{c} twice");
            prop_assert!(c.chars().count() <= w.max(name.chars().count().min(w)));
            if c != name {
                let (head, tail) = c.split_once('…').unwrap();
                prop_assert!(name.starts_with(head) && name.ends_with(tail));
                prop_assert_eq!(c.chars().count(), w);
            }
        }
        if let Some(cut) = shardtop::units::cut_names(&refs, width) {
            let set: std::collections::HashSet<&String> = cut.iter().collect();
            prop_assert_eq!(set.len(), cut.len());
        }
    }
}

#[test]
fn live_time_axes_are_wall_clock_times() {
    use shardtop::ui::panes::axis_time;
    // Epoch milliseconds are a time of day, not 498952 hours elapsed.
    assert_eq!(axis_time(NOW_MS, false, true), "03:00:00 UTC");
    assert_eq!(axis_time(NOW_MS + 61_000, false, false), "03:01:01");
    assert!(!axis_time(NOW_MS, false, true).contains('h'));
    // Virtual time stays elapsed time.
    assert_eq!(axis_time(90_000, true, true), "1m30s");
}

#[test]
fn a_shard_missing_from_config_shards_is_flagged_not_shown_like_any_shard() {
    // As a poll numbers it: chunks name `rs2`, config.shards lists rs0 and rs1.
    let docs: Vec<ShardDoc> = ["rs0", "rs1"]
        .iter()
        .map(|id| ShardDoc::parse(&doc! {"_id": *id}).unwrap())
        .collect();
    let mut list = ShardList::new(&docs, &snapshot::empty());
    list.index_of("rs2");
    let snap = ConfigSnapshot {
        version: shardtop::cluster::ServerVersion::V8_0,
        shards: &docs,
        settings: &SettingsDocs::default(),
        databases: &[],
        tags: &[],
    };
    let polled = snapshot::cluster(&snap, list, Vec::new());
    let flags: Vec<bool> = polled.shards.iter().map(|s| s.unlisted).collect();
    assert_eq!(flags, [false, false, true]);
    // The screen, the JSON and the text say so.
    let mut c = cluster(&three(), doc! {}, doc! {});
    c.shards[2].unlisted = true;
    let text = screen(&c, (120, 30), None);
    assert!(text.contains("rs2  GHOST"), "{text}");
    assert!(text.contains("GHOST: not in config.shards: rs2"), "{text}");
    let json = c.summary_json(&shardtop::cluster::SummaryOptions::default());
    assert_eq!(json["shards"][2]["inConfigShards"], false);
    assert_eq!(json["shards"][0]["inConfigShards"], true);
    assert!(
        c.summary_text_at("watch", "now", true)
            .contains("Shard rs2 is not in config.shards")
    );
    assert_snapshot!("truth_ghost_shard_120x30", text);
}

#[test]
fn an_invalid_reported_size_is_shown_as_invalid_not_as_a_figure() {
    let mut c = cluster(&three(), doc! {}, doc! {});
    c.collections[0].invalid_sizes = vec![ShardIdx(1)];
    let text = screen(&c, (120, 30), None);
    assert!(text.contains("invalid"), "{text}");
    let json = c.summary_json(&shardtop::cluster::SummaryOptions::default());
    let row = &json["collections"][0]["shards"][1];
    assert_eq!(row["bytes"], serde_json::Value::Null);
    assert_eq!(row["sizesInvalid"], true);
    assert!(
        c.summary_text_at("watch", "now", true)
            .contains("data    invalid")
    );
}
