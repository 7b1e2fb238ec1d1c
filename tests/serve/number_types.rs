#![allow(clippy::unwrap_used)]
//! The BSON types (int32 / int64 / double, and Timestamp, Date, UUID …) of what mongosh's
//! `sh.status()` and `db.coll.getShardDistribution()` read, and of `balancerStatus`,
//! `balancerCollectionStatus`, `$shardedDataDistribution` and `$collStats`, against what real
//! servers send, read from the real samples in `tests/fixtures/real-config/`.
//!
//! Each expected type is parsed out of the fixture text where the fixture shows the field (the
//! printed syntax says the type: mongosh `Long('5')` / legacy `NumberLong(5)` is int64, a bare
//! integer int32, a decimal a double; `Timestamp(…)`, `ISODate(…)`, `UUID(…)`, `ObjectId(…)`),
//! so a test is tied to the line it cites. Caveat kept in mind: mongosh prints a double that
//! holds a whole number (e.g. `ok: 1`) as a bare integer too, so "bare integer = int32" is the
//! fixtures' convention, not something the printed text can prove.
//!
//! Fields no fixture shows are checked against the server source and say so where they are
//! listed (`$collStats` `storageSize`, `nindexes`, `totalIndexSize` …; `maxChunkSizeBytes`).
//!
//! Every test builds the same cluster through commands for 6.0, 7.0 and 8.0 (the release lines
//! the fixtures cover), collects every mismatch, and fails listing all of them.

mod config_documents;
mod status_commands;

use crate::common;

use bson::spec::BinarySubtype;
use bson::{Bson, Document, doc};
use futures::TryStreamExt;
use mongodb::Client;
use shardtop::serve::Server;

const VERSIONS: [&str; 3] = ["6.0", "7.0", "8.0"];

// ---------------------------------------------------------------------------------------------
// The fixtures.

struct Fixture {
    name: &'static str,
    text: &'static str,
}

macro_rules! fixture {
    ($file:literal) => {
        Fixture {
            name: $file,
            text: include_str!(concat!("../fixtures/real-config/", $file)),
        }
    };
}

/// mongosh 1.x `sh.status()` of a real 6.0.3 cluster.
const SH_STATUS_60: Fixture = fixture!("sh.status-6.0.3.txt");
/// mongosh 2.x `sh.status()` of a real 7.0.24 cluster (with `shardedDataDistribution`).
const SH_STATUS_70: Fixture = fixture!("sh.status-7.0.24.txt");
/// Real 8.0.32: config.shards, config.mongos, config.settings, config.collections.
const SHARDS_80: Fixture = fixture!("shards-mongos-8.0.ejson.txt");
/// Real 8.0.32: config.chunks (range, hashed, after moveRange).
const CHUNKS_80: Fixture = fixture!("chunks-8.0.ejson.txt");
/// Real 8.0.32: balancerCollectionStatus, `$collStats` storageStats through mongos.
const COMMANDS_80: Fixture = fixture!("commands-8.0.ejson.txt");
/// MongoDB 6.0 / 8.0 config-database reference pages (docs examples).
const CONFIG_DOCS: Fixture = fixture!("config-collections-docs-6.0-8.0.ejson.txt");
/// MongoDB 5.0 / 5.2 / 7.0 docs: balancerCollectionStatus, balancerStatus.
const BALANCER_DOCS: Fixture = fixture!("balancer-commands-5.0-7.0.docs.ejson.txt");
/// MongoDB 7.2 docs: `sh.getShardedDataDistribution()`.
const REMOVE_SHARD_DOCS: Fixture = fixture!("removeShard-draining-and-settings.docs.ejson.txt");
/// MongoDB 7.0 docs: full 7.0-format chunk documents.
const METADATA_70: Fixture = fixture!("checkMetadataConsistency-chunks-7.0.docs.ejson.txt");

/// A value's type, as BSON has it or as a fixture prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int32,
    Int64,
    Double,
    Bool,
    String,
    Timestamp,
    Date,
    ObjectId,
    Uuid,
    Document,
    Array,
    MinKey,
    MaxKey,
    Other,
}

