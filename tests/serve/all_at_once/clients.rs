//! The soak's clients: writers, readers that leave cursors open, change streams, transactions on
//! shared accounts, sorted reads of the 20,000-chunk collection and clients that drop the
//! connection mid-reply — each a task that runs until `stop`, counting what it did in a [`Tally`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bson::{Document, doc};
use futures::TryStreamExt;
use mongodb::Client;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

/// The accounts the transactions and the writes outside them share.
const ACCOUNTS: i64 = 50;

#[derive(Default)]
pub(super) struct Tally {
    pub(super) requests: AtomicU64,
    pub(super) errors: Mutex<BTreeMap<i32, u64>>,
    pub(super) acknowledged: Mutex<Vec<i64>>,
}

impl Tally {
    pub(super) async fn error(&self, e: &mongodb::error::Error) {
        let code = match &*e.kind {
            mongodb::error::ErrorKind::Command(c) => c.code,
            mongodb::error::ErrorKind::Write(mongodb::error::WriteFailure::WriteError(w)) => w.code,
            _ => -1,
        };
        *self.errors.lock().await.entry(code).or_default() += 1;
    }
}

async fn writer(client: Client, id: i64, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let c = client.database("soak").collection::<Document>("events");
    let mut n = 0i64;
    while !stop.load(Ordering::Relaxed) {
        let key = id * 1_000_000_000 + n;
        n += 1;
        tally.requests.fetch_add(1, Ordering::Relaxed);
        match c
            .insert_one(doc! { "_id": key, "w": id, "payload": "x".repeat(200) })
            .await
        {
            Ok(_) => tally.acknowledged.lock().await.push(key),
            Err(e) => tally.error(&e).await,
        }
    }
}

async fn reader(client: Client, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let db = client.database("soak");
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(2, Ordering::Relaxed);
        // A cursor opened and left behind (the server keeps it until its connection goes).
        if let Err(e) = db
            .run_command(doc! { "find": "events", "batchSize": 5 })
            .await
        {
            tally.error(&e).await;
        }
        let c = db.collection::<Document>("events");
        match c.find(doc! { "w": { "$in": [1, 2, 3] } }).limit(200).await {
            Ok(cursor) => {
                if let Err(e) = cursor.try_collect::<Vec<_>>().await {
                    tally.error(&e).await;
                }
            }
            Err(e) => tally.error(&e).await,
        }
    }
    // Its connections close and its sessions end: the cursors it left behind go with them.
    client.shutdown().immediate(true).await;
}

async fn watcher(client: Client, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let c = client.database("soak").collection::<Document>("events");
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(1, Ordering::Relaxed);
        match c.watch().await {
            Ok(mut stream) => {
                for _ in 0..5 {
                    let next =
                        tokio::time::timeout(Duration::from_secs(2), stream.try_next()).await;
                    if let Ok(Err(e)) = next {
                        tally.error(&e).await;
                        break;
                    }
                }
            }
            Err(e) => tally.error(&e).await,
        }
    }
}

/// Transactions on the shared accounts: every third one left open (aborted by the server after
/// `transactionLifetimeLimitSeconds`), the others committed; between them writes outside a
/// transaction to the same accounts (which wait for a holder to end, up to their `maxTimeMS`).
async fn transactions(client: Client, id: i64, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let db = client.database("soak");
    let c = db.collection::<Document>("accounts");
    let mut n = 0i64;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let Ok(mut s) = client.start_session().await else {
            continue;
        };
        tally.requests.fetch_add(3, Ordering::Relaxed);
        let account = (id * 7 + n) % ACCOUNTS;
        if s.start_transaction().await.is_ok() {
            let update = c
                .update_one(doc! { "_id": account }, doc! { "$inc": { "balance": 1 } })
                .session(&mut s)
                .await;
            match update {
                Ok(_) if n % 3 == 0 => {
                    // Left open: the server aborts it; the session goes with the client later.
                    std::mem::forget(s);
                }
                Ok(_) => {
                    if let Err(e) = s.commit_transaction().await {
                        tally.error(&e).await;
                    }
                }
                Err(e) => tally.error(&e).await,
            }
        }
        let outside = db
            .run_command(doc! {
                "update": "accounts",
                "updates": [{ "q": { "_id": (account + 1) % ACCOUNTS }, "u": { "$inc": { "outside": 1 } } }],
                "maxTimeMS": 500,
            })
            .await;
        if let Err(e) = outside {
            tally.error(&e).await;
        }
    }
    // Immediate: the sessions left open were forgotten and never come back to the pool.
    client.shutdown().immediate(true).await;
}

