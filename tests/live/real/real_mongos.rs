//! A small mongos for tests: it answers `watch`'s reads (OP_MSG and the legacy OP_QUERY
//! handshake, through `shardtop::wire`) from one cluster file of `tests/fixtures/clusters` — the
//! documents and command replies a real cluster published — and refuses what that version
//! refused (a 4.4.0/4.4.1 mongos has no `hello`; 6.0.0–6.0.2 no `$shardedDataDistribution`;
//! before 8.0.10 no `$listClusterCatalog`).
//!
//! It knows only the filters and stages `watch` is known to send; anything else is written to
//! `unknown` (the test fails on it) and answered with an error, never guessed at.
//! Owns: the file's documents and the sockets it opens. May not touch: the crate's state.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bson::{Bson, Document, doc};
use tokio::net::TcpListener;

/// One cluster file, parsed.
#[derive(Clone, Debug)]
pub struct ClusterFile {
    pub name: String,
    pub version: String,
    /// `(command, pipeline stage or "", error reply)`.
    pub refuses: Vec<(String, String, Document)>,
    pub config: HashMap<String, Vec<Document>>,
    pub replies: Document,
}

fn ejson(v: serde_json::Value) -> Bson {
    Bson::try_from(v).expect("canonical Extended JSON")
}

impl ClusterFile {
    pub fn load(path: &std::path::Path) -> Self {
        let text = std::fs::read_to_string(path).expect("a cluster file");
        let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let mut config = HashMap::new();
        for (k, docs) in v["config"].as_object().expect("config") {
            let docs = docs
                .as_array()
                .expect("an array of documents")
                .iter()
                .map(|d| match ejson(d.clone()) {
                    Bson::Document(d) => d,
                    other => panic!("{k}: not a document: {other}"),
                })
                .collect();
            config.insert(k.clone(), docs);
        }
        let refuses = v["refuses"]
            .as_array()
            .expect("refuses")
            .iter()
            .map(|r| {
                let error = doc! {
                    "ok": 0.0,
                    "errmsg": r["errmsg"].as_str().expect("errmsg"),
                    "code": r["code"].as_i64().expect("code") as i32,
                    "codeName": r["codeName"].as_str().expect("codeName"),
                };
                (
                    r["command"].as_str().expect("command").to_string(),
                    r["stage"].as_str().unwrap_or("").to_string(),
                    error,
                )
            })
            .collect();
        let Bson::Document(replies) = ejson(v["replies"].clone()) else {
            panic!("replies")
        };
        Self {
            name: v["cluster"].as_str().expect("cluster").to_string(),
            version: v["serverVersion"]
                .as_str()
                .expect("serverVersion")
                .to_string(),
            refuses,
            config,
            replies,
        }
    }

    pub fn docs(&self, coll: &str) -> &[Document] {
        self.config.get(coll).map_or(&[], Vec::as_slice)
    }

    fn refusal(&self, command: &str, stage: &str) -> Option<Document> {
        self.refuses
            .iter()
            .find(|(c, s, _)| c == command && s == stage)
            .map(|(_, _, e)| e.clone())
    }

    /// `maxWireVersion` of the release line (`src/mongo/db/wire_version.h`).
    fn wire_version(&self) -> i32 {
        let mut parts = self.version.split(['.', '-']);
        let major: i32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(8);
        let minor: i32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        match major {
            4 => 9,
            5 => 13 + minor,
            6 => 17 + minor,
            7 => 21 + minor,
            _ => 25 + minor,
        }
    }
}

/// The mongos: where it listens, and what it was asked that it does not know.
pub struct RealMongos {
    pub uri: String,
    pub unknown: Arc<Mutex<Vec<String>>>,
    /// Every command name received, in order.
    pub received: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for RealMongos {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Shared {
    file: ClusterFile,
    unknown: Arc<Mutex<Vec<String>>>,
    received: Arc<Mutex<Vec<String>>>,
    cursors: Mutex<HashMap<i64, Vec<Document>>>,
    next_cursor: Mutex<i64>,
    /// The chunks of each owner (`uuid` or `ns`, as its Extended JSON), as the config server's
    /// `uuid_1_lastmod_1` / `ns_1_lastmod_1` indexes serve them.
    chunks_of: HashMap<String, Vec<usize>>,
}

fn owner_key(v: &Bson) -> String {
    v.clone().into_canonical_extjson().to_string()
}

/// At most this many documents a batch, so a 1,024-chunk collection needs `getMore`.
const BATCH: usize = 500;

/// Starts a mongos answering from `file` on a free port of 127.0.0.1.
pub async fn start(file: ClusterFile) -> RealMongos {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let unknown = Arc::new(Mutex::new(Vec::new()));
    let received = Arc::new(Mutex::new(Vec::new()));
    let mut chunks_of: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, c) in file.docs("chunks").iter().enumerate() {
        if let Some(owner) = c.get("uuid").or_else(|| c.get("ns")) {
            chunks_of.entry(owner_key(owner)).or_default().push(i);
        }
    }
    let shared = Arc::new(Shared {
        chunks_of,
        file,
        unknown: unknown.clone(),
        received: received.clone(),
        cursors: Mutex::new(HashMap::new()),
        next_cursor: Mutex::new(1000),
    });
    let task = crate::common::wire_loop::accept(listener, move |command| {
        let shared = shared.clone();
        async move { Some(shared.answer(&command)) }
    });
    RealMongos {
        uri: format!("mongodb://127.0.0.1:{port}/?directConnection=true"),
        unknown,
        received,
        task,
    }
}

fn error(code: i32, name: &str, msg: &str) -> Document {
    doc! {"ok": 0.0, "errmsg": msg, "code": code, "codeName": name}
}

impl Shared {
    fn unknown(&self, what: String) -> Document {
        let text = format!("the test mongos does not know {what}");
        self.unknown.lock().unwrap().push(what);
        error(59, "CommandNotFound", &text)
    }

