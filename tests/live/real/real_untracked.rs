//! Untracked unsharded collections on an 8.0.10+ mongos: `watch` names them from
//! `$listClusterCatalog` (served by [`super::real_mongos`] from `untracked-8.0.json`), each on the
//! shard the stage names, with its `$collStats` sizes; views, `system.*` collections other than
//! time-series buckets, and `admin`/`config`/`local` are left out, and a tracked collection is
//! never listed twice. Expectations are computed from the file's documents.

use bson::Bson;
use serde_json::Value;

use super::helpers::watch_once_json;
use super::real_mongos::{self, ClusterFile};

fn file(name: &str) -> ClusterFile {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clusters");
    ClusterFile::load(&dir.join(name))
}

/// `(ns, shard)` of each collection the file's `$listClusterCatalog` names that `watch` must show
/// as untracked.
fn untracked(f: &ClusterFile) -> Vec<(String, String)> {
    let tracked: Vec<&str> = (f.docs("collections").iter())
        .map(|c| c.get_str("_id").unwrap())
        .collect();
    let all = f.replies.get_array("listClusterCatalog").unwrap();
    // A time series is named by its view (its buckets collection holds the data).
    let shown_as = |ns: &str| ns.replace(".system.buckets.", ".");
    let mut out: Vec<(String, String)> = all
        .iter()
        .filter_map(Bson::as_document)
        .filter(|d| d.get_bool("sharded") == Ok(false) && d.get_str("type") == Ok("collection"))
        .map(|d| d.get_str("ns").unwrap().to_string())
        .filter(|ns| {
            let (db, coll) = ns.split_once('.').unwrap();
            !["admin", "config", "local"].contains(&db)
                && (!coll.starts_with("system.") || coll.starts_with("system.buckets."))
                && !tracked.contains(&ns.as_str())
        })
        .map(|ns| {
            let d = (all.iter().filter_map(Bson::as_document))
                .find(|d| d.get_str("ns") == Ok(ns.as_str()))
                .unwrap();
            let shard = d.get_array("shards").unwrap()[0].as_str().unwrap();
            (shown_as(&ns), shard.to_string())
        })
        .collect();
    out.sort();
    out
}

async fn once(f: &ClusterFile) -> (Value, Vec<String>) {
    let mongos = real_mongos::start(f.clone()).await;
    let out = watch_once_json(&mongos.uri).await;
    assert!(out.status.success(), "{}: {out:?}", f.name);
    let unknown = mongos.unknown.lock().unwrap().clone();
    (serde_json::from_slice(&out.stdout).unwrap(), unknown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untracked_collections_are_listed_on_the_shard_the_catalog_names() {
    let f = file("untracked-8.0.json");
    let want = untracked(&f);
    assert_eq!(want.len(), 2, "the file has two: {want:?}");
    let (v, unknown) = once(&f).await;
    assert!(unknown.is_empty(), "{unknown:#?}");
    let colls = v["collections"].as_array().unwrap();
    let shown: Vec<(String, String)> = colls
        .iter()
        .filter(|c| c["placement"] == "untracked")
        .map(|c| {
            let on: Vec<&str> = (c["shards"].as_array().unwrap().iter())
                .filter(|s| s["chunks"].as_u64().unwrap() > 0)
                .map(|s| s["shard"].as_str().unwrap())
                .collect();
            assert_eq!(on.len(), 1, "{c}");
            (c["ns"].as_str().unwrap().to_string(), on[0].to_string())
        })
        .collect();
    assert_eq!(shown, want);
    // Sizes from `$collStats`, on the shard that holds the collection.
    for (ns, shard) in &want {
        let stats = f.replies.get_document("collStats").unwrap();
        let buckets = ns.replace("metrics.", "metrics.system.buckets.");
        let row = (stats.get_array(ns).or_else(|_| stats.get_array(&buckets))).unwrap()[0]
            .as_document()
            .unwrap();
        let st = row.get_document("storageStats").unwrap();
        let c = colls.iter().find(|c| c["ns"] == ns.as_str()).unwrap();
        // No document names a shard key for it: none is invented.
        assert!(c["key"].is_null(), "{c}");
        let s = (c["shards"].as_array().unwrap().iter())
            .find(|s| s["shard"] == shard.as_str())
            .unwrap();
        let n = |k: &str| match st.get(k).unwrap() {
            Bson::Int32(n) => *n as u64,
            Bson::Int64(n) => *n as u64,
            other => panic!("{other:?}"),
        };
        let docs_key = if ns.starts_with("metrics.") {
            "buckets"
        } else {
            "docs"
        };
        assert_eq!(s[docs_key], n("count"), "{c}");
        assert_eq!(s["bytes"], n("size"), "{c}");
    }
    // Each collection once: the tracked one (shop.logs) keeps its placement.
    let mut names: Vec<&str> = colls.iter().map(|c| c["ns"].as_str().unwrap()).collect();
    names.sort_unstable();
    let total = names.len();
    names.dedup();
    assert_eq!(names.len(), total, "{names:?}");
    let logs = colls.iter().find(|c| c["ns"] == "shop.logs").unwrap();
    assert_eq!(logs["placement"], "unsplittable");
    for left_out in ["shop.recent", "shop.system.views", "admin.system.version"] {
        assert!(!names.contains(&left_out), "{left_out}: {names:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_8_0_10_the_stage_is_not_sent() {
    let mut f = file("untracked-8.0.json");
    f.version = "8.0.9".into();
    let (v, unknown) = once(&f).await;
    assert!(unknown.is_empty(), "{unknown:#?}");
    let colls = v["collections"].as_array().unwrap();
    assert!(
        !colls.iter().any(|c| c["placement"] == "untracked"),
        "{colls:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_catalog_is_said_and_the_rest_is_shown() {
    let mut f = file("untracked-8.0.json");
    let error = bson::doc! {
        "ok": 0.0,
        "errmsg": "not authorized on admin to execute command { aggregate: 1, pipeline: [ { $listClusterCatalog: { shards: true } } ] }",
        "code": 13,
        "codeName": "Unauthorized",
    };
    f.refuses
        .push(("aggregate".into(), "$listClusterCatalog".into(), error));
    let mongos = real_mongos::start(f.clone()).await;
    let out = watch_once_json(&mongos.uri).await;
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("aggregate $listClusterCatalog") && stderr.contains("listClusterCatalog"),
        "{stderr}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let colls = v["collections"].as_array().unwrap();
    assert!(colls.iter().any(|c| c["ns"] == "shop.orders"));
    assert!(!colls.iter().any(|c| c["placement"] == "untracked"));
}
