#![allow(clippy::unwrap_used)]
//! `capture --script`: the mongosh script, run by real mongosh (`mongosh URI --quiet --file
//! capture.js > FILE`), writes a capture that `open --json` opens to what shardtop's own capture
//! of the same cluster opens to — on `serve` for 4.4, 6.0, 7.0, 8.0 and 8.2, and on the
//! real-document mongos for every real cluster file — with the same reads (the same identities
//! a replay matches them by), every one on the allowlist. A missing mongosh fails the test.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;
use shardtop::capture::{Capture, file, replay};
use shardtop::live::client::ALLOWED;
use shardtop::live::one_poll::replay_once;
use shardtop::sim::{Simulator, scenario};

use super::helpers::shardtop;
use super::real_clusters::clusters;
use super::real_mongos::{self, ClusterFile};

/// How long one mongosh run may take (its start alone takes seconds on a loaded machine).
const MONGOSH_DEADLINE: Duration = Duration::from_secs(180);

/// `shardtop capture --script` written to `dir/WHAT.js`.
async fn script_file(dir: &Path, what: &str) -> PathBuf {
    let path = dir.join(format!("{what}.js"));
    let p = path.display().to_string();
    let out = shardtop(vec!["capture".into(), "--script".into(), "-o".into(), p]).await;
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    path
}

/// `mongosh URI --quiet --file JS > out`: its status and stderr.
async fn mongosh(uri: &str, js: &Path, out: &Path) {
    let stdout = std::fs::File::create(out).unwrap();
    let mut child = tokio::process::Command::new("mongosh")
        .args([uri, "--quiet", "--norc", "--file"])
        .arg(js)
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("mongosh (installed at /usr/bin/mongosh by .ci/run)");
    let mut stderr = child.stderr.take().unwrap();
    let waited = tokio::time::timeout(MONGOSH_DEADLINE, async {
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut text)
            .await
            .unwrap();
        (child.wait().await.unwrap(), text)
    })
    .await;
    let (status, text) = waited.expect("mongosh within its deadline");
    assert!(status.success(), "mongosh {status}: {text}");
}

/// `shardtop open FILE --json` without the fields that differ between two captures of one
/// cluster: `source` (the file's name) and `time` (when each was taken).
async fn opened(path: &Path) -> Value {
    let out = shardtop(vec![
        "open".into(),
        path.display().to_string(),
        "--json".into(),
    ])
    .await;
    assert!(out.status.success(), "{}: {out:?}", path.display());
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    super::common::relative_times(&mut v);
    let o = v.as_object_mut().unwrap();
    assert!(o.remove("source").is_some() && o.remove("time").is_some());
    v
}

/// Each read's identity (what a replay matches it by), in order.
fn identities(c: &Capture) -> Vec<String> {
    c.reads
        .iter()
        .map(|r| replay::key(&r.db, &r.command))
        .collect()
}

/// The script's capture and shardtop's own of the cluster at `uri`: the same reads, opening to
/// the same summary; returns the most chunks of one of its collections.
async fn same_capture(uri: &str, dir: &Path, what: &str) -> u64 {
    let js = script_file(dir, what).await;
    let by_script = dir.join(format!("{what}.script.capture"));
    mongosh(uri, &js, &by_script).await;
    let own = dir.join(format!("{what}.capture"));
    let out = shardtop(vec![
        "capture".into(),
        uri.into(),
        "-o".into(),
        own.display().to_string(),
    ])
    .await;
    assert!(out.status.success(), "{what}: {out:?}");
    let (script_c, own_c) = (file::read(&by_script).unwrap(), file::read(&own).unwrap());
    assert_eq!(script_c.server_version, own_c.server_version, "{what}");
    assert_eq!(script_c.target, own_c.target, "{what}");
    assert_eq!(identities(&script_c), identities(&own_c), "{what}");
    for r in &script_c.reads {
        let name = r.command.keys().next().unwrap();
        assert!(ALLOWED.contains(&name.as_str()), "{what}: {name}");
    }
    let (_, missing) = replay_once(script_c).await.unwrap();
    assert!(missing.is_empty(), "{what}: {missing:?}");
    let (a, b) = (opened(&by_script).await, opened(&own).await);
    assert_eq!(a, b, "{what}");
    most_chunks(&a)
}

/// The most chunks of one collection in a summary (the comparison is not vacuous).
fn most_chunks(summary: &Value) -> u64 {
    let chunks = |c: &Value| c["chunks"].as_u64().unwrap();
    let colls = summary["collections"].as_array().unwrap();
    colls.iter().map(chunks).max().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripts_capture_of_serve_opens_as_shardtops_own() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, u64, Option<&str>); 6] = [
        ("ascending", "4.4", 150_000, None),
        ("ascending", "6.0", 150_000, None),
        ("zones-ip", "7.0", 100_000, None),
        ("drain", "8.0", 5_000, None),
        // `$listClusterCatalog` and `shardDrainingStatus` of the draining shard.
        ("drain", "8.2", 5_000, None),
        // clusterMonitor is refused `balancerCollectionStatus`: kept as refused, not asked again.
        ("hashed", "7.0", 60_000, Some("clusterMonitor")),
    ];
    // Three at a time: most of a case's time is mongosh and shardtop starting as processes.
    let dir = dir.path();
    futures::stream::iter(cases)
        .for_each_concurrent(3, |(name, version, at, roles)| async move {
            let (server, uri) = serve(name, version, at, roles).await;
            let what = format!("{name}-{version}");
            let most = same_capture(&uri, dir, &what).await;
            assert!(most > 1, "{what}: {most}");
            server.shutdown().await;
        })
        .await;
}

/// A paused `serve` of scenario `name` on `version` at virtual time `at` (ms), for a user of
/// `roles` if given.
async fn serve(
    name: &str,
    version: &str,
    at: u64,
    roles: Option<&str>,
) -> (shardtop::serve::Server, String) {
    let sc = scenario::built_in(name).unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
    sim.run_until(at);
    super::helpers::serve_with(sim, |opts| {
        opts.access = roles.map(|r| shardtop::serve::access::Access::parse(r).unwrap());
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_for_another_version_stops_and_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let js = dir.path().join("capture.js");
    let out = shardtop(vec![
        "capture".into(),
        "--script".into(),
        "--server-version".into(),
        "6.0".into(),
    ])
    .await;
    assert!(out.status.success(), "{out:?}");
    std::fs::write(&js, &out.stdout).unwrap();
    let (server, uri) = serve("ascending", "7.0", 0, None).await;
    let output = tokio::process::Command::new("mongosh")
        .args([uri.as_str(), "--quiet", "--norc", "--file"])
        .arg(&js)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(MONGOSH_DEADLINE, output)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert!(output.stdout.is_empty(), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("made for MongoDB 6.0 and the mongos is 7.0"),
        "{said}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripts_capture_of_every_real_cluster_opens_as_shardtops_own() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let most = futures::stream::iter(clusters())
        .map(|path| async move {
            let file = ClusterFile::load(&path);
            let name = file.name.clone();
            let mongos = real_mongos::start(file).await;
            same_capture(&mongos.uri, dir, &name).await
        })
        .buffer_unordered(3)
        .fold(0, |most, m| async move { most.max(m) })
        .await;
    // Not vacuous: a real collection of many chunks (followed with getMore).
    assert!(most > 500, "{most}");
}