    fn answer(&self, cmd: &Document) -> Document {
        let name = cmd.keys().next().cloned().unwrap_or_default();
        self.received.lock().unwrap().push(name.clone());
        if let Some(e) = self.file.refusal(&name, "") {
            return e;
        }
        let db = cmd.get_str("$db").unwrap_or("admin").to_string();
        match name.as_str() {
            "hello" | "isMaster" | "ismaster" => self.hello(&name),
            "buildInfo" | "buildinfo" => {
                let parts: Vec<Bson> = self
                    .file
                    .version
                    .split(['.', '-'])
                    .take(3)
                    .map(|p| Bson::Int32(p.parse().unwrap_or(0)))
                    .collect();
                doc! {"version": self.file.version.clone(), "versionArray": parts, "ok": 1.0}
            }
            "ping" | "endSessions" => doc! {"ok": 1.0},
            "connectionStatus" => {
                doc! {"authInfo": {"authenticatedUsers": [], "authenticatedUserRoles": [], "authenticatedUserPrivileges": []}, "ok": 1.0}
            }
            "find" if db == "config" => self.find(cmd),
            "getMore" => self.get_more(cmd),
            "killCursors" => {
                let ids = cmd.get_array("cursors").cloned().unwrap_or_default();
                for id in &ids {
                    if let Some(id) = id.as_i64() {
                        self.cursors.lock().unwrap().remove(&id);
                    }
                }
                doc! {"cursorsKilled": ids, "ok": 1.0}
            }
            "aggregate" => self.aggregate(cmd, &db),
            "balancerStatus" => self.reply("balancerStatus"),
            "balancerCollectionStatus" => {
                let ns = cmd.get_str("balancerCollectionStatus").unwrap_or_default();
                match self
                    .file
                    .replies
                    .get_document("balancerCollectionStatus")
                    .ok()
                    .and_then(|r| r.get_document(ns).ok())
                {
                    Some(r) => r.clone(),
                    None => self.unknown(format!("balancerCollectionStatus {ns}")),
                }
            }
            _ => self.unknown(format!("command {name} on {db}: {cmd}")),
        }
    }

    fn reply(&self, key: &str) -> Document {
        match self.file.replies.get_document(key) {
            Ok(d) => d.clone(),
            Err(_) => self.unknown(format!("{key} (no reply in the file)")),
        }
    }

    /// hello / isMaster as a mongos of that version (`src/mongo/s/commands/cluster_hello_cmd.cpp`):
    /// `helloOk` only where `hello` exists (4.4.2+).
    fn hello(&self, name: &str) -> Document {
        let mut d = doc! {
            "ismaster": true,
            "msg": "isdbgrid",
            "maxBsonObjectSize": 16_777_216,
            "maxMessageSizeBytes": 48_000_000,
            "maxWriteBatchSize": 100_000,
            "localTime": bson::DateTime::now(),
            "logicalSessionTimeoutMinutes": 30,
            "connectionId": 1,
            "maxWireVersion": self.file.wire_version(),
            "minWireVersion": 0,
            "ok": 1.0,
        };
        if name == "hello" {
            d.remove("ismaster");
            d.insert("isWritablePrimary", true);
        }
        if self.file.refusal("hello", "").is_none() {
            d.insert("helloOk", true);
        }
        d
    }

    fn cursor(&self, ns: String, mut docs: Vec<Document>, limit: usize) -> Document {
        docs.truncate(limit);
        let rest = docs.split_off(docs.len().min(BATCH));
        let id = if rest.is_empty() {
            0
        } else {
            let mut next = self.next_cursor.lock().unwrap();
            *next += 1;
            self.cursors.lock().unwrap().insert(*next, rest);
            *next
        };
        doc! {"cursor": {"id": id, "ns": ns, "firstBatch": docs}, "ok": 1.0}
    }

