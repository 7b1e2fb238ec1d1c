#![allow(clippy::unwrap_used)]
//! `capture --anonymize` keeps nothing it does not know: a capture whose every name, host, user,
//! comment, note and key value is a unique marker — with spaces, colons, dots and Unicode, in the
//! fields the last adversarial pass found leaking (`$currentOp`'s `client_s`, `command.configdb`,
//! `lsid`, `comment`; the changelog's `details.primary`, `initShards`, `note`, `reason`,
//! `errorMessage`; a `config.settings` comment; a key value quoted without braces) — holds, once
//! anonymized, no marker nor any four characters of one in a row: neither in the file's bytes nor
//! in any string of the capture read back. Checked on a capture built by hand and on a live
//! `capture URI --anonymize` of `serve` running a cluster named by markers.

use bson::{Binary, Bson, Document, doc, spec::BinarySubtype};
use shardtop::capture::anonymize::anonymize;
use shardtop::capture::{Capture, CapturedRead, Outcome, file};
use shardtop::files::Existing;
use shardtop::sim::{Simulator, scenario};

use super::helpers::shardtop;

/// The markers of the capture built by hand.
const MARKERS: &[&str] = &[
    "Qzsh kvq",
    "Qzrs",
    "Qzhq.kvb",
    "Qzhb.kvb",
    "Qzw west kvw",
    "Qzdb kvd",
    "Qzc vrkx",
    "Qzo:vrkq",
    "Qzé☃vk.dot",
    "Qzkf",
    "Qzval kvj",
    "Qzval kvk",
    "Qzval kvm",
    "Qzval kvn",
    "Qzval flq",
    "Qzn nte kv",
    "Qzr rsn kv",
    "Qzerr kv",
    "Qzcm kvz",
    "Qzcm opq",
    "Qzcm tpq",
    "Qzcfg",
    "Qzcfgh.kv",
    "Qzusr kv",
    "Qzapp",
    "Qztg.kv",
    "Qzmg.kv",
    "Qzold shq",
];

/// The address of the client (`client_s`), checked whole.
const ADDRESS: &str = "10.97.86.75";

fn read(db: &str, command: Document, outcome: Outcome) -> CapturedRead {
    CapturedRead {
        db: db.into(),
        command,
        outcome,
    }
}

fn find(coll: &str, docs: Vec<Document>) -> CapturedRead {
    read(
        "config",
        doc! {"find": coll, "filter": {}},
        Outcome::Documents(docs),
    )
}

