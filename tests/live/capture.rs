#![allow(clippy::unwrap_used)]
//! `capture` and `open`: a capture opens to the summary `watch --once --json` gives of the same
//! poll — on `serve` for 4.4, 6.0, 7.0 and 8.0 and on every real cluster file —, a refused read
//! survives the capture, a read the capture lacks is said to be "not in the capture", and a bad
//! file is refused naming the file (exit 2).

use crate::common;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use shardtop::capture::{Capture, Outcome, file};
use shardtop::cluster::{Cluster, SummaryOptions};
use shardtop::files::Existing;
use shardtop::live::one_poll::{capture_once, replay_once};
use shardtop::live::poller::{OnePoll, poll_once};
use shardtop::serve::ServeOptions;
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

/// The capture written to `dir/name` and read back, then opened.
async fn through_file(capture: &Capture, path: &Path) -> (OnePoll, Vec<String>) {
    file::write(capture, path, Existing::Refuse).unwrap();
    let read = file::read(path).unwrap();
    assert_eq!(&read, capture, "{}", path.display());
    replay_once(read).await.unwrap()
}

/// A summary without `time` (the poll's clock: a capture's is when it was taken).
fn timeless(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("time");
    v
}

use super::helpers::serve_paused as serve;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_of_serve_opens_to_the_summary_of_watch_once() {
    let dir = tempfile::tempdir().unwrap();
    for (name, version, at, ext) in [
        ("ascending", "4.4", 150_000, "capture"),
        ("ascending", "6.0", 150_000, "capture.gz"),
        ("zones-ip", "7.0", 100_000, "capture.zst"),
        ("drain", "8.0", 5_000, "capture"),
    ] {
        let sc = scenario::built_in(name).unwrap().unwrap();
        let mut sim =
            Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap();
        sim.run_until(at);
        let (server, uri) = serve(sim).await;
        let what = format!("{name} on {version}");
        let (polled, capture) = capture_once(&uri, Duration::from_secs(5)).await.unwrap();
        assert_eq!(
            capture.server_version.as_deref().map(|v| &v[..3]),
            Some(version)
        );
        let path = dir.path().join(format!("{name}-{version}.{ext}"));
        let (opened, missing) = through_file(&capture, &path).await;
        assert!(missing.is_empty(), "{what}: {missing:?}");
        // The same poll: the same summary, its clock included, every chunk.
        assert_eq!(summary(&opened.state), summary(&polled.state), "{what}");
        assert_eq!(opened.refused, polled.refused, "{what}");
        assert_eq!(opened.log, polled.log, "{what}");
        // And `watch --once` of the same (paused) cluster, at its own time.
        let watched = poll_once(&uri, Duration::from_secs(5)).await.unwrap();
        assert_eq!(
            timeless(summary(&opened.state)),
            timeless(summary(&watched.state)),
            "{what}"
        );
        // Not vacuous: a collection of several chunks.
        let v = summary(&opened.state);
        let chunks = |c: &Value| c["chunks"].as_u64().unwrap();
        let most = v["collections"]
            .as_array()
            .unwrap()
            .iter()
            .map(chunks)
            .max();
        assert!(most > Some(1), "{what}: {v}");
        server.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_commands_capture_and_open_print_what_watch_once_prints() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario::built_in("hashed").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, Some("7.0".parse().unwrap())).unwrap();
    sim.run_until(60_000);
    let (server, uri) = serve(sim).await;
    let path = dir.path().join("c.capture.zst");
    let p = path.display().to_string();
    let out = shardtop(vec!["capture".into(), uri.clone(), "-o".into(), p.clone()]).await;
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(said.starts_with("captured ") && said.contains(&p), "{said}");
    // Written once: a second time is refused (exit 2) without `--force`.
    let again = shardtop(vec!["capture".into(), uri.clone(), "-o".into(), p.clone()]).await;
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    let forced = vec![
        "capture".into(),
        uri.clone(),
        "-o".into(),
        p.clone(),
        "--force".into(),
    ];
    assert!(shardtop(forced).await.status.success());
    let watch = ["watch", &uri, "--once", "--json"]
        .map(String::from)
        .to_vec();
    let watched = shardtop(watch).await;
    assert!(watched.status.success(), "{watched:?}");
    let opened = shardtop(vec!["open".into(), p.clone(), "--json".into()]).await;
    assert!(opened.status.success(), "{opened:?}");
    let mut w: Value = serde_json::from_slice(&watched.stdout).unwrap();
    let mut o: Value = serde_json::from_slice(&opened.stdout).unwrap();
    assert_eq!(o["source"], format!("capture:{p}"));
    // Only the source and the poll's time differ.
    for v in [&mut w, &mut o] {
        let v = v.as_object_mut().unwrap();
        v.remove("source");
        v.remove("time");
    }
    assert_eq!(o, w);
    // `explain` names a capture as a source: the state it reads is the poll the capture kept.
    let ns = (o["collections"].as_array().unwrap().iter())
        .map(|c| c["ns"].as_str().unwrap().to_string())
        .find(|ns| !ns.starts_with("config."))
        .unwrap();
    let explain = |source: &str| {
        ["explain", source, "--ns", &ns, "--json"]
            .map(String::from)
            .to_vec()
    };
    let from_capture = shardtop(explain(&p)).await;
    assert!(from_capture.status.success(), "{from_capture:?}");
    let from_live = shardtop(explain(&uri)).await;
    assert!(from_live.status.success(), "{from_live:?}");
    let c: Value = serde_json::from_slice(&from_capture.stdout).unwrap();
    let l: Value = serde_json::from_slice(&from_live.stdout).unwrap();
    assert_eq!(c, l, "the same state, the same verdicts");
    assert_eq!(c["ns"], ns.as_str());
    let mut at = explain(&p);
    at.extend(["--at".to_string(), "5s".to_string()]);
    let at = shardtop(at).await;
    assert_eq!(at.status.code(), Some(2), "{at:?}");
    assert!(
        String::from_utf8_lossy(&at.stderr).contains("is a capture"),
        "{at:?}"
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_of_every_real_cluster_opens_to_the_same_summary() {
    let dir = tempfile::tempdir().unwrap();
    let mut refusals = 0;
    for path in clusters() {
        let file = ClusterFile::load(&path);
        let name = file.name.clone();
        let mongos = real_mongos::start(file.clone()).await;
        let (polled, capture) = capture_once(&mongos.uri, Duration::from_secs(5))
            .await
            .unwrap();
        let unknown = mongos.unknown.lock().unwrap().clone();
        assert!(unknown.is_empty(), "{name}: {unknown:#?}");
        refusals += (capture.reads.iter())
            .filter(|r| matches!(r.outcome, Outcome::Error { .. }))
            .count();
        let (opened, missing) = through_file(&capture, &dir.path().join(&name)).await;
        assert!(missing.is_empty(), "{name}: {missing:?}");
        assert_eq!(summary(&opened.state), summary(&polled.state), "{name}");
        assert_eq!(opened.refused, polled.refused, "{name}");
        // What `watch --once` shows of it.
        let watched = poll_once(&mongos.uri, Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(
            timeless(summary(&opened.state)),
            timeless(summary(&watched.state)),
            "{name}"
        );
    }
    // 4.4.1 refuses `hello`, 6.0.1 `$shardedDataDistribution`: kept and answered again.
    assert!(refusals >= 2, "{refusals}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_read_survives_and_a_missing_one_is_said() {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    opts.access = Some(shardtop::serve::access::Access::parse("clusterMonitor").unwrap());
    let (server, _client, uri) = common::serve_opts(opts).await;
    let (polled, mut capture) = capture_once(&uri, Duration::from_secs(5)).await.unwrap();
    let refused: Vec<&str> = polled.refused.iter().map(|r| r.text.as_str()).collect();
    assert!(
        refused
            .iter()
            .any(|t| t.contains("balancerCollectionStatus")),
        "{refused:?}"
    );
    let kept = capture
        .reads
        .iter()
        .find(|r| r.command.contains_key("balancerCollectionStatus"));
    assert!(
        matches!(&kept.unwrap().outcome, Outcome::Error { code: Some(13), code_name: Some(n), .. } if n == "Unauthorized"),
        "{kept:?}"
    );
    let (opened, _) = replay_once(capture.clone()).await.unwrap();
    assert_eq!(opened.refused, polled.refused);
    assert_eq!(summary(&opened.state), summary(&polled.state));
    // Without its `config.tags` read: the zones pane says so, the rest is shown.
    capture
        .reads
        .retain(|r| r.command.get_str("find") != Ok("tags"));
    let (opened, missing) = replay_once(capture).await.unwrap();
    assert_eq!(missing, vec!["find config.tags".to_string()]);
    assert!(
        opened
            .refused
            .iter()
            .any(|r| r.text == "find config.tags: not in the capture"),
        "{:?}",
        opened.refused
    );
    assert_eq!(
        summary(&opened.state)["collections"],
        summary(&polled.state)["collections"]
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_capture_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(30_000);
    let (server, uri) = serve(sim).await;
    let (_, capture) = capture_once(&uri, Duration::from_secs(5)).await.unwrap();
    server.shutdown().await;
    let mut good = Vec::new();
    file::to_writer(&capture, &mut good).unwrap();
    let text = String::from_utf8(good.clone()).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated",
            good[..good.len() * 2 / 3].to_vec(),
            "truncated",
        ),
        (
            "garbled",
            text.replacen(r#""db":"config""#, r#""db":"config",,"#, 1)
                .into_bytes(),
            "not valid JSON",
        ),
        (
            "newer",
            text.replacen(r#""format":1"#, r#""format":2"#, 1)
                .into_bytes(),
            "a capture of format 2, newer than this shardtop reads",
        ),
        (
            "not-a-capture",
            b"{\"hello\": 1}\n".to_vec(),
            "not a shardtop capture",
        ),
    ];
    for (name, bytes, says) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let p = path.display().to_string();
        let out = shardtop(vec!["open".into(), p.clone(), "--json".into()]).await;
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(err.contains(&p) && err.contains(says), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

/// `shardtop capture IN -o OUT --anonymize` with `args` while a child process writes `from` into
/// the FIFO `IN`: the output, or a failure when it has not ended within 60 s (it hung).
fn anonymize_through_fifo(from: &Path, dir: &Path) -> (std::process::Output, std::path::PathBuf) {
    let fifo = dir.join("in.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let out = dir.join("out.capture");
    let mut writer = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("cat '{}' > '{}'", from.display(), fifo.display()))
        .spawn()
        .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
        .args(["capture", &fifo.display().to_string(), "-o"])
        .arg(&out)
        .arg("--anonymize")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = writer.kill();
            panic!("capture of a FIFO did not end within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(writer.wait().unwrap().success());
    (child.wait_with_output().unwrap(), out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capture_read_from_a_fifo_is_read_once_and_anonymized() {
    let sc = scenario::built_in("ascending").unwrap().unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(60_000);
    let (server, uri) = serve(sim).await;
    let capture = capture_once(&uri, Duration::from_secs(10)).await.unwrap().1;
    drop(server);
    let dir = tempfile::tempdir().unwrap();
    for name in ["plain.capture", "zipped.capture.zst"] {
        let from = dir.path().join(name);
        file::write(&capture, &from, Existing::Refuse).unwrap();
        let work = tempfile::tempdir().unwrap();
        let (o, written) = tokio::task::spawn_blocking(move || {
            let (o, out) = anonymize_through_fifo(&from, work.path());
            (o, file::read(&out))
        })
        .await
        .unwrap();
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(said.contains("anonymized"), "{name}: {said}");
        let written = written.unwrap();
        assert_eq!(written.reads.len(), capture.reads.len(), "{name}");
    }
}