    fn get_more(&self, cmd: &Document) -> Document {
        let id = cmd.get_i64("getMore").unwrap_or(0);
        let coll = cmd.get_str("collection").unwrap_or_default();
        let Some(mut docs) = self.cursors.lock().unwrap().remove(&id) else {
            return error(43, "CursorNotFound", &format!("cursor id {id} not found"));
        };
        let rest = docs.split_off(docs.len().min(BATCH));
        let next = if rest.is_empty() {
            0
        } else {
            self.cursors.lock().unwrap().insert(id, rest);
            id
        };
        doc! {"cursor": {"id": next, "ns": format!("config.{coll}"), "nextBatch": docs}, "ok": 1.0}
    }

    fn find(&self, cmd: &Document) -> Document {
        let coll = cmd.get_str("find").unwrap_or_default().to_string();
        let filter = cmd.get_document("filter").cloned().unwrap_or_default();
        let mut out = Vec::new();
        let all = self.file.docs(&coll);
        let owner = filter.get("uuid").or_else(|| filter.get("ns"));
        let candidates: Vec<&Document> = match owner {
            Some(o) if coll == "chunks" => self
                .chunks_of
                .get(&owner_key(o))
                .map(|ix| ix.iter().map(|&i| &all[i]).collect())
                .unwrap_or_default(),
            _ => all.iter().collect(),
        };
        for d in candidates {
            match matches(d, &filter) {
                Ok(true) => out.push(d.clone()),
                Ok(false) => {}
                Err(what) => return self.unknown(format!("find config.{coll}: {what}")),
            }
        }
        if let Ok(sort) = cmd.get_document("sort") {
            let keys: Vec<(String, i32)> = sort
                .iter()
                .map(|(k, v)| (k.clone(), v.as_i32().unwrap_or(1)))
                .collect();
            for (k, _) in &keys {
                if k != "time" {
                    return self.unknown(format!("find config.{coll}: sort on {k}"));
                }
            }
            let dir = keys.first().map_or(1, |(_, d)| *d);
            out.sort_by_key(|d| d.get_datetime("time").ok().copied());
            if dir < 0 {
                out.reverse();
            }
        }
        let limit = match cmd.get("limit") {
            Some(Bson::Int64(n)) => *n as usize,
            Some(Bson::Int32(n)) => *n as usize,
            _ => usize::MAX,
        };
        self.cursor(format!("config.{coll}"), out, limit)
    }

    fn aggregate(&self, cmd: &Document, db: &str) -> Document {
        let pipeline = cmd.get_array("pipeline").cloned().unwrap_or_default();
        let Some(first) = pipeline.first().and_then(Bson::as_document) else {
            return self.unknown("aggregate without a pipeline".into());
        };
        let stage = first.keys().next().cloned().unwrap_or_default();
        if let Some(e) = self.file.refusal("aggregate", &stage) {
            return e;
        }
        let target = match cmd.get("aggregate") {
            Some(Bson::String(c)) => format!("{db}.{c}"),
            _ => db.to_string(),
        };
        let replies = &self.file.replies;
        match stage.as_str() {
            "$shardedDataDistribution" if db == "admin" => {
                let rows = array_of_docs(replies.get_array("shardedDataDistribution"));
                match rows {
                    Some(rows) => self.cursor("admin.$cmd.aggregate".into(), rows, usize::MAX),
                    None => self.unknown("$shardedDataDistribution (no reply in the file)".into()),
                }
            }
            "$collStats" => {
                let rows = replies
                    .get_document("collStats")
                    .ok()
                    .map(|c| array_of_docs(c.get_array(&target)));
                match rows.flatten() {
                    Some(rows) => self.cursor(target, rows, usize::MAX),
                    None => self.unknown(format!("$collStats of {target}")),
                }
            }
            "$currentOp" if db == "admin" => {
                let known = doc! {"$match": {"$or": [
                    {"command.moveChunk": {"$exists": true}},
                    {"command._shardsvrMoveRange": {"$exists": true}},
                ]}};
                // Reshardings in flight (5.0+): the recipients' and coordinator's operations.
                let resharding = doc! {"$match": {
                    "type": "op",
                    "originatingCommand.reshardCollection": {"$exists": true},
                }};
                let key = match pipeline.get(1).and_then(Bson::as_document) {
                    Some(m) if pipeline.len() == 2 && m == &known => "currentOp",
                    Some(m) if pipeline.len() == 2 && m == &resharding => "currentOpResharding",
                    _ => return self.unknown(format!("$currentOp pipeline {pipeline:?}")),
                };
                let ops = array_of_docs(replies.get_array(key)).unwrap_or_default();
                self.cursor("admin.$cmd.aggregate".into(), ops, usize::MAX)
            }
            "$listClusterCatalog" if db == "admin" => self.cluster_catalog(&pipeline),
            "$match" if target == "config.changelog" => self.changelog_counts(&pipeline),
            _ => self.unknown(format!("aggregate on {target}: {pipeline:?}")),
        }
    }

