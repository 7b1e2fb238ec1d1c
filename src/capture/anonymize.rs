//! `capture --anonymize`: a capture rewritten so that it can be shared — no database, collection,
//! shard, replica-set, host, zone or user name and no shard-key value survives, while every
//! count, size, time, version and the order of the key space do (docs/capture.md#anonymize).
//!
//! Names become stable pseudonyms ([`names`]); shard-key values in chunk bounds, zone bounds, the
//! changelog's bounds and migrations in flight become order-preserving stand-ins of the same BSON
//! type ([`stand_ins`]); what carries users' data or their software (`$currentOp`'s
//! `clientMetadata` and `appName`, sampled documents) is dropped. The commands are rewritten with
//! the same pseudonyms, so `open` runs the poller of `watch` over the anonymized capture as it
//! ran over the real one.
//!
//! Owns: where names and key values are in a capture's documents. May not touch: the network, the
//! file's bytes (`file`), what a poll makes of the documents (`live`).

use std::collections::HashMap;

use bson::{Bson, Document};

use super::{Capture, CapturedRead, Outcome};

pub mod names;
pub mod stand_ins;

use names::{Names, own_db};
use stand_ins::StandIns;

/// Fields whose string is a namespace (`db.coll`) or, without a dot, a database.
const NS_FIELDS: &[&str] = &[
    "ns",
    "namespace",
    "nss",
    "sourceNss",
    "tempNs",
    "balancerCollectionStatus",
    "moveChunk",
    "_shardsvrMoveRange",
    "reshardCollection",
    "shardCollection",
];
/// Fields whose string is a database.
const DB_FIELDS: &[&str] = &["db", "dbName", "database"];
/// Fields whose string (or array of strings) is a shard.
const SHARD_FIELDS: &[&str] = &[
    "shard",
    "shardName",
    "shardId",
    "fromShard",
    "toShard",
    "donorShard",
    "recipientShard",
    "donorShardId",
    "recipientShardId",
    "shardDrainingStatus",
    "from",
    "to",
    "shards",
];
/// Fields whose string is a host, `host:port` or a connection string (`rs/h:p,…`).
const HOST_FIELDS: &[&str] = &[
    "host",
    "hosts",
    "server",
    "clientAddr",
    "client",
    "me",
    "passives",
    "arbiters",
    "connectionString",
    "configsvrConnectionString",
    "advisoryHostFQDNs",
];
/// Fields whose string is a replica set.
const SET_FIELDS: &[&str] = &["setName", "replicaSet", "rsName"];
/// Fields whose string (or array of strings) is a zone.
const ZONE_FIELDS: &[&str] = &["tag", "tags", "zone", "zoneName"];
/// Fields whose string is a user.
const USER_FIELDS: &[&str] = &["user"];
/// Fields of a server's words (`shardtop`: the words `serve` puts in its changelog entries'
/// `details`).
const TEXT_FIELDS: &[&str] = &[
    "errmsg", "errMsg", "msg", "message", "reason", "desc", "note", "shardtop",
];
/// Fields whose document is a shard-key value (or an array of them).
const BOUND_FIELDS: &[&str] = &[
    "min",
    "max",
    "lowerBound",
    "upperBound",
    "splitKeys",
    "splitPoints",
    "middle",
    "splitKey",
];
/// Fields dropped wherever they are: the client's software and application names
/// (`$currentOp`'s, mongo repo `src/mongo/db/curop.cpp`).
const DROPPED: &[&str] = &["clientMetadata", "appName"];
/// Pipeline stages whose documents are users' data (sampled documents and queries): their
/// documents are dropped.
const DATA_STAGES: &[&str] = &["$sample", "$listSampledQueries"];

/// The words that replace a server's free text that may quote shard-key values.
pub const REMOVED: &str = "(removed by --anonymize: it may quote shard-key values)";

