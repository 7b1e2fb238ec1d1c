#![allow(clippy::unwrap_used, clippy::float_cmp)]
//! `serve` against hostile and careless clients: every finding of the adversarial pass (issue 20)
//! as a test — documents nested far too deep, paths of thousands of parts, documents over
//! 16 MiB, cursors left behind, quadratic operators, a heavy command beside a `ping`,
//! `maxTimeMS`, clients that send slowly. Each is answered with the server's code and the server
//! goes on serving everyone.

use crate::common;

use std::time::{Duration, Instant};

use bson::{Bson, Document, doc};
use common::{code_of, serve_opts};
use shardtop::serve::{ServeOptions, empty_cluster};
use shardtop::wire::{self, OP_MSG};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// The bytes of `{a: {a: … {} …}}` with `levels` embedded documents, built without recursion.
fn nested_bytes(levels: usize) -> Vec<u8> {
    let mut doc = vec![5, 0, 0, 0, 0];
    for _ in 0..levels {
        let mut outer = Vec::with_capacity(doc.len() + 8);
        outer.extend_from_slice(&[0; 4]);
        outer.push(3);
        outer.extend_from_slice(b"a\0");
        outer.extend_from_slice(&doc);
        outer.push(0);
        let len = outer.len() as i32;
        outer[..4].copy_from_slice(&len.to_le_bytes());
        doc = outer;
    }
    doc
}

/// An OP_MSG whose kind-0 body is `body` (raw BSON bytes).
fn op_msg(request_id: i32, body: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&((16 + 4 + 1 + body.len()) as i32).to_le_bytes());
    m.extend_from_slice(&request_id.to_le_bytes());
    m.extend_from_slice(&0i32.to_le_bytes());
    m.extend_from_slice(&OP_MSG.to_le_bytes());
    m.extend_from_slice(&0u32.to_le_bytes());
    m.push(0);
    m.extend_from_slice(body);
    m
}

fn bytes_of(d: &Document) -> Vec<u8> {
    let mut v = Vec::new();
    d.to_writer(&mut v).unwrap();
    v
}

/// `{insert: "c", documents: [<doc bytes>], $db: "app"}` around raw document bytes.
fn insert_raw(doc: &[u8]) -> Vec<u8> {
    let head = bytes_of(&doc! { "insert": "c" });
    let tail = bytes_of(&doc! { "$db": "app" });
    let mut body = Vec::new();
    body.extend_from_slice(&[0; 4]);
    body.extend_from_slice(&head[4..head.len() - 1]);
    // documents: [doc] as an array element holding one embedded document "0".
    let mut array = Vec::new();
    array.extend_from_slice(&[0; 4]);
    array.push(3);
    array.extend_from_slice(b"0\0");
    array.extend_from_slice(doc);
    array.push(0);
    let alen = array.len() as i32;
    array[..4].copy_from_slice(&alen.to_le_bytes());
    body.push(4);
    body.extend_from_slice(b"documents\0");
    body.extend_from_slice(&array);
    body.extend_from_slice(&tail[4..tail.len() - 1]);
    body.push(0);
    let len = body.len() as i32;
    body[..4].copy_from_slice(&len.to_le_bytes());
    body
}

async fn round_trip(s: &mut TcpStream, message: &[u8]) -> Document {
    s.write_all(message).await.unwrap();
    let reply = tokio::time::timeout(Duration::from_secs(30), wire::read_message(s))
        .await
        .expect("a reply in time")
        .unwrap();
    // OP_MSG reply: header, flags, kind 0, the document.
    Document::from_reader(&reply[21..]).unwrap()
}

async fn ping(s: &mut TcpStream) -> Document {
    round_trip(
        s,
        &op_msg(1, &bytes_of(&doc! { "ping": 1, "$db": "admin" })),
    )
    .await
}

/// The connection slots these tests give the server (the default is 65,536 or 80% of the
/// open-file limit): few enough to take them all.
const SLOTS: usize = 256;