    /// `$listClusterCatalog: {shards: true}`, then `$match: {sharded: false}` and a `$project`
    /// of `ns`, `db`, `type`, `shards`: exactly what `watch` sends (8.0.10+).
    fn cluster_catalog(&self, pipeline: &[Bson]) -> Document {
        let sent = bson::bson!([
            {"$listClusterCatalog": {"shards": true}},
            {"$match": {"sharded": false}},
            {"$project": {"_id": 0, "ns": 1, "db": 1, "type": 1, "shards": 1}},
        ]);
        if Bson::Array(pipeline.to_vec()) != sent {
            return self.unknown(format!("$listClusterCatalog pipeline {pipeline:?}"));
        }
        let Some(all) = array_of_docs(self.file.replies.get_array("listClusterCatalog")) else {
            return self.unknown("$listClusterCatalog (no reply in the file)".into());
        };
        let rows = all
            .into_iter()
            .filter(|d| d.get_bool("sharded") == Ok(false))
            .map(|d| {
                let mut out = Document::new();
                for k in ["ns", "db", "type", "shards"] {
                    if let Some(v) = d.get(k) {
                        out.insert(k, v.clone());
                    }
                }
                out
            })
            .collect();
        self.cursor("admin.$cmd.aggregate".into(), rows, usize::MAX)
    }

    /// `{$match: {what: {$in: [...]}}}, {$group: {_id: "$what", n: {$sum: 1}}}`.
    fn changelog_counts(&self, pipeline: &[Bson]) -> Document {
        let whats: Option<Vec<String>> = pipeline
            .first()
            .and_then(Bson::as_document)
            .and_then(|m| m.get_document("$match").ok())
            .and_then(|m| m.get_document("what").ok())
            .and_then(|w| w.get_array("$in").ok())
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            });
        let group = doc! {"$group": {"_id": "$what", "n": {"$sum": 1}}};
        let (Some(whats), true) = (
            whats,
            pipeline.get(1).and_then(Bson::as_document) == Some(&group),
        ) else {
            return self.unknown(format!("aggregate on config.changelog: {pipeline:?}"));
        };
        let mut counts: Vec<(String, i32)> = Vec::new();
        for d in self.file.docs("changelog") {
            let Ok(w) = d.get_str("what") else { continue };
            if !whats.iter().any(|x| x == w) {
                continue;
            }
            match counts.iter_mut().find(|(k, _)| k == w) {
                Some((_, n)) => *n += 1,
                None => counts.push((w.to_string(), 1)),
            }
        }
        let rows = counts
            .into_iter()
            .map(|(w, n)| doc! {"_id": w, "n": n})
            .collect();
        self.cursor("config.changelog".into(), rows, usize::MAX)
    }
}

fn array_of_docs(
    a: Result<&bson::Array, bson::document::ValueAccessError>,
) -> Option<Vec<Document>> {
    a.ok()
        .map(|a| a.iter().filter_map(|d| d.as_document().cloned()).collect())
}

/// Whether `d` matches `filter`, for the filters `watch` sends: equality on a field
/// (`ns`, `uuid`, `what`, `jumbo`), `lastmod: {$gte: Timestamp}`, `time: {$gt: Date}`.
fn matches(d: &Document, filter: &Document) -> Result<bool, String> {
    for (k, want) in filter {
        let have = d.get(k);
        let ok = match want {
            Bson::Document(op) if op.keys().any(|o| o.starts_with('$')) => {
                if op.len() != 1 {
                    return Err(format!("operator {k}: {op}"));
                }
                match (k.as_str(), op.iter().next()) {
                    ("lastmod", Some((o, Bson::Timestamp(t)))) if o == "$gte" => {
                        matches!(have, Some(Bson::Timestamp(h)) if (h.time, h.increment) >= (t.time, t.increment))
                    }
                    ("time", Some((o, Bson::DateTime(t)))) if o == "$gt" => {
                        matches!(have, Some(Bson::DateTime(h)) if h > t)
                    }
                    _ => return Err(format!("operator {k}: {op}")),
                }
            }
            Bson::String(_) | Bson::Binary(_) | Bson::Boolean(_)
                if ["ns", "uuid", "what", "jumbo"].contains(&k.as_str()) =>
            {
                have == Some(want)
            }
            _ => return Err(format!("filter {k}: {want}")),
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}
