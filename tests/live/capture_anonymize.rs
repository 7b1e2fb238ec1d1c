#![allow(clippy::unwrap_used)]
//! `capture --anonymize`: an anonymized capture of `serve` and of every real-document cluster
//! holds none of the cluster's names, none of its string shard-key values and none of its
//! shard-key field names but MongoDB's own words (the file is searched for each), its numeric
//! bounds are stand-ins in the same order, and it opens to the
//! same summary as the plain capture once names and key values are set aside: the same
//! collections, chunk counts, sizes and per-shard numbers — and `explain` of it gives the same
//! verdicts and numbers.

use std::collections::BTreeSet;
use std::time::Duration;

use bson::Document;
use serde_json::Value;
use shardtop::capture::anonymize::anonymize;
use shardtop::capture::anonymize::vocabulary::is_safe;
use shardtop::capture::{Capture, Outcome, file};
use shardtop::cluster::{Cluster, SummaryOptions};
use shardtop::files::Existing;
use shardtop::live::one_poll::{capture_once, replay_once};
use shardtop::model::KeyValue;
use shardtop::model::extjson::from_bson;
use shardtop::sim::{Simulator, scenario};

use super::helpers::shardtop;
use super::real_clusters::clusters;
use super::real_mongos::{self, ClusterFile};

fn summary(state: &Cluster) -> Value {
    state.summary_json(&SummaryOptions {
        source: String::new(),
        chunks: true,
        writes_unknown: true,
    })
}