async fn server() -> (shardtop::serve::Server, mongodb::Client, String) {
    let sim = empty_cluster(Some("8.0".parse().unwrap())).unwrap();
    let mut opts = ServeOptions::new("127.0.0.1:0".parse().unwrap(), sim);
    opts.paused = true;
    opts.message_deadline = Duration::from_millis(500);
    opts.max_connections = SLOTS;
    serve_opts(opts).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_nested_1600_levels_is_answered_with_overflow_and_the_server_lives() {
    let (server, _client, _) = server().await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    let reply = round_trip(&mut s, &op_msg(5, &insert_raw(&nested_bytes(1600)))).await;
    assert_eq!(reply.get_i32("code").unwrap(), 15, "{reply}");
    assert_eq!(reply.get_str("codeName").unwrap(), "Overflow");
    assert!(
        reply
            .get_str("errmsg")
            .unwrap()
            .starts_with("BSONObj exceeds maximum nested object depth"),
        "{reply}"
    );
    // The same connection, and a new one, go on.
    assert_eq!(ping(&mut s).await.get_f64("ok").unwrap(), 1.0);
    let mut t = TcpStream::connect(server.local_addr()).await.unwrap();
    assert_eq!(ping(&mut t).await.get_f64("ok").unwrap(), 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_nesting_is_held_to_180_levels_as_a_server_holds_it() {
    let (server, _client, _) = server().await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    // 190 levels pass the message check (200) but not storage (180).
    let reply = round_trip(&mut s, &op_msg(5, &insert_raw(&nested_bytes(190)))).await;
    let err = &reply.get_array("writeErrors").unwrap()[0];
    let err = err.as_document().unwrap();
    assert_eq!(err.get_i32("code").unwrap(), 15, "{reply}");
    assert_eq!(
        err.get_str("errmsg").unwrap(),
        "cannot insert document because it exceeds 180 levels of nesting"
    );
    // {x: {a: … {}}}: 179 embedded levels holding data are stored (the innermost is empty).
    let mut inner = nested_bytes(179);
    // {_id: 1, a: …}: the _id element put in front of the first element.
    let id = [0x10, b'_', b'i', b'd', 0, 1, 0, 0, 0];
    inner.splice(4..4, id);
    let len = inner.len() as i32;
    inner[..4].copy_from_slice(&len.to_le_bytes());
    let reply = round_trip(&mut s, &op_msg(6, &insert_raw(&inner))).await;
    assert_eq!(reply.get_i32("n").unwrap(), 1, "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_update_path_of_3000_parts_is_refused() {
    let (_server, client, _) = server().await;
    let c = client.database("app").collection::<Document>("c");
    c.insert_one(doc! { "_id": 1 }).await.unwrap();
    let path = vec!["a"; 3000].join(".");
    let e = c
        .update_one(doc! { "_id": 1 }, doc! { "$set": { path: 1 } })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 15, "{e}");
    assert!(
        e.to_string()
            .contains("Document exceeds maximum nesting depth of 180")
    );
    // A path of 180 parts is fine.
    let path = vec!["a"; 180].join(".");
    c.update_one(doc! { "_id": 1 }, doc! { "$set": { path: 1 } })
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_40_mb_command_is_refused_as_too_large_and_a_16_mib_document_as_a_write_error() {
    let (server, _client, _) = server().await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    // Over 16 MiB + 16 KiB: the command cannot be read (`BSONObj::_assertInvalid`, 10334).
    let big = bytes_of(&doc! { "_id": 1, "s": "x".repeat(40 << 20) });
    let reply = round_trip(&mut s, &op_msg(5, &insert_raw(&big))).await;
    assert_eq!(reply.get_i32("code").unwrap(), 10334, "{reply}");
    assert_eq!(reply.get_str("codeName").unwrap(), "BSONObjectTooLarge");
    let msg = reply.get_str("errmsg").unwrap();
    assert!(
        msg.starts_with("BSONObj size: 41943")
            && msg.contains(
                "is invalid. Size must be between 0 and 16793600(16MB) First element: insert: \"c\""
            ),
        "{msg}"
    );
    // Over 16 MiB but readable: the insert's write error (`fixDocumentForInsert`, BadValue).
    let over_user = bytes_of(&doc! { "_id": 2, "s": "x".repeat(16 << 20) });
    let reply = round_trip(&mut s, &op_msg(6, &insert_raw(&over_user))).await;
    let err = reply.get_array("writeErrors").unwrap()[0]
        .as_document()
        .unwrap()
        .clone();
    assert_eq!(err.get_i32("code").unwrap(), 2, "{err}");
    assert!(
        err.get_str("errmsg")
            .unwrap()
            .starts_with("object to insert too large. size in bytes: 167772"),
        "{err}"
    );
    assert!(
        err.get_str("errmsg")
            .unwrap()
            .ends_with("max size: 16777216")
    );
    // The connection is kept.
    assert_eq!(ping(&mut s).await.get_f64("ok").unwrap(), 1.0);
}

async fn fill(client: &mongodb::Client, n: i32) {
    let c = client.database("app").collection::<Document>("c");
    let docs: Vec<Document> = (0..n).map(|i| doc! { "_id": i, "v": i % 1000 }).collect();
    for chunk in docs.chunks(10_000) {
        c.insert_many(chunk.to_vec()).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursors_die_with_their_connection() {
    let (server, client, _) = server().await;
    fill(&client, 5_000).await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    for i in 0..20 {
        let find = doc! { "find": "c", "batchSize": 2, "$db": "app" };
        let reply = round_trip(&mut s, &op_msg(10 + i, &bytes_of(&find))).await;
        assert_ne!(
            reply.get_document("cursor").unwrap().get_i64("id").unwrap(),
            0
        );
    }
    assert_eq!(common::open_cursors(&client).await, 20);
    drop(s);
    let until = Instant::now() + Duration::from_secs(10);
    while common::open_cursors(&client).await != 0 {
        assert!(
            Instant::now() < until,
            "cursors of a closed connection stay open"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unread_cursor_dies_after_cursor_timeout_millis() {
    let (_server, client, _) = server().await;
    fill(&client, 500).await;
    let db = client.database("app");
    common::admin(
        &client,
        doc! { "setParameter": 1, "cursorTimeoutMillis": 300 },
    )
    .await
    .unwrap();
    let reply = db
        .run_command(doc! { "find": "c", "batchSize": 2 })
        .await
        .unwrap();
    let id = reply.get_document("cursor").unwrap().get_i64("id").unwrap();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let e = db
        .run_command(doc! { "getMore": id, "collection": "c" })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 43, "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_each_of_80000_values_and_add_to_set_are_not_quadratic() {
    let (_server, client, _) = server().await;
    let c = client.database("app").collection::<Document>("c");
    c.insert_one(doc! { "_id": 1 }).await.unwrap();
    let values: Vec<i32> = (0..80_000).collect();
    let started = Instant::now();
    c.update_one(
        doc! { "_id": 1 },
        doc! { "$push": { "p": { "$each": values.clone() } } },
    )
    .await
    .unwrap();
    let mut twice: Vec<Bson> = values.iter().map(|v| Bson::Int32(*v)).collect();
    twice.extend(values.iter().map(|v| Bson::Double(f64::from(*v))));
    c.update_one(
        doc! { "_id": 1 },
        doc! { "$addToSet": { "s": { "$each": twice } } },
    )
    .await
    .unwrap();
    // Quadratic, these took about 26 s each; linear they take well under a second.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let d = c.find_one(doc! { "_id": 1 }).await.unwrap().unwrap();
    assert_eq!(d.get_array("p").unwrap().len(), 80_000);
    // 1 and 1.0 are the same value: the doubles add nothing.
    assert_eq!(d.get_array("s").unwrap().len(), 80_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_of_4000_values_over_100000_documents_is_fast_and_right() {
    let (_server, client, _) = server().await;
    fill(&client, 100_000).await;
    let c = client.database("app").collection::<Document>("c");
    // Every other value of 0..8000 (as doubles half the time): v is i % 1000, so the values
    // below 1000 that are even match; 500 of the 1000 values, 50,000 documents.
    let list: Vec<Bson> = (0..4000)
        .map(|i| {
            if i % 2 == 0 {
                Bson::Int32(i * 2)
            } else {
                Bson::Double(f64::from(i * 2))
            }
        })
        .collect();
    let started = Instant::now();
    let n = c
        .count_documents(doc! { "v": { "$in": list.clone() } })
        .await
        .unwrap();
    assert_eq!(n, 50_000);
    let n = c
        .count_documents(doc! { "v": { "$nin": list } })
        .await
        .unwrap();
    assert_eq!(n, 50_000);
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_time_ms_is_honoured() {
    let (_server, client, _) = server().await;
    fill(&client, 30_000).await;
    let db = client.database("app");
    let e = db
        // Nothing matches (v < 1000): the read scans every document for its first batch.
        .run_command(doc! { "find": "c", "filter": { "v": { "$gte": 5000 } }, "maxTimeMS": 1 })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 50, "{e}");
    assert!(
        e.to_string().contains("operation exceeded time limit"),
        "{e}"
    );
    let e = db
        .run_command(doc! {
            "aggregate": "c", "pipeline": [{ "$match": { "v": { "$gte": 0 } } }],
            "cursor": {}, "maxTimeMS": 1,
        })
        .await
        .unwrap_err();
    assert_eq!(code_of(&e), 50, "{e}");
    // Without a limit the same read runs to its end.
    let reply = db
        .run_command(doc! { "count": "c", "query": { "v": { "$gte": 0 } } })
        .await
        .unwrap();
    assert_eq!(reply.get_i32("n").unwrap(), 30_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ping_is_answered_while_a_heavy_command_runs() {
    let (server, client, _) = server().await;
    fill(&client, 60_000).await;
    let db = client.database("app");
    let heavy = tokio::spawn(async move {
        let started = Instant::now();
        // A blocking sort of every document, several times over.
        let pipeline = vec![
            doc! { "$sort": { "v": -1, "_id": 1 } },
            doc! { "$sort": { "v": 1, "_id": -1 } },
            doc! { "$sort": { "_id": 1 } },
            doc! { "$sort": { "v": -1, "_id": -1 } },
            doc! { "$count": "n" },
        ];
        db.run_command(doc! { "aggregate": "c", "pipeline": pipeline, "cursor": {} })
            .await
            .unwrap();
        started.elapsed()
    });
    tokio::time::sleep(Duration::from_millis(150)).await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    let asked = Instant::now();
    assert_eq!(ping(&mut s).await.get_f64("ok").unwrap(), 1.0);
    let ping_took = asked.elapsed();
    let heavy_took = heavy.await.unwrap();
    assert!(
        heavy_took > Duration::from_millis(150) + ping_took,
        "the heavy command ({heavy_took:?}) must still run when the ping ({ping_took:?}) is answered"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_send_slowly_lose_their_slot() {
    let (server, client, _) = server().await;
    // Every slot taken by a client that sends part of a message and stalls.
    let mut stalled = Vec::new();
    for _ in 0..SLOTS {
        let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
        s.write_all(&48_000_000i32.to_le_bytes()).await.unwrap();
        s.write_all(&[7; 100]).await.unwrap();
        stalled.push(s);
    }
    // Past the message deadline (500 ms here) their slots are free again.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let mut fresh = TcpStream::connect(server.local_addr()).await.unwrap();
    assert_eq!(ping(&mut fresh).await.get_f64("ok").unwrap(), 1.0);
    common::admin(&client, doc! { "ping": 1 }).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_and_pipelines_nested_to_the_limit_are_answered() {
    let (server, _client, _) = server().await;
    let mut s = TcpStream::connect(server.local_addr()).await.unwrap();
    let seed = bytes_of(&doc! { "insert": "c", "documents": [{ "_id": 1 }], "$db": "app" });
    round_trip(&mut s, &op_msg(3, &seed)).await;
    // {find: "c", filter: {a: {a: … }}}: the whole command nests 200 levels.
    let filter = nested_bytes(198);
    let head = bytes_of(&doc! { "find": "c", "$db": "app" });
    let mut body = head[..head.len() - 1].to_vec();
    body.push(3);
    body.extend_from_slice(b"filter\0");
    body.extend_from_slice(&filter);
    body.push(0);
    let len = body.len() as i32;
    body[..4].copy_from_slice(&len.to_le_bytes());
    let reply = round_trip(&mut s, &op_msg(4, &body)).await;
    assert_eq!(reply.get_f64("ok").unwrap(), 1.0, "{reply}");
    assert_eq!(ping(&mut s).await.get_f64("ok").unwrap(), 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursors_die_with_their_session() {
    let (_server, client, _) = server().await;
    fill(&client, 500).await;
    let db = client.database("app");
    let mut session = client.start_session().await.unwrap();
    let reply = db
        .run_command(doc! { "find": "c", "batchSize": 2 })
        .session(&mut session)
        .await
        .unwrap();
    assert_ne!(
        reply.get_document("cursor").unwrap().get_i64("id").unwrap(),
        0
    );
    assert_eq!(common::open_cursors(&client).await, 1);
    let lsid = session.id().clone();
    common::admin(&client, doc! { "endSessions": [lsid] })
        .await
        .unwrap();
    assert_eq!(common::open_cursors(&client).await, 0);
}

/// A `$regex` longer than 32,764 bytes is refused as a server refuses it (51091), as a value,
/// an operator or inside `$in`; one of exactly that length is accepted (issue 36: a 4 MB pattern
/// was copied and hashed for every document).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn regex_patterns_past_32764_bytes_are_refused() {
    let (server, client, _) = common::serve_empty("8.0", true).await;
    let coll = client.database("app").collection::<Document>("r");
    coll.insert_many((0..50).map(|i| doc! {"i": i, "z": "ccc"}))
        .await
        .unwrap();
    let longest = format!("^ccc$|{}", "d".repeat(32_758));
    assert_eq!(longest.len(), 32_764);
    let n = coll
        .count_documents(doc! {"z": {"$regex": longest.clone()}})
        .await
        .unwrap();
    assert_eq!(n, 50);
    let too_long = format!("{longest}c");
    let regex = Bson::RegularExpression(bson::Regex {
        pattern: too_long.clone(),
        options: String::new(),
    });
    for filter in [
        doc! {"z": {"$regex": too_long.clone()}},
        doc! {"z": regex.clone()},
        doc! {"z": {"$in": [regex]}},
    ] {
        let e = coll.find_one(filter).await.unwrap_err();
        assert_eq!(code_of(&e), 51091, "{e}");
        assert!(
            e.to_string().contains("Regular expression is invalid"),
            "{e}"
        );
    }
    server.shutdown().await;
}
