//! What `sh.status()` costs on `shardtop serve` (issues 16, 33): the commands mongosh 2.12.0
//! sent for it, captured on the wire (`tests/fixtures/mongosh/`), replayed on a 1,000-chunk and
//! a 1,000,000-chunk collection — target: the large one at most 2 × the small one; a find by
//! uuid among 3,000 collections (issue 36). And the generic path: a `$match` + `$group` over generated `config.chunks` documents
//! that must be built (a match the routing-table answer does not take) — target ≥ 1,000,000
//! documents/s.
//!
//! Run: `cargo bench --bench serve_status -- --warm-up-time 1 --measurement-time 5`.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

use bson::{Bson, Document, doc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::TryStreamExt;
use shardtop::serve::{ServeOptions, Server, start};
use shardtop::sim::Simulator;

mod common;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

async fn serve(sim: Simulator) -> (Server, mongodb::Client) {
    let listen: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut opts = ServeOptions::new(listen, sim);
    opts.paused = true;
    let server = start(opts).await.unwrap();
    let uri = format!(
        "mongodb://127.0.0.1:{}/?directConnection=true",
        server.local_addr().port()
    );
    (server, mongodb::Client::with_uri_str(&uri).await.unwrap())
}

async fn all(client: &mongodb::Client, coll: &str, filter: Document) -> Vec<Document> {
    client
        .database("config")
        .collection::<Document>(coll)
        .find(filter)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

async fn aggregate(client: &mongodb::Client, coll: &str, pipeline: Vec<Document>) -> Vec<Document> {
    client
        .database("config")
        .collection::<Document>(coll)
        .aggregate(pipeline)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// What mongosh 2.12.0 sent for `sh.status()` against `serve` on a 1,000-chunk `app.big`,
/// captured on the wire (`scripts/capture_commands.py`): one command document a line, canonical
/// Extended JSON.
const CAPTURED: &str = include_str!("../tests/fixtures/mongosh/sh_status_2.12.0.jsonl");

fn captured() -> Vec<Document> {
    CAPTURED
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            match Bson::try_from(v).unwrap() {
                Bson::Document(d) => d,
                other => panic!("not a document: {other}"),
            }
        })
        .collect()
}

/// One OP_MSG round trip on `conn`: the body `cmd`, the reply's body.
fn round_trip(conn: &mut TcpStream, cmd: &Document, id: i32) -> Document {
    let mut body = Vec::new();
    cmd.to_writer(&mut body).unwrap();
    let len = 16 + 4 + 1 + body.len();
    let mut msg = Vec::with_capacity(len);
    for n in [len as i32, id, 0, 2013, 0] {
        msg.extend_from_slice(&n.to_le_bytes());
    }
    msg.push(0);
    msg.extend_from_slice(&body);
    conn.write_all(&msg).unwrap();
    let mut header = [0u8; 16];
    conn.read_exact(&mut header).unwrap();
    let total = i32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
    let mut rest = vec![0u8; total - 16];
    conn.read_exact(&mut rest).unwrap();
    assert_eq!(rest[4], 0, "a kind-0 body first");
    Document::from_reader(&rest[5..]).unwrap()
}

/// Replays the captured commands on one connection, in order (mongosh sent them on several,
/// some at once): each killCursors names the cursors this replay left open on its collection.
/// Returns the chunks the `$group` by shard counted and the chunk documents the finds returned.
fn replay(addr: SocketAddr, cmds: &[Document]) -> (i64, usize) {
    let mut conn = TcpStream::connect(addr).unwrap();
    conn.set_nodelay(true).unwrap();
    let mut open: Vec<(String, i64)> = Vec::new();
    let (mut counted, mut read) = (0, 0);
    for (i, cmd) in cmds.iter().enumerate() {
        let mut cmd = cmd.clone();
        if let Ok(coll) = cmd.get_str("killCursors") {
            let ns = format!("config.{coll}");
            let ids: Vec<Bson> = open
                .iter()
                .filter(|(n, _)| *n == ns)
                .map(|(_, id)| Bson::Int64(*id))
                .collect();
            open.retain(|(n, _)| *n != ns);
            cmd.insert("cursors", ids);
        }
        let reply = round_trip(&mut conn, &cmd, i as i32 + 1);
        // mongosh's probes (`getParameter: "foo"`, `atlasVersion`) fail on a real server too;
        // every read of the config database answers.
        if cmd.get_str("$db") == Ok("config") {
            assert_eq!(reply.get_f64("ok").ok(), Some(1.0), "{cmd}: {reply}");
        }
        let Ok(cursor) = reply.get_document("cursor") else {
            continue;
        };
        let id = cursor.get_i64("id").unwrap_or(0);
        let ns = cursor.get_str("ns").unwrap_or("").to_string();
        if id != 0 {
            open.push((ns.clone(), id));
        }
        let batch = cursor.get_array("firstBatch").map_or(0, Vec::len);
        if ns == "config.chunks" && cmd.contains_key("find") {
            read += batch;
        } else if ns == "config.chunks" {
            for d in cursor.get_array("firstBatch").unwrap() {
                counted += i64::from(d.as_document().unwrap().get_i32("nChunks").unwrap());
            }
        }
    }
    (counted, read)
}

fn status(c: &mut Criterion) {
    let rt = common::runtime();
    let cmds = captured();
    let mut group = c.benchmark_group("serve sh.status");
    group.sample_size(10);
    for chunks in [1_000_u32, 1_000_000] {
        let (server, _client) = rt.block_on(serve(common::big_hashed_sim(chunks)));
        let addr = server.local_addr();
        group.bench_function(format!("mongosh 2.12.0's commands, {chunks} chunks"), |b| {
            b.iter(|| {
                // And config.system.sessions's one chunk; the finds' first batches: 101 + 1.
                assert_eq!(replay(addr, &cmds), (i64::from(chunks) + 1, 102));
            });
        });
        rt.block_on(server.shutdown());
    }
    group.finish();
}

/// `config.chunks.find({uuid})` among 3,000 one-chunk collections (issue 36: it cost the square
/// of the collection count).
fn find_by_uuid(c: &mut Criterion) {
    let rt = common::runtime();
    let colls: Vec<String> = (0..3000)
        .map(|i| format!(r#"{{"ns": "db.c{i:04}", "key": {{"k": 1}}}}"#))
        .collect();
    let text = format!(
        r#"{{"name": "many", "description": "d", "seedPassage": "p", "shards": 3,
            "collections": [{}], "until": 1}}"#,
        colls.join(",")
    );
    let sc = shardtop::sim::scenario::parse(&text).unwrap();
    let sim = Simulator::from_scenario(&sc, 1, None).unwrap();
    let (server, client) = rt.block_on(serve(sim));
    let uuids: Vec<Bson> = rt
        .block_on(all(&client, "collections", doc! {}))
        .iter()
        .map(|c| c.get("uuid").cloned().unwrap())
        .collect();
    let mut group = c.benchmark_group("serve config.chunks find by uuid");
    group.sample_size(10);
    group.bench_function("3,000 one-chunk collections", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % uuids.len();
            let got = rt.block_on(all(&client, "chunks", doc! {"uuid": uuids[i].clone()}));
            assert_eq!(got.len(), 1);
        });
    });
    group.finish();
    rt.block_on(server.shutdown());
}

fn generic_group(c: &mut Criterion) {
    const CHUNKS: u32 = 1_000_000;
    let rt = common::runtime();
    let (server, client) = rt.block_on(serve(common::big_hashed_sim(CHUNKS)));
    let uuid = rt
        .block_on(all(&client, "collections", doc! {}))
        .first()
        .and_then(|c| c.get("uuid").cloned())
        .unwrap();
    let mut group = c.benchmark_group("serve config.chunks $match + $group");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(u64::from(CHUNKS)));
    group.bench_function("built documents, 1,000,000 chunks", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let rows = aggregate(
                        &client,
                        "chunks",
                        vec![
                            doc! {"$match": {"uuid": uuid.clone(), "jumbo": {"$ne": true}}},
                            doc! {"$group": {"_id": "$shard", "cnt": {"$sum": 1}}},
                        ],
                    )
                    .await;
                    assert!(!rows.is_empty());
                }
                start.elapsed()
            })
        });
    });
    group.finish();
    rt.block_on(server.shutdown());
}

criterion_group!(benches, status, find_by_uuid, generic_group);
criterion_main!(benches);