fn kind_of(v: &Bson) -> Kind {
    match v {
        Bson::Int32(_) => Kind::Int32,
        Bson::Int64(_) => Kind::Int64,
        Bson::Double(_) => Kind::Double,
        Bson::Boolean(_) => Kind::Bool,
        Bson::String(_) => Kind::String,
        Bson::Timestamp(_) => Kind::Timestamp,
        Bson::DateTime(_) => Kind::Date,
        Bson::ObjectId(_) => Kind::ObjectId,
        Bson::Binary(b) if b.subtype == BinarySubtype::Uuid => Kind::Uuid,
        Bson::Document(_) => Kind::Document,
        Bson::Array(_) => Kind::Array,
        Bson::MinKey => Kind::MinKey,
        Bson::MaxKey => Kind::MaxKey,
        _ => Kind::Other,
    }
}

/// The type a printed value has, by its syntax.
fn printed_kind(value: &str) -> Kind {
    let v = value.trim();
    let starts = |p: &[&str]| p.iter().any(|p| v.starts_with(p));
    if starts(&["Long(", "NumberLong("]) || v.contains("$numberLong") {
        Kind::Int64
    } else if starts(&["NumberInt("]) || v.contains("$numberInt") {
        Kind::Int32
    } else if v.contains("$numberDouble") {
        Kind::Double
    } else if starts(&["Timestamp("]) || v.contains("$timestamp") {
        Kind::Timestamp
    } else if starts(&["ISODate(", "new Date("]) || v.contains("$date") {
        Kind::Date
    } else if starts(&["ObjectId("]) || v.contains("$oid") {
        Kind::ObjectId
    } else if starts(&["UUID(", "new UUID("]) || v.contains("$uuid") {
        Kind::Uuid
    } else if starts(&["MinKey"]) || v.contains("$minKey") {
        Kind::MinKey
    } else if starts(&["MaxKey"]) || v.contains("$maxKey") {
        Kind::MaxKey
    } else if v == "true" || v == "false" {
        Kind::Bool
    } else if starts(&["'", "\""]) {
        Kind::String
    } else if starts(&["{"]) {
        Kind::Document
    } else if starts(&["["]) {
        Kind::Array
    } else if v.parse::<i32>().is_ok() {
        Kind::Int32
    } else if v.parse::<f64>().is_ok() {
        Kind::Double
    } else {
        panic!("cannot tell the type of printed value {v:?}")
    }
}

impl Fixture {
    /// The text without its `#` header (the leading `#` lines; `# ----` section separators
    /// further down are kept as anchors).
    fn body(&self) -> String {
        self.text
            .lines()
            .skip_while(|l| is_header(l))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The text from the one occurrence of `start` up to the first `end` after it.
    fn section(&self, start: &str, end: &str) -> String {
        let body = self.body();
        let found: Vec<usize> = body.match_indices(start).map(|(i, _)| i).collect();
        assert_eq!(
            found.len(),
            1,
            "{}: anchor {start:?} must occur once",
            self.name
        );
        let from = found[0];
        let to = body[from + start.len()..]
            .find(end)
            .map_or(body.len(), |i| from + start.len() + i);
        body[from..to].to_string()
    }

    /// The type of the first `field` printed after the one occurrence of `anchor`.
    fn kind(&self, anchor: &str, field: &str) -> Kind {
        let body = self.body();
        let found: Vec<usize> = body.match_indices(anchor).map(|(i, _)| i).collect();
        assert_eq!(
            found.len(),
            1,
            "{}: anchor {anchor:?} must occur once",
            self.name
        );
        match value_of(&body[found[0]..], field) {
            Some(v) => printed_kind(&v),
            None => panic!("{}: no {field:?} after {anchor:?}", self.name),
        }
    }

    /// Where a test cites this fixture: file and the line of `anchor` (past the header).
    fn at(&self, anchor: &str) -> String {
        let first_line = anchor.lines().find(|l| !l.is_empty()).unwrap_or(anchor);
        let header = self.text.lines().take_while(|l| is_header(l)).count();
        let line = self
            .text
            .lines()
            .enumerate()
            .skip(header)
            .find(|(_, l)| l.contains(first_line))
            .map_or(0, |(i, _)| i + 1);
        format!("{}:{line}", self.name)
    }
}

/// A line of a fixture's leading `#` header (its `# ---` section separators are not).
fn is_header(line: &str) -> bool {
    line.starts_with('#') && !line.starts_with("# ---")
}

/// The text of the first value printed for key `field` in `text` (mongosh `field: v`, legacy
/// `"field" : v`, quoted mongosh keys `'field': v`).
fn value_of(text: &str, field: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(field) {
        let at = from + i;
        from = at + field.len();
        let before = if at == 0 { b'\n' } else { bytes[at - 1] };
        let quoted = before == b'"' || before == b'\'';
        if !(quoted || matches!(before, b' ' | b'\t' | b'\n' | b'{' | b',')) {
            continue;
        }
        let mut j = at + field.len();
        if quoted {
            if j >= bytes.len() || bytes[j] != before {
                continue;
            }
            j += 1;
        }
        while j < bytes.len() && bytes[j] == b' ' {
            j += 1;
        }
        if j >= bytes.len() || bytes[j] != b':' {
            continue;
        }
        j += 1;
        while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
            j += 1;
        }
        // The value: up to the `,`, `}`, `]` or line end that closes it.
        let (mut depth, mut quote, start) = (0i32, None::<u8>, j);
        while j < bytes.len() {
            let c = bytes[j];
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    b'\'' | b'"' => quote = Some(c),
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' if depth > 0 => depth -= 1,
                    b',' | b'}' | b']' | b'\n' if depth == 0 => break,
                    _ => {}
                },
            }
            j += 1;
        }
        return Some(text[start..j].trim().to_string());
    }
    None
}

