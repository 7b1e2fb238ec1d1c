#![allow(clippy::unwrap_used)]
//! What real 8.x clusters have, read by the live source from `shardtop serve`: tracked unsharded
//! (`unsplittable`) collections shown on the shard that holds them, with their sizes.

use serde_json::Value;
use shardtop::cluster::{Placement, SummaryOptions};
use shardtop::sim::{Simulator, scenario};

fn collection<'a>(summary: &'a Value, ns: &str) -> &'a Value {
    summary["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ns"] == ns)
        .unwrap_or_else(|| panic!("{ns} not in {summary}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracked_unsharded_collections_show_on_their_shard_with_their_sizes() {
    let sc = scenario::built_in("move-collection").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(420_000);
    let opts = SummaryOptions {
        source: String::new(),
        chunks: false,
        writes_unknown: true,
    };
    let expected = sim.cluster.summary_json(&opts);
    for ns in ["app.events", "app.audit"] {
        let c = sim.cluster.collection(ns).unwrap();
        assert_eq!(c.placement, Placement::Unsplittable, "{ns} moved by then");
    }
    let polled = crate::helpers::polled_paused(sim).await;
    let got = polled.state.summary_json(&opts);
    for ns in ["app.events", "app.audit"] {
        let (want, have) = (collection(&expected, ns), collection(&got, ns));
        assert_eq!(have["placement"], "unsplittable", "{have}");
        assert_eq!(have["chunks"], 1, "{have}");
        // The one shard that holds it, and its documents and bytes ($collStats).
        assert_eq!(have["shards"], want["shards"], "{ns}");
        let holders: Vec<&Value> = have["shards"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["chunks"] == 1)
            .collect();
        assert_eq!(holders.len(), 1, "{have}");
        assert!(holders[0]["docs"].as_u64().unwrap() > 0, "{have}");
    }
    assert_eq!(collection(&got, "app.events")["shards"][2]["chunks"], 1);
    // The text summary says what it is.
    let text = polled.state.summary_text_at("t", "now", true);
    assert!(
        text.contains("app.events  unsharded (tracked, unsplittable) on shard0002"),
        "{text}"
    );
    // The sharded collection is still balanced as before.
    assert!(collection(&got, "app.orders").get("placement").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_balancing_window_is_in_server_time_and_never_claimed_open_without_evidence() {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.cluster.settings.active_window = Some(shardtop::cluster::ActiveWindow {
        start_minute: 0,
        stop_minute: 23 * 60,
    });
    sim.run_until(60_000);
    let polled = crate::helpers::polled_paused(sim).await;
    let json = polled.state.summary_json(&SummaryOptions::default());
    let w = &json["balancer"]["activeWindow"];
    // `serve` writes the simulator's window (minutes of its clock) in the wall-clock time of its
    // start plus them: the window is 23 hours long, whatever minute it starts at.
    let minute = |v: &serde_json::Value| {
        let (h, m) = v.as_str().unwrap().split_once(':').unwrap();
        h.parse::<u32>().unwrap() * 60 + m.parse::<u32>().unwrap()
    };
    let (start, stop) = (minute(&w["start"]), minute(&w["stop"]));
    assert_eq!((stop + 1440 - start) % 1440, 23 * 60, "{w}");
    assert_eq!(w["timeZone"], "server", "{w}");
    // The rounds `serve` logged are the evidence; whatever they allow, "open" is a boolean only
    // when every time zone they fit agrees.
    let rounds = w["inferredFromRounds"].as_u64().unwrap();
    assert!(rounds > 0, "{w}");
    let now = polled.state.balancer.window_now.clone().unwrap();
    assert_eq!(now.rounds as u64, rounds);
    assert_eq!(w["open"].as_bool(), now.open, "{w}");
    let text = polled.state.summary_text_at("t", "now", true);
    let said = format!(
        "balancing window {}–{} server time, ",
        w["start"].as_str().unwrap(),
        w["stop"].as_str().unwrap()
    );
    assert!(text.contains(&said), "{text}");
}

/// A time-series collection sharded on its metadata: `config.collections` names its buckets
/// collection (shaped after mongo `src/mongo/s/catalog/type_collection.idl`, `timeseriesFields`
/// and `type_collection_timeseries_fields.idl`; no published document was found).
const TIMESERIES_ENTRY: &str = r#"{
  "_id": "iot.system.buckets.weather",
  "lastmodEpoch": {"$oid": "65a954c0de11596e08e7c1dd"},
  "lastmod": {"$date": "2024-01-18T16:41:35.000Z"},
  "timestamp": {"$timestamp": {"t": 1705596095, "i": 3}},
  "uuid": {"$binary": {"base64": "pEeSFaONR4+oLOVEXVFeVQ==", "subType": "04"}},
  "key": {"meta.sensorId": 1, "control.min.timestamp": 1},
  "unique": false,
  "noBalance": false,
  "timeseriesFields": {"timeField": "timestamp", "metaField": "meta", "granularity": "seconds",
    "bucketMaxSpanSeconds": 3600}
}"#;

const TIMESERIES_SCENARIO: &str = r#"{
  "name": "timeseries", "description": "test", "seedPassage": "none",
  "serverVersion": "8.0", "shards": 2,
  "collections": [{"ns": "iot.system.buckets.weather", "key": {"meta.sensorId": 1}}],
  "workloads": [{"ns": "iot.system.buckets.weather", "rate": 500, "count": 2000,
    "docSize": {"min": 2000, "max": 2000},
    "fields": {"meta.sensorId": {"uniformInt": {"min": 1, "max": 500}}}}],
  "until": 10
}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_time_series_is_named_by_its_view_and_counts_buckets() {
    let v: Value = serde_json::from_str(TIMESERIES_ENTRY).unwrap();
    let doc = bson::Bson::try_from(v).unwrap();
    let entry = shardtop::live::config::CollectionDoc::parse(doc.as_document().unwrap()).unwrap();
    assert!(entry.is_sharded());
    assert_eq!(
        shardtop::cluster::ns_kind::display_ns(&entry.ns),
        "iot.weather"
    );
    let sc = scenario::parse(TIMESERIES_SCENARIO).unwrap();
    let mut sim = Simulator::from_scenario(&sc, 3, None).unwrap();
    sim.run_until(10_000);
    let polled = crate::helpers::polled_paused(sim).await;
    let json = polled.state.summary_json(&SummaryOptions::default());
    let c = collection(&json, "iot.weather");
    assert_eq!(c["timeseries"]["bucketsNs"], "iot.system.buckets.weather");
    let buckets: u64 = c["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            assert!(s.get("docs").is_none(), "buckets are not documents: {s}");
            s["buckets"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(buckets, 2000, "{c}");
    let text = polled.state.summary_text_at("t", "now", true);
    assert!(
        text.contains("iot.weather  time series (buckets in iot.system.buckets.weather)"),
        "{text}"
    );
    let block = text.split("iot.weather  ").nth(1).unwrap();
    let block = block.split("\n\n").next().unwrap();
    assert!(
        block.contains("buckets      2000") && !block.contains("docs"),
        "{block}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resharding_in_flight_shows_the_recipients_progress() {
    let sc = scenario::built_in("reshard").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(200_000);
    assert!(
        sim.cluster
            .collection("shop.orders")
            .unwrap()
            .resharding
            .is_some(),
        "the scenario reshards by then"
    );
    let polled = crate::helpers::polled_paused(sim).await;
    let c = polled.state.collection("shop.orders").unwrap();
    let p = c.resharding_progress.as_ref().expect("progress read");
    assert!(!p.recipients.is_empty(), "{p:?}");
    let (done, total) = p.bytes().expect("bytes reported");
    assert!(total > 0 && done <= total, "{p:?}");
    assert_eq!(p.key.as_deref(), Some(r#"{"customerId":1,"placedAt":1}"#));
    assert!(
        p.phase().is_some() && p.coordinator_state.is_some(),
        "{p:?}"
    );
    let json = polled.state.summary_json(&SummaryOptions::default());
    let r = &collection(&json, "shop.orders")["resharding"];
    assert_eq!(r["approxBytesToCopy"], total, "{r}");
    assert_eq!(
        r["recipients"].as_array().unwrap().len(),
        p.recipients.len(),
        "{r}"
    );
    let text = polled.state.summary_text_at("t", "now", true);
    assert!(
        text.contains("resharding to {\"customerId\":1,\"placedAt\":1} · "),
        "{text}"
    );
    // No other collection claims a resharding.
    assert!(
        polled
            .state
            .collections
            .iter()
            .filter(|c| c.ns != "shop.orders")
            .all(|c| c.resharding_progress.is_none())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drain_is_read_from_shard_draining_status_on_8_3_and_derived_before() {
    let mut seen = Vec::new();
    for version in ["8.0", "8.3"] {
        let sc = scenario::built_in("drain").unwrap().unwrap();
        let mut sim =
            Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
        sim.run_until(60_000);
        let polled = crate::helpers::polled_paused(sim).await;
        let drains = &polled.state.balancer.drains;
        assert_eq!(drains.len(), 1, "{version}: {drains:?}");
        let d = &drains[0];
        assert_eq!(d.shard, "shard0003");
        let want = if version == "8.3" {
            "shardDrainingStatus"
        } else {
            "derived"
        };
        assert_eq!(d.source.as_str(), want, "{version}");
        assert!(d.chunks > 0, "{version}: {d:?}");
        // The catalog the poll read says the same as the server.
        let derived = shardtop::live::draining::derive(
            &polled.state,
            polled.state.shard_index("shard0003").unwrap(),
        );
        assert_eq!(
            (derived.chunks, &derived.dbs_to_move),
            (d.chunks, &d.dbs_to_move),
            "{version}"
        );
        // One poll has no rate: no estimate is made up.
        assert_eq!(d.eta_secs, None);
        assert!(d.text().contains("no progress seen yet"), "{}", d.text());
        let json = polled.state.summary_json(&SummaryOptions::default());
        assert_eq!(json["balancer"]["drains"][0]["source"], want);
        assert_eq!(
            json["balancer"]["drains"][0]["remaining"]["chunks"],
            d.chunks
        );
        seen.push(d.chunks);
    }
    assert_eq!(seen[0], seen[1], "both versions drain the same scenario");
}
