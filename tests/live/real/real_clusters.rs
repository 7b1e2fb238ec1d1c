//! `watch --once --json`, `watch --check` and `record` → `replay` (the real binary) against every
//! cluster of `tests/fixtures/clusters`, served by [`super::real_mongos`]: each must run (exit 0,
//! never refuse a real cluster) and its summary must say what the documents imply — counts,
//! sizes, jumbo flags, zones, chunk size, balancer state, inconsistencies — computed here from
//! the documents, not written down.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bson::{Bson, Document};
use serde_json::Value;
use shardtop::model::{KeyPattern, ShardKey};

use super::real_mongos::{self, ClusterFile};

pub(super) fn clusters() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clusters");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    assert!(out.len() >= 9, "{out:?}");
    out
}

use super::helpers::{shardtop, watch_once_json};

/// What one collection's documents say.
#[derive(Debug, Default)]
pub(super) struct Expected {
    pub(super) chunks: BTreeMap<String, u64>,
    pub(super) jumbo: BTreeMap<String, u64>,
    /// `(docs, bytes, orphaned docs)` per shard, from the size replies.
    pub(super) sizes: BTreeMap<String, (u64, u64, u64)>,
    pub(super) inconsistencies: Vec<String>,
}

fn number(d: &Document, k: &str) -> u64 {
    match d.get(k) {
        Some(Bson::Int32(n)) => *n as u64,
        Some(Bson::Int64(n)) => *n as u64,
        Some(Bson::Double(n)) => *n as u64,
        other => panic!("{k}: {other:?}"),
    }
}

