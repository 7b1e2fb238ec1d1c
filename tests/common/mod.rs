//! What the tests against an in-process `shardtop serve` share: an empty three-shard cluster of
//! a server version on a free loopback port, a driver client to it, and error codes.
#![allow(dead_code)] // each test file uses its own part

pub mod tmux;
pub mod ui_fixture;
pub mod wire_loop;

use bson::{Bson, Document};
use futures::TryStreamExt;
use mongodb::Client;
use mongodb::error::{ErrorKind, WriteFailure};
use shardtop::serve::{ServeOptions, Server, empty_cluster, start};
use shardtop::sim::Simulator;

/// `serve` with `opts` on a free loopback port; its URI and a connected client.
pub async fn serve_opts(opts: ServeOptions) -> (Server, Client, String) {
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=5000",
        server.local_addr()
    );
    let client = Client::with_uri_str(&uri).await.unwrap();
    (server, client, uri)
}

/// `serve` of `sim`, its clock stopped, and a connected client.
pub async fn serve_paused(sim: Simulator) -> (Server, Client) {
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    let (server, client, _) = serve_opts(opts).await;
    (server, client)
}

/// `serve` of the empty cluster of `version`; its URI and a connected client.
pub async fn serve_empty(version: &str, paused: bool) -> (Server, Client, String) {
    let sim = empty_cluster(Some(version.parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = paused;
    serve_opts(opts).await
}

/// Two shards; `app.items` on `{k: 1}` split at 100: `[MinKey, 100)` on shard0000, `[100,
/// MaxKey)` on shard0001.
pub fn two_shards(version: &str) -> Simulator {
    let text = r#"{
      "name": "two", "description": "", "seedPassage": "", "shards": 2,
      "collections": [{
        "ns": "app.items", "key": { "k": 1 },
        "initialLayout": { "splitPoints": [{ "k": 100 }], "shards": ["shard0000", "shard0001"] }
      }],
      "until": 0
    }"#;
    let sc = shardtop::sim::scenario::parse(text).unwrap();
    Simulator::from_scenario(&sc, sc.seed, Some(version.parse().unwrap())).unwrap()
}

pub async fn admin(client: &Client, cmd: Document) -> mongodb::error::Result<Document> {
    client.database("admin").run_command(cmd).await
}

/// The code of a command error or of the (first) write error.
pub fn code_of(e: &mongodb::error::Error) -> i32 {
    match &*e.kind {
        ErrorKind::Command(c) => c.code,
        ErrorKind::Write(WriteFailure::WriteError(w)) => w.code,
        ErrorKind::InsertMany(m) => m.write_errors.as_ref().unwrap()[0].code,
        other => panic!("not a command or write error: {other:?}"),
    }
}

/// Every document of `db.coll` matching `filter`.
pub async fn find_all(client: &Client, db: &str, coll: &str, filter: Document) -> Vec<Document> {
    client
        .database(db)
        .collection::<Document>(coll)
        .find(filter)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// `ns`'s document in `config.collections`, if the catalog has it.
pub async fn config_collection(client: &Client, ns: &str) -> Option<Document> {
    client
        .database("config")
        .collection::<Document>("collections")
        .find_one(bson::doc! {"_id": ns})
        .await
        .unwrap()
}

/// The sum of a numeric field over the per-shard rows of the first collection (not
/// `config.system.sessions`) that `$shardedDataDistribution` lists (`numOwnedDocuments`, `numOrphanedDocs`, …).
pub async fn distribution_total(client: &Client, field: &str) -> i64 {
    let dist = admin(
        client,
        bson::doc! {"aggregate": 1, "pipeline": [{"$shardedDataDistribution": {}}], "cursor": {}},
    )
    .await
    .unwrap();
    let rows = dist
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap();
    rows.iter()
        .filter_map(Bson::as_document)
        .find(|d| d.get_str("ns") != Ok("config.system.sessions"))
        .unwrap()
        .get_array("shards")
        .unwrap()
        .iter()
        .map(|s| {
            let s = s.as_document().unwrap();
            s.get_i64(field)
                .or_else(|_| s.get_i32(field).map(i64::from))
                .unwrap()
        })
        .sum()
}

/// Whether a `config.chunks` document belongs to `config.system.sessions` (which every cluster
/// has, `serve` too), by its `uuid` or, before 5.0, its `ns`.
pub async fn sessions_chunk_test(client: &Client) -> impl Fn(&Document) -> bool + use<> {
    let uuid = config_collection(client, "config.system.sessions")
        .await
        .and_then(|d| d.get("uuid").cloned());
    move |d: &Document| {
        d.get_str("ns") == Ok("config.system.sessions")
            || (uuid.is_some() && d.get("uuid") == uuid.as_ref())
    }
}

/// The documents of a cursor reply's `firstBatch`.
pub fn first_batch(reply: &Document) -> Vec<Document> {
    reply
        .get_document("cursor")
        .unwrap()
        .get_array("firstBatch")
        .unwrap()
        .iter()
        .map(|b| b.as_document().unwrap().clone())
        .collect()
}

/// A JSON summary's diagnosis times left out (each replaced by whether it is known): two polls
/// of one state, made a moment apart, are compared by what they say — the status, the cause, the
/// next move, the basis of an estimate — not by the instants their runs found, which follow each
/// poll's own time and the rounds it read.
#[allow(dead_code)] // not every test program compares polls
pub fn relative_times(v: &mut serde_json::Value) {
    let known = |x: Option<&mut serde_json::Value>| {
        if let Some(x) = x
            && x.is_number()
        {
            *x = serde_json::json!("known");
        }
    };
    for c in v["collections"].as_array_mut().into_iter().flatten() {
        let Some(d) = c.get_mut("diagnosis").filter(|d| d.is_object()) else {
            continue;
        };
        known(d.get_mut("next").and_then(|n| n.get_mut("at")));
        known(d.get_mut("eta").and_then(|e| e.get_mut("at")));
        known(d.pointer_mut("/cause/clearsAt"));
        if let Some(events) = d
            .pointer_mut("/cause/events")
            .and_then(|e| e.as_array_mut())
        {
            for e in events {
                known(e.get_mut("at"));
            }
        }
    }
    if let Some(drains) = v
        .pointer_mut("/balancer/drainEstimates")
        .and_then(|d| d.as_array_mut())
    {
        for d in drains {
            known(d.get_mut("eta").and_then(|e| e.get_mut("at")));
        }
    }
}

/// The cursors a server holds open (`serverStatus.metrics.cursor.open.total`), change streams
/// included.
pub async fn open_cursors(client: &Client) -> i64 {
    let status = admin(client, bson::doc! { "serverStatus": 1 })
        .await
        .unwrap();
    let total = status
        .get_document("metrics")
        .and_then(|m| m.get_document("cursor"))
        .and_then(|c| c.get_document("open"))
        .unwrap()
        .get("total")
        .unwrap()
        .clone();
    match total {
        Bson::Int64(n) => n,
        Bson::Int32(n) => i64::from(n),
        other => panic!("{other}"),
    }
}
