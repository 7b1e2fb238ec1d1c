//! A server whose replies are malformed BSON: every one-shot read of a URI (`watch --once`,
//! `capture`, `explain`, `whatif`, `watch --check`) ends with one clean line on stderr and exit
//! 1, as for a server that cannot be read — never a panic's message or a backtrace (the `mongodb`
//! driver panics now and then on such a reply, in the task that ends a client's sessions: its
//! panics are not printed, and a panic inside the read is an error).
//!
//! The server answers the handshake (`hello`, `isMaster`, `buildInfo`) as an 8.0 mongos, then
//! every other command with a reply damaged one way per run: an unknown element type, a string
//! length past the document, an inner document's length past its end, a cut document, bytes
//! that are not UTF-8, and bytes overwritten at fixed places.

use std::process::Command;

use bson::{Document, doc};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::common::tmux::BIN;

/// How a reply is damaged.
#[derive(Clone, Copy, Debug)]
enum Damage {
    UnknownType,
    StringPastEnd,
    InnerLengthPastEnd,
    Cut,
    NotUtf8,
    Overwritten(u64),
}

fn hello(name: &str) -> Document {
    let mut d = doc! {
        "msg": "isdbgrid", "maxBsonObjectSize": 16_777_216, "maxMessageSizeBytes": 48_000_000,
        "maxWriteBatchSize": 100_000, "localTime": bson::DateTime::now(),
        "logicalSessionTimeoutMinutes": 30, "connectionId": 1, "maxWireVersion": 25,
        "minWireVersion": 0, "helloOk": true, "ok": 1.0,
    };
    d.insert(
        if name == "hello" {
            "isWritablePrimary"
        } else {
            "ismaster"
        },
        true,
    );
    d
}

/// A cursor reply of three `config.shards`-like documents, as bytes.
fn good_reply() -> Vec<u8> {
    let batch: Vec<Document> = (0..3)
        .map(|i| doc! {"_id": format!("s{i}"), "host": "rs/h:1", "state": 1, "tags": ["a"]})
        .collect();
    bson::to_vec(
        &doc! {"cursor": {"id": 0_i64, "ns": "config.shards", "firstBatch": batch}, "ok": 1.0},
    )
    .unwrap()
}

fn damaged(damage: Damage) -> Vec<u8> {
    let mut b = good_reply();
    match damage {
        Damage::UnknownType => b[4] = 0x99,
        Damage::StringPastEnd => {
            let at = b.windows(3).position(|w| w == b"ns\0").unwrap() + 3;
            b[at..at + 4].copy_from_slice(&0x7fff_fff0_i32.to_le_bytes());
        }
        Damage::InnerLengthPastEnd => {
            let at = b.windows(7).position(|w| w == b"cursor\0").unwrap() + 7;
            b[at..at + 4].copy_from_slice(&1_000_000_i32.to_le_bytes());
        }
        Damage::Cut => {
            b.truncate(b.len() - 9);
            b.push(0);
        }
        Damage::NotUtf8 => {
            let at = b.windows(6).position(|w| w == b"rs/h:1").unwrap();
            b[at] = 0xff;
            b[at + 1] = 0xfe;
        }
        Damage::Overwritten(seed) => {
            // A few bytes at places chosen by a fixed-seed generator.
            let mut x = seed;
            for _ in 0..3 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let at = (x >> 33) as usize % b.len();
                b[at] = (x >> 13) as u8;
            }
        }
    }
    b
}

/// An OP_MSG reply of `body`'s bytes as its one document.
fn op_msg(response_to: i32, body: &[u8]) -> Vec<u8> {
    let len = i32::try_from(16 + 4 + 1 + body.len()).unwrap();
    let mut out = Vec::new();
    for v in [len, 1, response_to, 2013, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.push(0);
    out.extend_from_slice(body);
    out
}

/// Serves on a free loopback port until the runtime ends; the URI.
async fn serve(damage: Damage) -> String {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                while let Ok(bytes) = shardtop::wire::read_message(&mut socket).await {
                    let Ok(req) = shardtop::wire::parse(&bytes) else {
                        return;
                    };
                    let name = req.command.keys().next().cloned().unwrap_or_default();
                    let reply = match name.as_str() {
                        "hello" | "isMaster" | "ismaster" => bson::to_vec(&hello(&name)).unwrap(),
                        "buildInfo" | "buildinfo" => bson::to_vec(
                            &doc! {"version": "8.0.4", "versionArray": [8, 0, 4, 0], "ok": 1.0},
                        )
                        .unwrap(),
                        "endSessions" | "killCursors" => bson::to_vec(&doc! {"ok": 1.0}).unwrap(),
                        _ => damaged(damage),
                    };
                    if req.more_to_come {
                        continue;
                    }
                    let out = if req.legacy {
                        let d = bson::from_slice::<Document>(&reply).unwrap_or_default();
                        shardtop::wire::encode_reply(1, req.request_id, &d)
                    } else {
                        op_msg(req.request_id, &reply)
                    };
                    if socket.write_all(&out).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("mongodb://127.0.0.1:{port}/?directConnection=true")
}

#[test]
fn a_malformed_reply_ends_a_one_shot_read_with_one_clean_line_and_exit_1() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut damages = vec![
        Damage::UnknownType,
        Damage::StringPastEnd,
        Damage::InnerLengthPastEnd,
        Damage::Cut,
        Damage::NotUtf8,
    ];
    damages.extend((1..=12).map(Damage::Overwritten));
    let mut runs = 0;
    for (n, damage) in damages.into_iter().enumerate() {
        let uri = rt.block_on(serve(damage));
        let out = dir.path().join(format!("c{n}.capture"));
        let out = out.display().to_string();
        let commands: [Vec<&str>; 5] = [
            vec!["watch", &uri, "--once"],
            vec!["capture", &uri, "-o", &out],
            vec!["explain", &uri, "--ns", "db.c"],
            vec!["whatif", &uri, "--ns", "db.c", "--add-shards", "1"],
            vec!["watch", &uri, "--check"],
        ];
        for args in commands {
            let o = Command::new(BIN)
                .args(&args)
                .env("RUST_BACKTRACE", "1")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            let context = format!("{damage:?} {args:?}: {err}");
            assert!(
                !err.contains("panicked") && !err.contains("backtrace"),
                "{context}"
            );
            let lines: Vec<&str> = err.lines().filter(|l| !l.contains("warning:")).collect();
            assert_eq!(lines.len(), 1, "{context}");
            assert!(lines[0].starts_with("shardtop: "), "{context}");
            assert_eq!(o.status.code(), Some(1), "{context}");
            runs += 1;
        }
    }
    assert_eq!(runs, 17 * 5);
}
