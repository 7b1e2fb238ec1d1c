//! Helpers the live tests share: the `shardtop` binary run with no configuration, a one-second
//! `record` through it, a `record` in process, and `serve` on a free local port. Owns nothing of
//! what is tested.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use shardtop::live::client::LiveClient;
use shardtop::live::poller::Poller;
use shardtop::live::record::Recorded;

/// `sim` served on a free local port, paused (its clock moves only when the test runs it), with
/// `edit` made to the options; the server and the URI a client connects with.
pub async fn serve_with(
    sim: shardtop::sim::Simulator,
    edit: impl FnOnce(&mut shardtop::serve::ServeOptions),
) -> (shardtop::serve::Server, String) {
    let listen = "127.0.0.1:0".parse().unwrap();
    let mut opts = shardtop::serve::ServeOptions::new(listen, sim);
    opts.paused = true;
    edit(&mut opts);
    let server = shardtop::serve::start(opts).await.unwrap();
    let uri = format!(
        "mongodb://127.0.0.1:{}/?directConnection=true",
        server.local_addr().port()
    );
    (server, uri)
}

/// `sim` served paused on a free local port; the server and its URI.
pub async fn serve_paused(sim: shardtop::sim::Simulator) -> (shardtop::serve::Server, String) {
    serve_with(sim, |_| {}).await
}

/// One poll (`watch --once`'s) of `sim` served paused; the server is shut down after it.
pub async fn polled_paused(sim: shardtop::sim::Simulator) -> shardtop::live::poller::OnePoll {
    let (server, uri) = serve_paused(sim).await;
    let polled = shardtop::live::poller::poll_once(&uri, Duration::from_secs(5)).await;
    server.shutdown().await;
    polled.unwrap()
}

/// The `shardtop` binary with `args`, no configuration file and no colour.
pub async fn shardtop(args: Vec<String>) -> Output {
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_shardtop"))
            .args(&args)
            .env("NO_COLOR", "1")
            .env_remove("SHARDTOP_CONFIG")
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

/// `shardtop watch URI --once --json`.
pub async fn watch_once_json(uri: &str) -> Output {
    shardtop(vec![
        "watch".into(),
        uri.to_string(),
        "--once".into(),
        "--json".into(),
    ])
    .await
}

/// `shardtop record URI -o TRACE --duration 2s --interval 1s` (a first poll may take over 1 s on
/// a loaded machine).
pub async fn record_2s(uri: &str, trace: &Path) -> Output {
    shardtop(vec![
        "record".into(),
        uri.to_string(),
        "-o".into(),
        trace.display().to_string(),
        "--duration".into(),
        "2s".into(),
        "--interval".into(),
        "1s".into(),
    ])
    .await
}

/// A recording in process of `uri` into `path`: a poll every 200 ms for `duration_ms`.
pub async fn record_in_process(uri: &str, path: &Path, duration_ms: u64) -> Recorded {
    let poller = Poller::new(
        LiveClient::connect(uri, Duration::from_secs(5))
            .await
            .unwrap(),
    );
    shardtop::live::record::record(
        poller,
        uri,
        path,
        Duration::from_millis(200),
        Some(Duration::from_millis(duration_ms)),
        std::future::pending(),
    )
    .await
    .unwrap()
}
