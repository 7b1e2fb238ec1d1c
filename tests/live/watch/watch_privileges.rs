#![allow(clippy::unwrap_used)]
//! A user who may not make every read: `serve --user-roles` refuses as a cluster with access
//! control does (Unauthorized 13), `connectionStatus` reports the roles and privileges, a poll
//! goes on without the refused reads and names what each needs, `watch --check` lists them.

use crate::common;

use std::process::Command;
use std::time::Duration;

use bson::doc;
use common::tmux::{BIN, Served};
use shardtop::live::poller::poll_once;
use shardtop::serve::ServeOptions;
use shardtop::serve::access::Access;
use shardtop::view::Feeds;

async fn serve_as(roles: &str) -> (shardtop::serve::Server, mongodb::Client, String) {
    let sc = shardtop::sim::scenario::built_in("ascending")
        .unwrap()
        .unwrap();
    let sim = shardtop::sim::Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    opts.access = Some(Access::parse(roles).unwrap());
    common::serve_opts(opts).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_monitor_s_poll_goes_on_without_balancer_collection_status() {
    let (server, client, uri) = serve_as("clusterMonitor").await;
    let status = common::admin(
        &client,
        doc! {"connectionStatus": 1, "showPrivileges": true},
    )
    .await
    .unwrap();
    let info = status.get_document("authInfo").unwrap();
    assert_eq!(
        info.get_array("authenticatedUserRoles").unwrap()[0],
        bson::Bson::Document(doc! {"role": "clusterMonitor", "db": "admin"})
    );
    assert!(
        !info
            .get_array("authenticatedUserPrivileges")
            .unwrap()
            .is_empty()
    );
    let e = common::admin(&client, doc! {"balancerCollectionStatus": "app.events"})
        .await
        .unwrap_err();
    assert_eq!(common::code_of(&e), 13);
    assert!(
        e.to_string().contains(
            "not authorized on admin to execute command { balancerCollectionStatus: \"app.events\""
        ),
        "{e}"
    );
    let polled = poll_once(&uri, Duration::from_secs(10)).await.unwrap();
    assert!(
        polled.state.collection("app.events").is_some(),
        "the poll went on"
    );
    let refused: Vec<_> = polled
        .refused
        .iter()
        .map(|r| (r.feeds, r.text.as_str()))
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].0, Feeds::Balancer);
    assert!(
        refused[0].1.starts_with("balancerCollectionStatus app.events: not authorized — needs enableSharding on app.events; granted by enableSharding, clusterManager"),
        "{}",
        refused[0].1
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_config_reads_the_poll_says_which_it_needs() {
    let (server, _, uri) = serve_as("read@app").await;
    let e = poll_once(&uri, Duration::from_secs(10))
        .await
        .err()
        .unwrap();
    assert!(
        e.message.starts_with("find config.shards: not authorized — needs find on config.shards; granted by clusterMonitor"),
        "{}",
        e.message
    );
    server.shutdown().await;
}

/// `watch --check` (with `extra`) against `serve --paused` with `serve_args`: exit code, stdout.
fn check(serve_args: &[&str], extra: &[&str]) -> (Option<i32>, String) {
    let served = Served::with(&[&["--paused"], serve_args].concat());
    let uri = format!("mongodb://127.0.0.1:{}/?directConnection=true", served.1);
    let out = Command::new(BIN)
        .args(["watch", &uri, "--check"])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn watch_check_lists_every_read_and_exits_by_whether_the_view_runs() {
    let monitor = ["--user-roles", "clusterMonitor"];
    let (code, text) = check(&monitor, &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("user shardtop@admin (roles: clusterMonitor@admin)"),
        "{text}"
    );
    for ok in [
        "ok  find config.chunks",
        "ok  aggregate $currentOp",
        "ok  balancerStatus",
    ] {
        assert!(text.contains(ok), "{ok}:\n{text}");
    }
    assert!(
        text.contains("NO  balancerCollectionStatus app.events"),
        "{text}"
    );
    assert!(
        text.contains("actions: [\"enableSharding\"]"),
        "a custom role: {text}"
    );
    assert!(
        text.contains("NO  aggregate $changeStream app.events"),
        "auto may use change streams: {text}"
    );
    assert!(
        !text.contains("$changeStream config."),
        "no change stream on the config database: {text}"
    );
    let (_, text) = check(&monitor, &["--heat", "size"]);
    assert!(
        !text.contains("$changeStream"),
        "not with --heat size: {text}"
    );
    let (code, text) = check(&["--user-roles", "read@app"], &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("NO  find config.shards"), "{text}");
    let (code, text) = check(&[], &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("access control is off"), "{text}");
}

/// `auto` asks `connectionStatus`: change streams for a user granted `changeStream` + `find` on
/// the collections (or with access control off), data growth for a monitor (no samples here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_heat_follows_what_the_user_may_read() {
    use shardtop::live::client::LiveClient;
    use shardtop::source::heat_choice::resolve;
    use shardtop::source::live::HeatMode;
    let ns = [
        "app.events".to_string(),
        "config.system.sessions".to_string(),
    ];
    for (roles, mode, why) in [
        (
            "clusterMonitor",
            HeatMode::Size,
            "this user may not open change streams",
        ),
        (
            "clusterMonitor,read@app",
            HeatMode::ChangeStream,
            "this user may open change streams",
        ),
    ] {
        let (server, _client, uri) = serve_as(roles).await;
        let live = LiveClient::connect(&uri, Duration::from_secs(5))
            .await
            .unwrap();
        let choice = resolve(None, &live, &ns).await;
        assert_eq!(choice.mode, mode, "{roles}");
        assert!(choice.why.unwrap().contains(why), "{roles}");
        let asked = resolve(Some(HeatMode::Off), &live, &ns).await;
        assert_eq!((asked.mode, asked.why), (HeatMode::Off, None));
        server.shutdown().await;
    }
}
