//! What the tests against an in-process `shardtop serve` share: an empty three-shard cluster of
//! a server version on a free loopback port, a driver client to it, and error codes.
#![allow(dead_code)] // each test file uses its own part

use bson::Document;
use futures::TryStreamExt;
use mongodb::Client;
use mongodb::error::ErrorKind;
use shardtop::serve::{ServeOptions, Server, empty_cluster, start};

/// `serve` of the empty cluster of `version`; its URI and a connected client.
pub async fn serve_empty(version: &str, paused: bool) -> (Server, Client, String) {
    let sim = empty_cluster(Some(version.parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = paused;
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://{}/?directConnection=true&serverSelectionTimeoutMS=5000",
        server.local_addr()
    );
    let client = Client::with_uri_str(&uri).await.unwrap();
    (server, client, uri)
}

pub async fn admin(client: &Client, cmd: Document) -> mongodb::error::Result<Document> {
    client.database("admin").run_command(cmd).await
}

/// The code of a command error.
pub fn code_of(e: &mongodb::error::Error) -> i32 {
    match &*e.kind {
        ErrorKind::Command(c) => c.code,
        other => panic!("not a command error: {other:?}"),
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