/// Sorted reads of the 20,000-chunk collection: by `uuid` in index order (as mongosh's
/// `sh.status()`), top-k blocking sorts, and the same through `aggregate`.
pub(super) fn sorted_reads(uuid: &bson::Bson) -> [Document; 5] {
    [
        doc! { "find": "chunks", "filter": { "uuid": uuid.clone() }, "sort": { "max": -1 }, "limit": 5 },
        doc! { "find": "chunks", "filter": { "uuid": uuid.clone() }, "sort": { "min": 1 }, "batchSize": 20 },
        doc! { "find": "chunks", "filter": {}, "sort": { "shard": 1, "min": -1 }, "limit": 5 },
        doc! { "aggregate": "chunks", "pipeline": [
            { "$match": { "uuid": uuid.clone() } }, { "$sort": { "lastmod": -1 } }, { "$limit": 10 },
        ], "cursor": {} },
        doc! { "aggregate": "chunks", "pipeline": [
            { "$sort": { "shard": -1, "max": 1 } }, { "$limit": 3 }, { "$project": { "shard": 1 } },
        ], "cursor": {} },
    ]
}

async fn sorted_chunks(client: Client, uuid: bson::Bson, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    let config = client.database("config");
    let reads = sorted_reads(&uuid);
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(1, Ordering::Relaxed);
        if let Err(e) = config.run_command(reads[i % reads.len()].clone()).await {
            tally.error(&e).await;
        }
        i += 1;
    }
    // The `batchSize: 20` reads leave their cursors open: they go with the connections.
    client.shutdown().immediate(true).await;
}

/// A find over many documents whose reply is never read: the connection drops mid-reply.
async fn dropper(addr: String, stop: Arc<AtomicBool>, tally: Arc<Tally>) {
    while !stop.load(Ordering::Relaxed) {
        tally.requests.fetch_add(1, Ordering::Relaxed);
        let Ok(mut s) = TcpStream::connect(&addr).await else {
            continue;
        };
        let mut body = Vec::new();
        doc! { "find": "events", "batchSize": 50_000, "$db": "soak" }
            .to_writer(&mut body)
            .unwrap();
        let mut m = Vec::new();
        m.extend_from_slice(&((16 + 5 + body.len()) as i32).to_le_bytes());
        m.extend_from_slice(&1i32.to_le_bytes());
        m.extend_from_slice(&0i32.to_le_bytes());
        m.extend_from_slice(&2013i32.to_le_bytes());
        m.extend_from_slice(&0u32.to_le_bytes());
        m.push(0);
        m.extend_from_slice(&body);
        let _ = s.write_all(&m).await;
        let mut some = [0u8; 64];
        let _ = s.read(&mut some).await;
        drop(s);
        // And half a message, then gone.
        if let Ok(mut s) = TcpStream::connect(&addr).await {
            let _ = s.write_all(&10_000_000i32.to_le_bytes()).await;
            let _ = s.write_all(&[0u8; 4096]).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The clients of the soak: writers, readers (each with a client of its own), change streams,
/// and clients that drop their connection mid-reply or stall mid-message.
pub(super) async fn clients(
    addr: &str,
    client: &Client,
    uri: &str,
    stop: &Arc<AtomicBool>,
    tally: &Arc<Tally>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    let only = std::env::var("SOAK_ONLY").unwrap_or_default();
    let on = |k: &str| only.is_empty() || only.contains(k);
    for id in 0..8 {
        if !on("w") {
            break;
        }
        tasks.push(tokio::spawn(writer(
            client.clone(),
            id,
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    for _ in 0..6 {
        if !on("r") {
            break;
        }
        // Each reader on a client of its own, dropped when it ends (its cursors with it).
        let own = Client::with_uri_str(uri).await.unwrap();
        tasks.push(tokio::spawn(reader(
            own,
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    for _ in 0..3 {
        if !on("c") {
            break;
        }
        tasks.push(tokio::spawn(watcher(
            client.clone(),
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    if on("t") {
        client
            .database("soak")
            .collection::<Document>("accounts")
            .insert_many((0..ACCOUNTS).map(|i| doc! { "_id": i, "balance": 0 }))
            .await
            .unwrap();
    }
    for id in 0..4 {
        if !on("t") {
            break;
        }
        let own = Client::with_uri_str(uri).await.unwrap();
        tasks.push(tokio::spawn(transactions(
            own,
            id,
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    if on("s") {
        let uuid = big_uuid(client).await;
        for _ in 0..2 {
            let own = Client::with_uri_str(uri).await.unwrap();
            tasks.push(tokio::spawn(sorted_chunks(
                own,
                uuid.clone(),
                Arc::clone(stop),
                Arc::clone(tally),
            )));
        }
    }
    for _ in 0..3 {
        if !on("d") {
            break;
        }
        tasks.push(tokio::spawn(dropper(
            addr.to_string(),
            Arc::clone(stop),
            Arc::clone(tally),
        )));
    }
    tasks
}

/// The `uuid` of the 20,000-chunk collection, as `config.collections` has it.
pub(super) async fn big_uuid(client: &Client) -> bson::Bson {
    let c = client
        .database("config")
        .collection::<Document>("collections")
        .find_one(doc! { "_id": "soak.big" })
        .await
        .unwrap()
        .unwrap();
    c.get("uuid").unwrap().clone()
}
