#![allow(clippy::unwrap_used)]
//! `capture --script`: the mongosh script, run by real mongosh (`mongosh URI --quiet --file
//! capture.js > FILE`), writes a capture that `open --json` opens to what shardtop's own capture
//! of the same cluster opens to — on `serve` for 4.4, 6.0, 7.0, 8.0 and 8.2, and on the
//! real-document mongos for every real cluster file — with the same reads (the same identities
//! a replay matches them by), every one on the allowlist. A missing mongosh fails the test.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use shardtop::capture::{Capture, file, replay};
use shardtop::live::client::ALLOWED;
use shardtop::live::one_poll::replay_once;
use shardtop::serve::{ServeOptions, start};
use shardtop::sim::{Simulator, scenario};

use super::helpers::shardtop;
use super::real_clusters::clusters;
use super::real_mongos::{self, ClusterFile};

/// How long one mongosh run may take (its start alone takes seconds on a loaded machine).
const MONGOSH_DEADLINE: Duration = Duration::from_secs(180);

/// `shardtop capture --script` written to `dir/capture.js`.
async fn script_file(dir: &Path) -> PathBuf {
    let path = dir.join("capture.js");
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
    let o = v.as_object_mut().unwrap();
    assert!(o.remove("source").is_some() && o.remove("time").is_some());
    v
}

/// Each read's identity (what a replay matches it by), in order.
fn identities(c: &Capture) -> Vec<String> {
    c.reads.iter().map(|r| replay::key(&r.db, &r.command)).collect()
}

/// The script's capture and shardtop's own of the cluster at `uri`: the same reads, opening to
/// the same summary.
async fn same_capture(uri: &str, dir: &Path, what: &str) {
    let js = script_file(dir).await;
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
    // Not vacuous: a collection of several chunks.
    let chunks = |c: &Value| c["chunks"].as_u64().unwrap();
    let most = a["collections"].as_array().unwrap().iter().map(chunks).max();
    assert!(most > Some(1), "{what}: {a}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripts_capture_of_serve_opens_as_shardtops_own() {
    let dir = tempfile::tempdir().unwrap();
    for (name, version, at) in [
        ("ascending", "4.4", 150_000),
        ("ascending", "6.0", 150_000),
        ("zones-ip", "7.0", 100_000),
        ("drain", "8.0", 5_000),
        // `$listClusterCatalog` and `shardDrainingStatus` of the draining shard.
        ("drain", "8.2", 5_000),
    ] {
        let sc = scenario::built_in(name).unwrap().unwrap();
        let mut sim =
            Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
        sim.run_until(at);
        let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
        opts.paused = true;
        let server = start(opts).await.unwrap();
        let uri = format!(
            "mongodb://127.0.0.1:{}/?directConnection=true",
            server.local_addr().port()
        );
        same_capture(&uri, dir.path(), &format!("{name}-{version}")).await;
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scripts_capture_of_every_real_cluster_opens_as_shardtops_own() {
    let dir = tempfile::tempdir().unwrap();
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let name = file.name.clone();
        let mongos = real_mongos::start(file).await;
        same_capture(&mongos.uri, dir.path(), &name).await;
    }
}