/// A capture holding every marker in the fields a real one holds them in.
fn marked() -> Capture {
    let uuid = Binary {
        subtype: BinarySubtype::Uuid,
        bytes: vec![9; 16],
    };
    let uid = Binary {
        subtype: BinarySubtype::Generic,
        bytes: b"Qzusr kv hashed".to_vec(),
    };
    let spaced = "Qzdb kvd.Qzc vrkx";
    let coloned = "Qzdb kvd.Qzo:vrkq";
    let unicode = "Qzdb kvd.Qzé☃vk.dot";
    let k = |v: &str| doc! {"Qzkf": v};
    Capture {
        format: 1,
        captured_at_ms: 1_764_772_218_123,
        target: "mongodb://Qztg.kv:27017".into(),
        server_version: Some("8.0.4".into()),
        anonymized: false,
        reads: vec![
            read(
                "admin",
                doc! {"hello": 1},
                Outcome::Reply(
                    doc! {"isWritablePrimary": true, "msg": "isdbgrid", "hosts": ["Qzmg.kv:27017"], "me": "Qzmg.kv:27017", "ok": 1.0},
                ),
            ),
            find(
                "shards",
                vec![
                    doc! {"_id": "Qzsh kvq", "host": "Qzrs/Qzhq.kvb:27018,Qzhb.kvb:27018", "state": 1, "tags": ["Qzw west kvw"]},
                ],
            ),
            find(
                "databases",
                vec![doc! {"_id": "Qzdb kvd", "primary": "Qzsh kvq", "partitioned": true}],
            ),
            find(
                "collections",
                vec![
                    doc! {"_id": spaced, "uuid": uuid.clone(), "key": {"Qzkf": 1}},
                    doc! {"_id": coloned, "key": {"Qzkf": 1}},
                    doc! {"_id": unicode, "key": {"Qzkf": 1}},
                ],
            ),
            find(
                "chunks",
                vec![
                    doc! {"uuid": uuid.clone(), "shard": "Qzsh kvq", "min": {"Qzkf": Bson::MinKey}, "max": k("Qzval kvj")},
                    doc! {"uuid": uuid, "shard": "Qzsh kvq", "min": k("Qzval kvj"), "max": {"Qzkf": Bson::MaxKey}},
                    doc! {"_id": "Qzdb kvd.Qzo:vrkq-Qzkf_\"Qzval kvk\"", "ns": coloned, "shard": "Qzsh kvq", "min": k("Qzval kvk"), "max": {"Qzkf": Bson::MaxKey}},
                    doc! {"_id": "Qzdb kvd.Qzé☃vk.dot-Qzkf_MinKey", "ns": unicode, "shard": "Qzsh kvq", "min": {"Qzkf": Bson::MinKey}, "max": {"Qzkf": Bson::MaxKey}},
                ],
            ),
            find(
                "tags",
                vec![
                    doc! {"_id": {"ns": spaced, "min": k("Qzval kvj")}, "ns": spaced, "tag": "Qzw west kvw", "min": k("Qzval kvj"), "max": {"Qzkf": Bson::MaxKey}},
                ],
            ),
            find(
                "settings",
                vec![
                    doc! {"_id": "balancer", "stopped": false, "comment": "Qzcm kvz", "note": "Qzn nte kv"},
                ],
            ),
            find(
                "changelog",
                vec![
                    doc! {"_id": "Qzmg.kv-2025-12-03T14:30:18.123+0000-65f", "server": "Qzmg.kv:27017", "clientAddr": "10.97.86.75:5555", "what": "shardCollection.start", "ns": spaced, "details": {"shardKey": {"Qzkf": 1}, "primary": "Qzsh kvq:Qzrs/Qzhq.kvb:27018", "numChunks": 1}},
                    doc! {"_id": "b", "server": "Qzmg.kv:27017", "what": "moveChunk.error", "ns": coloned, "details": {"min": k("Qzval kvk"), "from": "Qzsh kvq", "to": "Qzold shq", "errmsg": "chunk range Qzval kvn is busy on Qzsh kvq", "note": "Qzn nte kv", "reason": "Qzr rsn kv Qzval kvm", "errorMessage": "Qzerr kv in Qzw west kvw for Qzc vrkx"}},
                    doc! {"_id": "c", "server": "Qzcfgh.kv:27019", "what": "addShard", "ns": "", "details": {"name": "Qzold shq", "host": "Qzrs/Qzhq.kvb:27018", "initShards": ["Qzrs/Qzhq.kvb:27018"]}},
                ],
            ),
            read(
                "admin",
                doc! {"aggregate": 1, "pipeline": [{"$currentOp": {"allUsers": true}}], "cursor": {}},
                Outcome::Documents(vec![
                    doc! {"desc": "conn12", "client_s": "10.97.86.75:41234", "appName": "Qzapp", "lsid": {"id": Binary { subtype: BinarySubtype::Uuid, bytes: vec![3; 16] }, "uid": uid}, "comment": "Qzcm tpq", "effectiveUsers": [{"user": "Qzusr kv", "db": "admin"}], "command": {"moveChunk": spaced, "configdb": "Qzcfg/Qzcfgh.kv:27019", "comment": "Qzcm opq", "filter": k("Qzval flq"), "min": k("Qzval kvj"), "max": {"Qzkf": Bson::MaxKey}, "fromShard": "Qzsh kvq", "toShard": "Qzold shq"}},
                ]),
            ),
            read(
                "Qzdb kvd",
                doc! {"aggregate": "Qzc vrkx", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}},
                Outcome::Error {
                    code: Some(13),
                    code_name: Some("Unauthorized".into()),
                    message: "not authorized on Qzdb kvd to move Qzval kvm for Qzusr kv".into(),
                },
            ),
        ],
    }
}

/// Every string of `c`: its header, databases, field names and values, joined by NULs.
fn strings(c: &Capture) -> String {
    fn walk(v: &Bson, out: &mut Vec<String>) {
        match v {
            Bson::String(s) => out.push(s.clone()),
            Bson::Document(d) => {
                for (k, v) in d {
                    out.push(k.clone());
                    walk(v, out);
                }
            }
            Bson::Array(a) => a.iter().for_each(|v| walk(v, out)),
            Bson::Binary(b) => out.push(String::from_utf8_lossy(&b.bytes).into_owned()),
            _ => {}
        }
    }
    let mut out = vec![c.target.clone()];
    out.extend(c.server_version.clone());
    for r in &c.reads {
        out.push(r.db.clone());
        walk(&Bson::Document(r.command.clone()), &mut out);
        match &r.outcome {
            Outcome::Documents(d) => d
                .iter()
                .for_each(|d| walk(&Bson::Document(d.clone()), &mut out)),
            Outcome::Reply(d) => walk(&Bson::Document(d.clone()), &mut out),
            Outcome::Error {
                code_name, message, ..
            } => {
                out.extend(code_name.clone());
                out.push(message.clone());
            }
        }
    }
    out.join("\u{0}")
}

/// Fails naming the first marker (or four characters of one) found in `text`.
fn assert_no_marker(markers: &[&str], text: &str, what: &str) {
    for m in markers {
        let chars: Vec<char> = m.chars().collect();
        for len in 4..=chars.len() {
            for w in chars.windows(len) {
                let piece: String = w.iter().collect();
                assert!(
                    !text.contains(&piece),
                    "{what}: {piece:?} of the marker {m:?} survives in\n{text}"
                );
            }
        }
    }
}