/// The release line of a version string: what comes before the second dot.
fn line(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The default chunk size of the line, or the `chunksize` setting a server accepts (an integral
/// number of MB from 1 to 1024).
fn chunk_size(f: &ClusterFile) -> u64 {
    let major: u32 = f.version.split('.').next().unwrap().parse().unwrap();
    let default = if major < 6 { 64 << 20 } else { 128 << 20 };
    let setting = f
        .docs("settings")
        .iter()
        .find(|d| d.get_str("_id") == Ok("chunksize"));
    match setting.and_then(|d| d.get("value")) {
        Some(Bson::Int32(n)) if (1..=1024).contains(n) => (*n as u64) << 20,
        Some(Bson::Int64(n)) if (1..=1024).contains(n) => (*n as u64) << 20,
        _ => default,
    }
}

fn balancer_off(f: &ClusterFile) -> bool {
    let settings = f
        .docs("settings")
        .iter()
        .find(|d| d.get_str("_id") == Ok("balancer"));
    let status = f.replies.get_document("balancerStatus").unwrap();
    settings.is_some_and(|d| d.get_bool("stopped") == Ok(true) || d.get_str("mode") == Ok("off"))
        || status.get_str("mode") == Ok("off")
}

fn uses_sharded_data_distribution(f: &ClusterFile) -> bool {
    f.replies.get_array("shardedDataDistribution").is_ok()
        && !f
            .refuses
            .iter()
            .any(|(_, s, _)| s == "$shardedDataDistribution")
}

/// Each sharded collection's expectations, from `config.collections`, `config.chunks` and the
/// size replies.
pub(super) fn expected(f: &ClusterFile) -> BTreeMap<String, Expected> {
    let mut out = BTreeMap::new();
    for coll in f.docs("collections") {
        if coll.get_bool("dropped") == Ok(true) || coll.get_bool("unsplittable") == Ok(true) {
            continue;
        }
        let ns = coll.get_str("_id").unwrap().to_string();
        let pattern = KeyPattern::parse(coll.get_document("key").unwrap()).unwrap();
        // Chunks by uuid when the collection document has a `timestamp` (5.0+), else by ns.
        let by_uuid = coll.get("timestamp").is_some();
        let mine = |c: &&Document| {
            if by_uuid {
                c.get("uuid") == coll.get("uuid")
            } else {
                c.get_str("ns") == Ok(ns.as_str())
            }
        };
        let mut e = Expected::default();
        let mut ranges: Vec<(ShardKey, ShardKey)> = Vec::new();
        for c in f.docs("chunks").iter().filter(mine) {
            let shard = c.get_str("shard").unwrap().to_string();
            *e.chunks.entry(shard.clone()).or_default() += 1;
            if c.get_bool("jumbo") == Ok(true) {
                *e.jumbo.entry(shard).or_default() += 1;
            }
            let bound = |k: &str| {
                pattern
                    .bound_from_document(c.get_document(k).unwrap())
                    .unwrap()
            };
            ranges.push((bound("min"), bound("max")));
        }
        ranges.sort();
        for pair in ranges.windows(2) {
            match pair[0].1.cmp(&pair[1].0) {
                std::cmp::Ordering::Less => e.inconsistencies.push("RoutingTableRangeGap".into()),
                std::cmp::Ordering::Greater => {
                    e.inconsistencies.push("RoutingTableRangeOverlap".into());
                }
                std::cmp::Ordering::Equal => {}
            }
        }
        if ranges.first().is_some_and(|r| r.0 != pattern.global_min()) {
            e.inconsistencies.push("RoutingTableMissingMinKey".into());
        }
        if ranges.last().is_some_and(|r| r.1 != pattern.global_max()) {
            e.inconsistencies.push("RoutingTableMissingMaxKey".into());
        }
        out.insert(ns, e);
    }
    if uses_sharded_data_distribution(f) {
        for row in f.replies.get_array("shardedDataDistribution").unwrap() {
            let row = row.as_document().unwrap();
            let Some(e) = out.get_mut(row.get_str("ns").unwrap()) else {
                continue;
            };
            for s in row.get_array("shards").unwrap() {
                let s = s.as_document().unwrap();
                e.sizes.insert(
                    s.get_str("shardName").unwrap().to_string(),
                    (
                        number(s, "numOwnedDocuments"),
                        number(s, "ownedSizeBytes"),
                        number(s, "numOrphanedDocs"),
                    ),
                );
            }
        }
    } else {
        let stats = f.replies.get_document("collStats").unwrap();
        for (ns, e) in &mut out {
            for r in stats.get_array(ns).unwrap() {
                let r = r.as_document().unwrap();
                let st = r.get_document("storageStats").unwrap();
                e.sizes.insert(
                    r.get_str("shard").unwrap().to_string(),
                    (number(st, "count"), number(st, "size"), 0),
                );
            }
        }
    }
    out
}

/// The summary says what the documents imply.
fn check_summary(f: &ClusterFile, v: &Value, what: &str) {
    let name = format!("{} ({what})", f.name);
    assert_eq!(v["serverVersion"], line(&f.version), "{name}");
    assert_eq!(v["chunkSizeBytes"], chunk_size(f), "{name}");
    assert_eq!(
        v["balancer"]["mode"] == "off",
        balancer_off(f),
        "{name}: {}",
        v["balancer"]
    );
    let shards = v["shards"].as_array().unwrap();
    let shard = |id: &str| shards.iter().find(|s| s["id"] == id);
    for d in f.docs("shards") {
        let id = d.get_str("_id").unwrap();
        let s = shard(id).unwrap_or_else(|| panic!("{name}: shard {id} missing"));
        let zones: Vec<&str> = d
            .get_array("tags")
            .map(|t| t.iter().filter_map(Bson::as_str).collect())
            .unwrap_or_default();
        let shown: Vec<&str> = s["zones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|z| z.as_str().unwrap())
            .collect();
        assert_eq!(shown, zones, "{name}: zones of {id}");
        assert_eq!(
            s["draining"],
            d.get_bool("draining").unwrap_or(false),
            "{name}: {id}"
        );
    }
    let colls = v["collections"].as_array().unwrap();
    for (ns, e) in expected(f) {
        if e.chunks.is_empty() {
            // MissingRoutingTable: no routing table to show; said on stderr (`watch` test).
            assert!(!colls.iter().any(|c| c["ns"] == ns), "{name}: {ns} listed");
            continue;
        }
        let c = colls
            .iter()
            .find(|c| c["ns"] == ns)
            .unwrap_or_else(|| panic!("{name}: collection {ns} not shown"));
        let total: u64 = e.chunks.values().sum();
        assert_eq!(c["chunks"], total, "{name}: {ns} chunks");
        assert_eq!(
            c["jumbo"],
            e.jumbo.values().sum::<u64>(),
            "{name}: {ns} jumbo"
        );
        for s in c["shards"].as_array().unwrap() {
            let id = s["shard"].as_str().unwrap();
            let n = |m: &BTreeMap<String, u64>| m.get(id).copied().unwrap_or(0);
            assert_eq!(s["chunks"], n(&e.chunks), "{name}: {ns} chunks on {id}");
            assert_eq!(s["jumbo"], n(&e.jumbo), "{name}: {ns} jumbo on {id}");
            // A shard owns data only where it owns chunks (a mongos spreads sizes over them).
            let (docs, bytes, orphans) = match e.sizes.get(id) {
                Some(&z) if n(&e.chunks) > 0 => z,
                Some(&(_, _, o)) => (0, 0, o),
                None => (0, 0, 0),
            };
            assert_eq!(s["docs"], docs, "{name}: {ns} docs on {id}");
            assert_eq!(s["bytes"], bytes, "{name}: {ns} bytes on {id}");
            assert_eq!(s["orphanedDocs"], orphans, "{name}: {ns} orphans on {id}");
        }
        for id in e.chunks.keys() {
            assert!(
                shard(id).is_some(),
                "{name}: shard {id} of {ns}'s chunks not shown"
            );
        }
        let shown: Vec<&str> = c["inconsistencies"]
            .as_array()
            .map(|a| a.iter().map(|i| i["type"].as_str().unwrap()).collect())
            .unwrap_or_default();
        assert_eq!(shown, e.inconsistencies, "{name}: {ns} inconsistencies");
        for i in c["inconsistencies"].as_array().into_iter().flatten() {
            let text = i["description"].as_str().unwrap();
            assert!(
                text.starts_with(&ns) && !text.contains("ShardKey"),
                "{text}"
            );
        }
    }
}

/// Each tracked unsharded collection (`unsplittable: true` in `config.collections`, 8.0+) is
/// listed as `placement: "unsplittable"`, on the shard its one chunk names and no other; the
/// number of them checked.
fn check_unsplittable(f: &ClusterFile, v: &Value) -> usize {
    let colls = v["collections"].as_array().unwrap();
    let mut checked = 0;
    for coll in f.docs("collections") {
        if coll.get_bool("unsplittable") != Ok(true) || coll.get_bool("dropped") == Ok(true) {
            continue;
        }
        let ns = coll.get_str("_id").unwrap();
        let owners: Vec<&str> = (f.docs("chunks").iter())
            .filter(|c| c.get("uuid") == coll.get("uuid"))
            .map(|c| c.get_str("shard").unwrap())
            .collect();
        assert_eq!(owners.len(), 1, "{}: {ns} has one chunk", f.name);
        let c = colls
            .iter()
            .find(|c| c["ns"] == ns)
            .unwrap_or_else(|| panic!("{}: {ns} not listed", f.name));
        assert_eq!(c["placement"], "unsplittable", "{}: {c}", f.name);
        assert_eq!(c["chunks"], 1, "{}: {c}", f.name);
        let on: Vec<&str> = (c["shards"].as_array().unwrap().iter())
            .filter(|s| s["chunks"].as_u64().unwrap() > 0)
            .map(|s| s["shard"].as_str().unwrap())
            .collect();
        assert_eq!(on, owners, "{}: {ns}", f.name);
        checked += 1;
    }
    checked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_runs_on_every_real_cluster_and_says_what_its_documents_imply() {
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let name = file.name.clone();
        let mongos = real_mongos::start(file.clone()).await;
        let out = watch_once_json(&mongos.uri).await;
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{name}: {out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        check_summary(&file, &v, "watch --once --json");
        let unsplittable = check_unsplittable(&file, &v);
        if name.starts_with("8.0.32") {
            // 8.0.32's shop.logs: tracked, unsharded, on sh2.
            assert_eq!(unsplittable, 1, "{name}");
            let logs = (v["collections"].as_array().unwrap().iter())
                .find(|c| c["ns"] == "shop.logs")
                .unwrap();
            assert_eq!(logs["placement"], "unsplittable", "{logs}");
            let sh2 = (logs["shards"].as_array().unwrap().iter())
                .find(|s| s["shard"] == "sh2")
                .unwrap();
            assert_eq!(sh2["chunks"], 1, "{logs}");
        }
        // A collection with no chunk is named, in checkMetadataConsistency's words.
        for (ns, e) in expected(&file) {
            let said = format!("{ns}: INCONSISTENT: MissingRoutingTable");
            assert_eq!(
                stderr.contains(&said),
                e.chunks.is_empty(),
                "{name}: {stderr}"
            );
        }
        let bad_chunk_size = file
            .docs("settings")
            .iter()
            .filter(|d| d.get_str("_id") == Ok("chunksize"))
            .any(|d| !matches!(d.get("value"), Some(Bson::Int32(1..=1024))));
        assert_eq!(
            stderr.contains("config.settings chunksize"),
            bad_chunk_size,
            "{name}: {stderr}"
        );
        // A read the file answers with an error is named, with the server's words.
        let errors = file
            .replies
            .get_document("balancerCollectionStatus")
            .unwrap()
            .iter()
            .filter(|(_, r)| {
                r.as_document()
                    .and_then(|r| r.get_str("errmsg").ok())
                    .is_some()
            })
            .count();
        assert_eq!(
            stderr.matches("the server refused it").count(),
            errors,
            "{name}: {stderr}"
        );
        // A zone range that does not fit its collection's key is left out, and said so.
        let misfit = file.docs("tags").iter().any(|t| {
            let coll = file
                .docs("collections")
                .iter()
                .find(|c| c.get_str("_id") == t.get_str("ns"));
            let key = coll.and_then(|c| c.get_document("key").ok());
            let fields = |d: &Document| d.keys().cloned().collect::<Vec<_>>();
            key.is_none_or(|k| fields(k) != fields(t.get_document("min").unwrap()))
        });
        assert_eq!(stderr.contains("not shown"), misfit, "{name}: {stderr}");
        let unknown = mongos.unknown.lock().unwrap().clone();
        assert!(
            unknown.is_empty(),
            "{name}: reads the test mongos does not know: {unknown:#?}"
        );
        let received = mongos.received.lock().unwrap().clone();
        let refused_hello = file.refuses.iter().any(|(c, _, _)| c == "hello");
        assert!(
            received.iter().any(|c| c == "isMaster"),
            "{name}: the driver's handshake is isMaster: {received:?}"
        );
        if refused_hello {
            assert!(
                !received
                    .iter()
                    .skip_while(|c| *c != "hello")
                    .skip(1)
                    .any(|c| c == "hello"),
                "{name}: hello asked again after CommandNotFound: {received:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_check_lists_the_reads_that_version_answers() {
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let name = file.name.clone();
        let mongos = real_mongos::start(file.clone()).await;
        let out = shardtop(vec!["watch".into(), mongos.uri.clone(), "--check".into()]).await;
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{name}: {out:?}");
        assert!(stdout.contains("access control is off"), "{name}: {stdout}");
        assert_eq!(
            stdout.contains("$shardedDataDistribution"),
            uses_sharded_data_distribution(&file),
            "{name}: {stdout}"
        );
        let unknown = mongos.unknown.lock().unwrap().clone();
        assert!(unknown.is_empty(), "{name}: {unknown:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recording_of_every_real_cluster_replays_to_the_same_summary() {
    let dir = tempfile::tempdir().unwrap();
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let name = file.name.clone();
        let mongos = real_mongos::start(file.clone()).await;
        let trace = dir.path().join(format!("{name}.ndjson"));
        let out = super::helpers::record_2s(&mongos.uri, &trace).await;
        assert!(out.status.success(), "{name}: {out:?}");
        let out = shardtop(vec![
            "replay".into(),
            trace.display().to_string(),
            "--json".into(),
        ])
        .await;
        assert!(out.status.success(), "{name}: {out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        check_summary(&file, &v, "replay");
        let unknown = mongos.unknown.lock().unwrap().clone();
        assert!(unknown.is_empty(), "{name}: {unknown:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_view_marks_an_inconsistent_collection_and_shows_the_others() {
    use shardtop::view::{ClockView, ViewRequest, build};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clusters");
    let file = ClusterFile::load(&dir.join("awkward-overlap-7.0.json"));
    let mongos = real_mongos::start(file).await;
    let polled = shardtop::live::poller::poll_once(&mongos.uri, std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let state = &polled.state;
    let names: Vec<&str> = state.collections.iter().map(|c| c.ns.as_str()).collect();
    assert_eq!(
        names,
        ["config.system.sessions", "ecommerce.orders", "test.authors"]
    );
    for (i, c) in state.collections.iter().enumerate() {
        let req = ViewRequest {
            collection: i,
            ..ViewRequest::default()
        };
        let view = build(state, &req, "test", ClockView::default());
        let activity = view.collection.unwrap().activity;
        if c.ns == "test.authors" {
            assert_eq!(
                activity.as_deref(),
                Some("INCONSISTENT: RoutingTableRangeOverlap (chunks shown by lower bound)")
            );
        } else {
            assert_eq!(activity, None, "{}", c.ns);
        }
    }
    // Its chunks' `onCurrentShardSince: Timestamp(1, 0)` (MongoDB's 7.0 documentation example;
    // an upgrade to 7.0 copies it from history[0].validAfter) is unknown, not called invalid.
    let since: Vec<&str> = (polled.refused.iter())
        .map(|r| r.text.as_str())
        .filter(|t| t.contains("`onCurrentShardSince`"))
        .collect();
    assert_eq!(
        since,
        [
            "config.chunks of test.authors: `onCurrentShardSince` of 2 chunks is before 2009, not a \
          wall-clock time (set at the upgrade to 7.0 from the chunk's history): time on shard \
          unknown"
        ],
    );
    // The failed balancerCollectionStatus of test.authors is said in the balancer pane's notes.
    assert!(
        polled
            .refused
            .iter()
            .any(|r| r.text.contains("balancerCollectionStatus test.authors")
                && r.text.contains("ConflictingOperationInProgress")),
        "{:?}",
        polled.refused
    );
}