/// Whether `field` is printed anywhere in `section`.
fn printed(section: &str, field: &str) -> bool {
    value_of(section, field).is_some()
}

// ---------------------------------------------------------------------------------------------
// The cluster, and comparing what it sends.

/// An empty three-shard cluster of `version` (clock paused), then through commands:
/// `shop.orders` on `{customerId: 1}` with 200 documents (int32 keys 0‥199), split at 100 and
/// 150, `[150, MaxKey)` moved to another shard; `shop.users` on `{userId: "hashed"}` (pre-split)
/// with 30 documents; `shop.empty` on `{e: 1}` without documents.
async fn cluster(version: &str) -> (Server, Client) {
    let (server, client, _) = common::serve_empty(version, true).await;
    let run = |cmd: Document| {
        let client = client.clone();
        async move {
            common::admin(&client, cmd.clone())
                .await
                .unwrap_or_else(|e| panic!("{cmd}: {e}"))
        }
    };
    run(doc! {"shardCollection": "shop.orders", "key": {"customerId": 1}}).await;
    let orders = client.database("shop").collection::<Document>("orders");
    let docs: Vec<Document> = (0..200i32)
        .map(|i| doc! {"customerId": i, "item": "x".repeat(40)})
        .collect();
    orders.insert_many(docs).await.unwrap();
    for k in [100i32, 150] {
        run(doc! {"split": "shop.orders", "middle": {"customerId": k}}).await;
    }
    let owner = chunk_docs(&client, "shop.orders").await[0]
        .get_str("shard")
        .unwrap()
        .to_string();
    let to = if owner == "shard0001" {
        "shard0002"
    } else {
        "shard0001"
    };
    run(doc! {"moveChunk": "shop.orders", "find": {"customerId": 150}, "to": to}).await;

    run(doc! {"shardCollection": "shop.users", "key": {"userId": "hashed"}}).await;
    let users = client.database("shop").collection::<Document>("users");
    let docs: Vec<Document> = (0..30i32)
        .map(|i| doc! {"userId": format!("u{i}"), "name": "n"})
        .collect();
    users.insert_many(docs).await.unwrap();

    run(doc! {"shardCollection": "shop.empty", "key": {"e": 1}}).await;
    (server, client)
}

async fn config_docs(client: &Client, coll: &str, filter: Document) -> Vec<Document> {
    common::find_all(client, "config", coll, filter).await
}