/// `capture` anonymized (see the module doc); `capture` itself is not changed.
pub fn anonymize(capture: &Capture) -> Capture {
    let mut a = Anonymizer::default();
    for r in &capture.reads {
        a.learn(r);
    }
    // The names are learned from the fields that hold them, in the order of the file.
    for r in &capture.reads {
        a.learn_names(r);
    }
    // Every key value seen first, then their stand-ins by rank.
    for r in &capture.reads {
        a.read(r);
    }
    a.keys.finish();
    a.collecting = false;
    let reads = capture.reads.iter().map(|r| a.read(r)).collect();
    let target = match capture.target.split_once("://") {
        Some((scheme, hosts)) => format!("{scheme}://{}", a.names.connection(hosts)),
        None => a.names.connection(&capture.target),
    };
    Capture {
        format: capture.format,
        captured_at_ms: capture.captured_at_ms,
        target,
        server_version: capture.server_version.clone(),
        anonymized: true,
        reads,
    }
}

#[derive(Debug)]
struct Anonymizer {
    names: Names,
    keys: StandIns,
    /// A collection's UUID → its namespace (5.0+ chunks name their collection by it).
    uuids: HashMap<Vec<u8>, String>,
    /// A log entry's `_id` → its stand-in.
    entries: HashMap<String, String>,
    /// The first walk notes the key values; the second replaces them.
    collecting: bool,
}

impl Default for Anonymizer {
    fn default() -> Self {
        Self {
            names: Names::default(),
            keys: StandIns::default(),
            uuids: HashMap::new(),
            entries: HashMap::new(),
            collecting: true,
        }
    }
}

/// The `config` collection a read finds documents of (`find` on `config`), if it is one.
fn config_collection(r: &CapturedRead) -> Option<&str> {
    if r.db != "config" {
        return None;
    }
    let (verb, v) = r.command.iter().next()?;
    match (verb.as_str(), v) {
        ("find", Bson::String(c)) => Some(c),
        _ => None,
    }
}

/// The documents a read answered (a cursor's, or a command's reply).
fn answered(r: &CapturedRead) -> Vec<&Document> {
    match &r.outcome {
        Outcome::Documents(d) => d.iter().collect(),
        Outcome::Reply(d) => vec![d],
        Outcome::Error { .. } => Vec::new(),
    }
}

/// Whether `command`'s pipeline has a stage of users' data.
fn reads_data(command: &Document) -> bool {
    let Ok(pipeline) = command.get_array("pipeline") else {
        return false;
    };
    pipeline.iter().any(|s| match s {
        Bson::Document(d) => d.keys().any(|k| DATA_STAGES.contains(&k.as_str())),
        _ => false,
    })
}

/// The bytes of `d`'s BinData field `f` (a UUID, subtype 4).
fn uuid_of<'a>(d: &'a Document, f: &str) -> Option<&'a [u8]> {
    match d.get(f) {
        Some(Bson::Binary(b)) => Some(&b.bytes),
        _ => None,
    }
}

/// A document's namespace, when it names one (`ns`, or a command's namespace argument).
fn ns_of(d: &Document) -> Option<&str> {
    NS_FIELDS
        .iter()
        .find_map(|f| d.get_str(f).ok())
        .filter(|ns| ns.contains('.'))
}

impl Anonymizer {
    /// What `config.collections` says of each collection: its UUID and its hashed field.
    fn learn(&mut self, r: &CapturedRead) {
        if config_collection(r) != Some("collections") {
            return;
        }
        for d in answered(r) {
            let Ok(ns) = d.get_str("_id") else { continue };
            if let Some(uuid) = uuid_of(d, "uuid") {
                self.uuids.insert(uuid.to_vec(), ns.to_string());
            }
            if let Ok(key) = d.get_document("key") {
                for (field, v) in key {
                    if v.as_str() == Some("hashed") {
                        self.keys.note_hashed(ns, field);
                    }
                }
            }
        }
    }