/// `v` with every string emptied, every shard-key bound (`min`, `max`) set to null, every key
/// pattern's field names set aside and every array sorted (collections are listed by name): what
/// an anonymized capture must keep.
fn shape(v: &Value) -> Value {
    match v {
        Value::String(_) => Value::String(String::new()),
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(shape).collect();
            items.sort_by_key(ToString::to_string);
            Value::Array(items)
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| {
                    let v = if k == "min" || k == "max" {
                        Value::Null
                    } else if let (true, Value::Object(key)) = (k == "key", v) {
                        // A shard key's field names are replaced: their number and directions
                        // stay.
                        Value::Array(key.values().map(shape).collect())
                    } else {
                        shape(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The documents of the capture's reads of `config.<coll>` (chunks are read per collection).
fn config<'a>(c: &'a Capture, coll: &str) -> Vec<&'a Document> {
    (c.reads.iter())
        .filter(|r| r.db == "config" && r.command.get_str("find") == Ok(coll))
        .flat_map(|r| match &r.outcome {
            Outcome::Documents(d) => d.iter().collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The names the capture holds: databases, collections, shards, replica sets, hosts, zones.
fn names(c: &Capture) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for d in config(c, "databases") {
        out.insert(d.get_str("_id").unwrap().to_string());
    }
    for d in config(c, "collections") {
        let (db, coll) = d.get_str("_id").unwrap().split_once('.').unwrap();
        out.insert(db.to_string());
        out.insert(coll.to_string());
    }
    for d in config(c, "shards") {
        out.insert(d.get_str("_id").unwrap().to_string());
        let host = d.get_str("host").unwrap();
        let (set, hosts) = host.split_once('/').unwrap_or(("", host));
        out.insert(set.to_string());
        for h in hosts.split(',') {
            out.insert(h.rsplit_once(':').map_or(h, |(h, _)| h).to_string());
        }
        for z in d.get_array("tags").into_iter().flatten() {
            out.insert(z.as_str().unwrap().to_string());
        }
    }
    for d in config(c, "tags") {
        out.insert(d.get_str("tag").unwrap().to_string());
    }
    // MongoDB's own names stay; so do names too short to search for alone.
    out.retain(|n| {
        n.len() >= 3
            && !["admin", "config", "local", "system.sessions"].contains(&n.as_str())
            && !n.starts_with("system.")
    });
    out
}

/// Whether `name` is in `text`: as a word (between characters that cannot be in a name) when it
/// has no dot, else anywhere.
fn holds(text: &str, name: &str) -> bool {
    if name.contains('.') {
        return text.contains(name);
    }
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .any(|w| w == name)
}

/// Every chunk bound of the capture, in file order: `(field, value)`.
fn bounds(c: &Capture) -> Vec<(String, KeyValue)> {
    let mut out = Vec::new();
    for d in config(c, "chunks") {
        for k in ["min", "max"] {
            for (f, v) in d.get_document(k).unwrap() {
                out.push((f.clone(), from_bson(v)));
            }
        }
    }
    out
}

/// Checks `anon` against `plain` (see the module doc); `what` names the cluster.
fn check(plain: &Capture, anon: &Capture, text: &str, what: &str) {
    assert!(text.lines().next().unwrap().contains("\"anonymized\":true"));
    let names = names(plain);
    assert!(names.len() >= 3, "{what}: {names:?}");
    for n in &names {
        assert!(
            !holds(text, n),
            "{what}: the name {n:?} survives: {:?}",
            text.lines().find(|l| holds(l, n))
        );
    }
    let (before, after) = (bounds(plain), bounds(anon));
    assert_eq!(before.len(), after.len(), "{what}");
    let mut changed = 0;
    // A key field's name is replaced by one stand-in everywhere, never by another field's.
    let mut renamed = std::collections::BTreeMap::new();
    for (i, (f, b)) in before.iter().enumerate() {
        let to = renamed
            .entry(f.clone())
            .or_insert_with(|| after[i].0.clone());
        assert_eq!(&after[i].0, to, "{what}: {f}");
        assert!(
            f.split('.').all(is_safe) || !holds(text, f),
            "{what}: the key field {f} survives"
        );
        if let KeyValue::String(s) = b
            && s.len() >= 3
        {
            let quoted = serde_json::to_string(&**s).unwrap();
            assert!(
                !text.contains(&quoted),
                "{what}: the key value {s:?} survives"
            );
        }
        changed += usize::from(b != &after[i].1);
        assert_eq!(b.bson_type(), after[i].1.bson_type(), "{what}: {b:?}");
        for (j, (g, c)) in before.iter().enumerate() {
            if g == f {
                assert_eq!(b.cmp(c), after[i].1.cmp(&after[j].1), "{what}: {b:?} {c:?}");
            }
        }
    }
    let inner = (before.iter())
        .filter(|(_, b)| !matches!(b, KeyValue::MinKey | KeyValue::MaxKey))
        .count();
    assert!(inner == 0 || changed > 0, "{what}: no bound was replaced");
}

async fn through_files(plain: &Capture, dir: &std::path::Path, name: &str) -> (Value, Value) {
    let anon = anonymize(plain);
    let path = dir.join(format!("{name}.anon.capture"));
    file::write(&anon, &path, Existing::Refuse).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let read = file::read(&path).unwrap();
    assert_eq!(read, anon, "{name}: read back unchanged");
    check(plain, &anon, &text, name);
    let (opened_plain, missing) = replay_once(plain.clone()).await.unwrap();
    assert!(missing.is_empty(), "{name}: {missing:?}");
    let (opened, missing) = replay_once(read).await.unwrap();
    assert!(
        missing.is_empty(),
        "{name}: the anonymized capture lacks {missing:?}"
    );
    assert_eq!(opened.refused.len(), opened_plain.refused.len(), "{name}");
    (summary(&opened_plain.state), summary(&opened.state))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymized_capture_of_serve_holds_no_name_and_opens_to_the_same_numbers() {
    let dir = tempfile::tempdir().unwrap();
    for (name, version, at) in [
        ("ascending", "6.0", 150_000),
        ("zones-ip", "7.0", 100_000),
        ("hashed", "8.0", 60_000),
        ("drain", "8.0", 5_000),
    ] {
        let sc = scenario::built_in(name).unwrap().unwrap();
        let mut sim =
            Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
        sim.run_until(at);
        let (server, uri) = super::helpers::serve_paused(sim).await;
        let (_, plain) = capture_once(&uri, Duration::from_secs(5)).await.unwrap();
        let what = format!("{name} on {version}");
        let (p, a) = through_files(&plain, dir.path(), name).await;
        assert_eq!(shape(&a), shape(&p), "{what}");
        assert_ne!(a["collections"], p["collections"], "{what}: names replaced");
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anonymized_capture_of_every_real_cluster_holds_no_name() {
    let dir = tempfile::tempdir().unwrap();
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let name = file.name.clone();
        let mongos = real_mongos::start(file).await;
        let (_, plain) = capture_once(&mongos.uri, Duration::from_secs(5))
            .await
            .unwrap();
        let (p, a) = through_files(&plain, dir.path(), &name).await;
        assert_eq!(shape(&a), shape(&p), "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_anonymizes_a_live_cluster_and_a_capture_file() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario::built_in("zones-ip").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(60_000);
    let (server, uri) = super::helpers::serve_paused(sim).await;
    let p = |n: &str| dir.path().join(n).display().to_string();
    let run = |args: &[&str]| shardtop(args.iter().map(ToString::to_string).collect());
    let plain = run(&["capture", &uri, "-o", &p("plain.capture")]).await;
    assert!(plain.status.success(), "{plain:?}");
    let live = run(&["capture", &uri, "-o", &p("a.capture.zst"), "--anonymize"]).await;
    assert!(live.status.success(), "{live:?}");
    assert!(String::from_utf8_lossy(&live.stdout).contains("anonymized"));
    let again = run(&[
        "capture",
        &p("plain.capture"),
        "-o",
        &p("b.capture"),
        "--anonymize",
    ])
    .await;
    assert!(again.status.success(), "{again:?}");
    // A capture file is written again only anonymized.
    let copy = run(&["capture", &p("plain.capture"), "-o", &p("c.capture")]).await;
    assert_eq!(copy.status.code(), Some(2), "{copy:?}");
    let json = |f: String| async move {
        let out = shardtop(vec!["open".into(), f, "--json".into()]).await;
        assert!(out.status.success(), "{out:?}");
        let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
        super::common::relative_times(&mut v);
        // Two polls: their own time.
        v.as_object_mut().unwrap().remove("source");
        v.as_object_mut().unwrap().remove("time");
        v
    };
    let (o_plain, o_live, o_file) = (
        json(p("plain.capture")).await,
        json(p("a.capture.zst")).await,
        json(p("b.capture")).await,
    );
    assert_eq!(shape(&o_live), shape(&o_plain));
    // The same capture anonymized twice: the same file.
    let plain_capture = file::read(std::path::Path::new(&p("plain.capture"))).unwrap();
    assert_eq!(
        file::read(std::path::Path::new(&p("b.capture"))).unwrap(),
        anonymize(&plain_capture)
    );
    assert_eq!(shape(&o_file), shape(&o_plain));
    // `explain` reads the anonymized capture as the plain one: the same verdicts and numbers.
    let user_ns = |v: &Value| {
        (v["collections"].as_array().unwrap().iter())
            .map(|c| c["ns"].as_str().unwrap().to_string())
            .find(|ns| !ns.starts_with("config."))
            .unwrap()
    };
    let explain = |f: String, ns: String| async move {
        let out = shardtop(vec![
            "explain".into(),
            f,
            "--ns".into(),
            ns,
            "--json".into(),
        ])
        .await;
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let e_plain = explain(p("plain.capture"), user_ns(&o_plain)).await;
    let e_file = explain(p("b.capture"), user_ns(&o_file)).await;
    assert_eq!(e_file["ns"], user_ns(&o_file).as_str());
    assert_eq!(shape(&e_file), shape(&e_plain));
    let text = std::fs::read_to_string(p("b.capture")).unwrap();
    for n in names(&plain_capture) {
        assert!(!holds(&text, &n), "{n}");
    }
    server.shutdown().await;
}