#[test]
fn a_capture_of_markers_keeps_none_of_them() {
    let plain = marked();
    // The check finds the markers where they are.
    let before = strings(&plain);
    for m in MARKERS {
        assert!(before.contains(m), "{m}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.capture");
    file::write(&anonymize(&plain), &path, Existing::Refuse).unwrap();
    let bytes = std::fs::read_to_string(&path).unwrap();
    let back = file::read(&path).unwrap();
    assert!(back.anonymized);
    assert_no_marker(MARKERS, &bytes, "the file");
    assert_no_marker(MARKERS, &strings(&back), "the capture read back");
    assert!(!bytes.contains(ADDRESS) && !strings(&back).contains(ADDRESS));
    // What MongoDB says is kept: the shape a poll reads.
    for kept in [
        "shardCollection.start",
        "moveChunk.error",
        "Unauthorized",
        "isdbgrid",
        "8.0.4",
    ] {
        assert!(bytes.contains(kept), "{kept} is lost");
    }
}

/// A cluster whose shards, database, collections, key field, zone and key values are markers.
const SCENARIO: &str = r#"{
  "name": "markers",
  "description": "every name a marker",
  "shards": [{"id": "Qzsa kvq"}, {"id": "Qzsb:kvq"}, {"id": "Qzsé☃kvq"}],
  "chunkSizeMb": 1,
  "collections": [
    {"ns": "Qzdm kvd.Qzcm vrkx", "key": {"Qzkm": 1}, "primary": "Qzsa kvq"},
    {"ns": "Qzdm kvd.Qzom:vrkq", "key": {"Qzkm": 1}, "primary": "Qzsb:kvq"}
  ],
  "workloads": [
    {"ns": "Qzdm kvd.Qzcm vrkx", "rate": 500, "count": 9000, "docSize": {"min": 400, "max": 500},
     "fields": {"Qzkm": {"choice": {"values": ["Qzva kvj", "Qzvb kvk", "Qzvc kvm", "Qzvd kvn"]}}}}
  ],
  "actions": [
    {"at": 0, "do": {"addShardToZone": {"shard": "Qzsé☃kvq", "zone": "Qzwm west kvw"}}},
    {"at": 0, "do": {"updateZoneKeyRange": {"ns": "Qzdm kvd.Qzcm vrkx", "min": {"Qzkm": "Qzvc kvm"}, "max": {"Qzkm": "Qzvd kvn"}, "zone": "Qzwm west kvw"}}}
  ],
  "until": 600
}"#;

const LIVE_MARKERS: &[&str] = &[
    "Qzsa kvq",
    "Qzsb:kvq",
    "Qzsé☃kvq",
    "Qzdm kvd",
    "Qzcm vrkx",
    "Qzom:vrkq",
    "Qzkm",
    "Qzva kvj",
    "Qzvb kvk",
    "Qzvc kvm",
    "Qzvd kvn",
    "Qzwm west kvw",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_capture_of_a_cluster_of_markers_keeps_none_of_them() {
    let sc = scenario::parse(SCENARIO).unwrap();
    let mut sim = Simulator::from_scenario(&sc, sc.seed, None).unwrap();
    sim.run_until(120_000);
    let (server, uri) = super::helpers::serve_paused(sim).await;
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let run = |args: &[&str]| shardtop(args.iter().map(ToString::to_string).collect());
    let plain = run(&["capture", &uri, "-o", &p("plain.capture")]).await;
    assert!(plain.status.success(), "{plain:?}");
    let anon = run(&["capture", &uri, "-o", &p("a.capture"), "--anonymize"]).await;
    assert!(anon.status.success(), "{anon:?}");
    server.shutdown().await;
    // The plain capture holds every marker: the check looks where they are.
    let before = std::fs::read_to_string(p("plain.capture")).unwrap();
    let read_plain = file::read(std::path::Path::new(&p("plain.capture"))).unwrap();
    let all = before + &strings(&read_plain);
    // Every marker but the key values a split did not pick.
    for m in LIVE_MARKERS
        .iter()
        .filter(|m| !m.starts_with("Qzv") || m.ends_with("kvm"))
    {
        assert!(all.contains(m), "{m} is not in the plain capture");
    }
    let bytes = std::fs::read_to_string(p("a.capture")).unwrap();
    let back = file::read(std::path::Path::new(&p("a.capture"))).unwrap();
    assert_no_marker(LIVE_MARKERS, &bytes, "the live capture's file");
    assert_no_marker(LIVE_MARKERS, &strings(&back), "the live capture read back");
    let out =
        String::from_utf8_lossy(&anon.stdout).to_string() + &String::from_utf8_lossy(&anon.stderr);
    assert_no_marker(LIVE_MARKERS, &out, "capture's own output");
}