    /// The names a read's documents hold in the fields that hold them.
    fn learn_names(&mut self, r: &CapturedRead) {
        let coll = config_collection(r);
        for d in answered(r) {
            match coll {
                Some("shards") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.shard(id);
                    }
                }
                Some("databases") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.db(id);
                    }
                    if let Ok(p) = d.get_str("primary") {
                        self.names.shard(p);
                    }
                }
                Some("collections") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.ns(id);
                    }
                }
                Some("mongos") => {
                    if let Ok(id) = d.get_str("_id") {
                        self.names.host(id);
                    }
                }
                _ => {}
            }
            self.learn_document(d);
        }
        if !own_db(&r.db) {
            self.names.db(&r.db);
        }
    }

    fn learn_document(&mut self, d: &Document) {
        // `addShard` and `removeShard` log entries name the shard in `details.name`.
        if d.get_str("what")
            .is_ok_and(|w| w.starts_with("addShard") || w.starts_with("removeShard"))
            && let Ok(name) = d.get_document("details").and_then(|x| x.get_str("name"))
        {
            self.names.shard(name);
        }
        for (k, v) in d {
            let k = k.as_str();
            match v {
                Bson::Document(d) => self.learn_document(d),
                Bson::Array(items) => {
                    for item in items {
                        match item {
                            Bson::Document(d) => self.learn_document(d),
                            Bson::String(s) => self.learn_string(k, s),
                            _ => {}
                        }
                    }
                }
                Bson::String(s) => self.learn_string(k, s),
                _ => {}
            }
        }
    }

    fn learn_string(&mut self, k: &str, s: &str) {
        if NS_FIELDS.contains(&k) {
            self.names.ns(s);
        } else if DB_FIELDS.contains(&k) {
            self.names.db(s);
        } else if HOST_FIELDS.contains(&k) || k == "primary" && s.contains(':') {
            self.names.connection(s);
        } else if SHARD_FIELDS.contains(&k) || k == "primary" {
            self.names.shard(s);
        } else if SET_FIELDS.contains(&k) {
            self.names.set(s);
        } else if ZONE_FIELDS.contains(&k) {
            self.names.zone(s);
        } else if USER_FIELDS.contains(&k) {
            self.names.user(s);
        }
    }

    /// One read rewritten (collecting: the key values noted, the result not used).
    fn read(&mut self, r: &CapturedRead) -> CapturedRead {
        let db = self.names.db(&r.db);
        let command = self.command(&r.db, &r.command);
        let coll = config_collection(r);
        let outcome = match &r.outcome {
            Outcome::Documents(_) if reads_data(&r.command) => Outcome::Documents(Vec::new()),
            Outcome::Documents(docs) => Outcome::Documents(
                docs.iter()
                    .enumerate()
                    .map(|(i, d)| self.answer(coll, i, d))
                    .collect(),
            ),
            Outcome::Reply(d) => Outcome::Reply(self.document(d, None)),
            Outcome::Error {
                code,
                code_name,
                message,
            } => Outcome::Error {
                code: *code,
                code_name: code_name.clone(),
                message: self.names.text(message),
            },
        };
        CapturedRead {
            db,
            command,
            outcome,
        }
    }

    /// A command: a collection it names on a user's database gets its pseudonym, the rest is a
    /// document like any other.
    fn command(&mut self, db: &str, command: &Document) -> Document {
        let mut out = self.document(command, None);
        if own_db(db) {
            return out;
        }
        if let Some((verb, Bson::String(coll))) = command.iter().next() {
            let coll = self.names.coll(db, coll);
            out.insert(verb.clone(), coll);
        }
        if let Ok(coll) = command.get_str("collection") {
            let coll = self.names.coll(db, coll);
            out.insert("collection", coll);
        }
        out
    }

    /// Document `i` of a read of `config.<coll>`.
    fn answer(&mut self, coll: Option<&str>, i: usize, d: &Document) -> Document {
        let mut out = self.document(d, None);
        // A 4.4 chunk's `_id` is its namespace and minimum in words (`ns-field_value`).
        if coll == Some("chunks") && d.get_str("_id").is_ok() {
            let ns = d
                .get_str("ns")
                .map_or_else(|_| "chunk".into(), |ns| self.names.ns(ns));
            out.insert("_id", format!("{ns}-{i}"));
        }
        // A log entry's `_id` begins with the host that wrote it (`host-time-objectid`).
        if matches!(coll, Some("changelog" | "actionlog"))
            && let Ok(id) = d.get_str("_id")
        {
            let n = self.entries.len() + 1;
            let id = self
                .entries
                .entry(id.to_string())
                .or_insert_with(|| format!("entry-{n}"));
            out.insert("_id", id.clone());
        }
        out
    }

    /// `d` rewritten; `ns`: the namespace of the document it is in.
    fn document(&mut self, d: &Document, ns: Option<&str>) -> Document {
        let own = ns_of(d).map(str::to_string).or_else(|| {
            ["uuid", "collectionUUID"]
                .iter()
                .find_map(|f| uuid_of(d, f))
                .and_then(|u| self.uuids.get(u).cloned())
        });
        let ns = own.as_deref().or(ns);
        let mut out = Document::new();
        for (k, v) in d {
            if DROPPED.contains(&k.as_str()) {
                continue;
            }
            let v = match v {
                Bson::Document(b) if BOUND_FIELDS.contains(&k.as_str()) => {
                    Bson::Document(self.bound(b, ns))
                }
                Bson::Array(items) if BOUND_FIELDS.contains(&k.as_str()) => Bson::Array(
                    items
                        .iter()
                        .map(|b| match b {
                            Bson::Document(b) => Bson::Document(self.bound(b, ns)),
                            other => self.value(k, other, ns),
                        })
                        .collect(),
                ),
                other => self.value(k, other, ns),
            };
            out.insert(k.clone(), v);
        }
        // A privilege's resource: `{db, collection}`.
        if let (Ok(db), Ok(coll)) = (d.get_str("db"), d.get_str("collection")) {
            let coll = self.names.coll(db, coll);
            out.insert("collection", coll);
        }
        out
    }

    /// A shard-key value (`{field: value, …}`) of `ns`.
    fn bound(&mut self, b: &Document, ns: Option<&str>) -> Document {
        let ns = ns.unwrap_or("");
        let mut out = Document::new();
        for (field, v) in b {
            let v = if self.collecting {
                self.keys.note(ns, field, v);
                v.clone()
            } else {
                self.keys.replace(ns, field, v)
            };
            out.insert(field.clone(), v);
        }
        out
    }

    /// The value of field `k`.
    fn value(&mut self, k: &str, v: &Bson, ns: Option<&str>) -> Bson {
        match v {
            Bson::Document(d) => Bson::Document(self.document(d, ns)),
            Bson::Array(items) => Bson::Array(items.iter().map(|i| self.value(k, i, ns)).collect()),
            Bson::String(s) => Bson::String(self.string(k, s)),
            other => other.clone(),
        }
    }

    fn string(&mut self, k: &str, s: &str) -> String {
        if USER_FIELDS.contains(&k) {
            self.names.user(s)
        } else if ZONE_FIELDS.contains(&k) {
            self.names.zone(s)
        } else if SET_FIELDS.contains(&k) {
            self.names.set(s)
        } else if HOST_FIELDS.contains(&k) {
            self.names.connection(s)
        } else if TEXT_FIELDS.contains(&k) && s.contains('{') {
            REMOVED.to_string()
        } else if TEXT_FIELDS.contains(&k) {
            self.names.text(s)
        } else {
            self.names.words(s)
        }
    }
}

#[cfg(test)]
#[path = "anonymize/tests.rs"]
mod tests;