/// `ns`'s chunks, by `uuid` (every version here is ≥ 5.0), in `min` order.
async fn chunk_docs(client: &Client, ns: &str) -> Vec<Document> {
    let uuid = common::config_collection(client, ns)
        .await
        .unwrap()
        .get("uuid")
        .unwrap()
        .clone();
    client
        .database("config")
        .collection::<Document>("chunks")
        .find(doc! {"uuid": uuid})
        .sort(doc! {"min": 1})
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

async fn aggregate(
    client: &Client,
    db: &str,
    coll: &str,
    pipeline: Vec<Document>,
) -> Vec<Document> {
    client
        .database(db)
        .collection::<Document>(coll)
        .aggregate(pipeline)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

/// The value at a dotted path (array elements by index).
fn at<'a>(d: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut parts = path.split('.');
    let mut cur = d.get(parts.next()?)?;
    for p in parts {
        cur = match cur {
            Bson::Document(d) => d.get(p)?,
            Bson::Array(a) => a.get(p.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// The mismatches between what shardtop sends and what the fixtures show.
#[derive(Default)]
struct Mismatches(Vec<String>);

impl Mismatches {
    /// `path` of `d` must be present with type `want` (as `cite` shows).
    fn kind(&mut self, what: &str, d: &Document, path: &str, want: Kind, cite: &str) {
        match at(d, path) {
            Some(v) if kind_of(v) == want => {}
            Some(v) => self.0.push(format!(
                "{what}: {path} is {:?} ({v}), {cite} shows {want:?}",
                kind_of(v)
            )),
            None => self.0.push(format!(
                "{what}: {path} is missing, {cite} shows it as {want:?}"
            )),
        }
    }

    /// `path` of `d` may be absent; when present it has type `want`.
    fn kind_if_present(&mut self, what: &str, d: &Document, path: &str, want: Kind, cite: &str) {
        if at(d, path).is_some() {
            self.kind(what, d, path, want, cite);
        }
    }

    /// `path` of `d` must be absent (as `cite` shows).
    fn absent(&mut self, what: &str, d: &Document, path: &str, cite: &str) {
        if let Some(v) = at(d, path) {
            self.0.push(format!(
                "{what}: {path} is sent ({:?} {v}), {cite} has no such field",
                kind_of(v)
            ));
        }
    }

    fn push(&mut self, s: String) {
        self.0.push(s);
    }

    fn assert_none(self) {
        assert!(
            self.0.is_empty(),
            "{} field(s) differ from the real fixtures:\n  {}",
            self.0.len(),
            self.0.join("\n  ")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The fixtures' own readings: the parser sees what the files say.

#[test]
fn the_fixtures_read_as_their_printed_types() {
    assert_eq!(printed_kind("Long('-1')"), Kind::Int64);
    assert_eq!(printed_kind("NumberLong(86)"), Kind::Int64);
    assert_eq!(printed_kind("1"), Kind::Int32);
    assert_eq!(printed_kind("1.5"), Kind::Double);
    assert_eq!(printed_kind("Timestamp({ t: 1, i: 0 })"), Kind::Timestamp);
    assert_eq!(
        printed_kind("new UUID(\"3125bfef-0d8d-42aa-b3ee-20c8456a2b2e\")"),
        Kind::Uuid
    );
    assert_eq!(
        SH_STATUS_60.kind("shardingVersion", "currentVersion"),
        Kind::Int32
    );
    assert_eq!(
        SHARDS_80.kind("shards.find()", "replSetConfigVersion"),
        Kind::Int64
    );
    assert_eq!(
        CONFIG_DOCS.kind("# ---- config.databases (6.0", "lastMod"),
        Kind::Int32
    );
    assert_eq!(CONFIG_DOCS.kind("# ---- config.mongos", "up"), Kind::Int64);
    assert_eq!(
        SH_STATUS_70.kind("'ecommerce.orders': {", "nChunks"),
        Kind::Int32
    );
    assert_eq!(
        BALANCER_DOCS.kind("(C) 7.0 balancerStatus", "numBalancerRounds"),
        Kind::Int64
    );
    assert_eq!(
        COMMANDS_80.kind("balancerCollectionStatus('shop.orders')", "chunkSize"),
        Kind::Int32
    );
    assert_eq!(
        SH_STATUS_60.kind("max: { a: 'e' }, 'on shard'", "last modified"),
        Kind::Timestamp
    );
    assert!(!printed(
        &SH_STATUS_70.section("---\nshards\n[", "]\n---"),
        "replSetConfigVersion"
    ));
}
