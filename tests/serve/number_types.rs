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

// ---------------------------------------------------------------------------------------------
// config.shards: `sh.status()` prints the documents as they are (`shards.find().sort({_id: 1})`).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_shards() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        // The shards section of each version's real sample.
        let (fx, section) = match v {
            "6.0" => (
                &SH_STATUS_60,
                SH_STATUS_60.section("---\nshards\n[", "]\n---"),
            ),
            "7.0" => (
                &SH_STATUS_70,
                SH_STATUS_70.section("---\nshards\n[", "]\n---"),
            ),
            _ => (&SHARDS_80, SHARDS_80.section("shards.find()", "\n]")),
        };
        let anchor = if v == "8.0" {
            "shards.find()"
        } else {
            "---\nshards\n["
        };
        let cite = fx.at(anchor);
        let docs = config_docs(&client, "shards", doc! {}).await;
        assert!(!docs.is_empty(), "{v}: no shards");
        for d in &docs {
            let what = format!("{v} config.shards {}", d.get_str("_id").unwrap_or("?"));
            for field in ["state", "topologyTime", "replSetConfigVersion"] {
                match value_of(&section, field) {
                    Some(p) => m.kind(&what, d, field, printed_kind(&p), &cite),
                    None => m.absent(&what, d, field, &cite),
                }
            }
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.databases: `sh.status()` prints each document as `database: {…}`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_databases() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        // 6.0.3 and 7.0.24: a user database in real sh.status(); 8.0: the 8.0 reference page
        // (no `partitioned`).
        let (fx, anchor, section) = match v {
            "6.0" => (
                &SH_STATUS_60,
                "_id: 'ourBase'",
                SH_STATUS_60.section("_id: 'ourBase'", "collections:"),
            ),
            "7.0" => (
                &SH_STATUS_70,
                "_id: 'ecommerce'",
                SH_STATUS_70.section("_id: 'ecommerce'", "collections:"),
            ),
            _ => (
                &CONFIG_DOCS,
                "# ---- config.databases (8.0 page",
                CONFIG_DOCS.section("# ---- config.databases (8.0 page", "# ----"),
            ),
        };
        let cite = fx.at(anchor);
        let docs = config_docs(&client, "databases", doc! {"_id": "shop"}).await;
        assert_eq!(docs.len(), 1, "{v}: config.databases shop");
        let what = format!("{v} config.databases shop");
        for (path, field) in [
            ("version.lastMod", "lastMod"),
            ("version.timestamp", "timestamp"),
            ("version.uuid", "uuid"),
            ("partitioned", "partitioned"),
        ] {
            match value_of(&section, field) {
                Some(p) => m.kind(&what, &docs[0], path, printed_kind(&p), &cite),
                None => m.absent(&what, &docs[0], path, &cite),
            }
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.collections: `sh.status()` reads `key`, `unique`, `noBalance`; mongosh picks the chunk
// query by `timestamp`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_collections() {
    let docs_anchor = "# ---- config.collections";
    // (The document printed after the prompt, not the prompt's projection.)
    let real_anchor = "_id: 'shop.orders',";
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        // The collection-balancing settings: `maxChunkSizeBytes` (no fixture shows it; the
        // server's `type_collection.idl` declares it `safeInt64`, an int64).
        common::admin(
            &client,
            doc! {"configureCollectionBalancing": "shop.users", "chunkSize": 64},
        )
        .await
        .unwrap();
        let orders = common::config_collection(&client, "shop.orders")
            .await
            .unwrap();
        let users = common::config_collection(&client, "shop.users")
            .await
            .unwrap();
        let what = format!("{v} config.collections shop.orders");
        // 6.0 and 8.0 reference pages (identical): lastmod ISODate, timestamp Timestamp …
        let cite = CONFIG_DOCS.at(docs_anchor);
        for field in ["lastmod", "timestamp", "unique", "lastmodEpoch", "uuid"] {
            m.kind(
                &what,
                &orders,
                field,
                CONFIG_DOCS.kind(docs_anchor, field),
                &cite,
            );
        }
        // Real 8.0.32 config.collections: timestamp, uuid, key {customerId: 1}, unique.
        let cite80 = SHARDS_80.at(real_anchor);
        for field in ["timestamp", "uuid", "unique"] {
            m.kind(
                &what,
                &orders,
                field,
                SHARDS_80.kind(real_anchor, field),
                &cite80,
            );
        }
        m.kind(
            &what,
            &orders,
            "key.customerId",
            SHARDS_80.kind(real_anchor, "customerId"),
            &cite80,
        );
        // A hashed key prints as { a: 'hashed' } (real 6.0.3 sh.status()).
        let hashed = "'ourBase.col_hash': {";
        m.kind(
            &format!("{v} config.collections shop.users"),
            &users,
            "key.userId",
            SH_STATUS_60.kind(hashed, "a"),
            &SH_STATUS_60.at(hashed),
        );
        // noBalance: a bool when written (mongosh `typeof coll.noBalance !== 'boolean'` shows
        // anything else as odd); the reference page's example has none.
        m.kind_if_present(
            &what,
            &orders,
            "noBalance",
            Kind::Bool,
            "type_collection.idl (bool)",
        );
        m.kind(
            &format!("{v} config.collections shop.users"),
            &users,
            "maxChunkSizeBytes",
            Kind::Int64,
            "mongodb/mongo src/mongo/s/catalog/type_collection.idl (maxChunkSizeBytes: safeInt64; no fixture)",
        );
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.chunks: `sh.status()` prints min, max, shard, lastmod of each chunk.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_chunks() {
    let docs_anchor = "# ---- config.chunks";
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let orders = chunk_docs(&client, "shop.orders").await;
        let users = chunk_docs(&client, "shop.users").await;
        assert_eq!(orders.len(), 3, "{v}: shop.orders chunks");
        let cite = CONFIG_DOCS.at(docs_anchor);
        for (i, c) in orders.iter().chain(users.iter()).enumerate() {
            let what = format!("{v} config.chunks #{i}");
            for field in ["_id", "uuid", "shard", "lastmod"] {
                m.kind(&what, c, field, CONFIG_DOCS.kind(docs_anchor, field), &cite);
            }
            m.kind(&what, c, "history", Kind::Array, &cite);
            m.kind(
                &what,
                c,
                "history.0.validAfter",
                CONFIG_DOCS.kind(docs_anchor, "validAfter"),
                &cite,
            );
            m.kind(
                &what,
                c,
                "history.0.shard",
                CONFIG_DOCS.kind("validAfter", "shard"),
                &cite,
            );
            // onCurrentShardSince: 6.3+ (7.0 docs sample); not in the 6.0 page's example.
            if v == "6.0" {
                m.absent(&what, c, "onCurrentShardSince", &cite);
            } else {
                let a = "chunkA:";
                m.kind(
                    &what,
                    c,
                    "onCurrentShardSince",
                    METADATA_70.kind(a, "onCurrentShardSince"),
                    &METADATA_70.at(a),
                );
            }
        }
        // Range bounds keep the type they were given (int32 here): real 8.0.32 prints
        // `max: { customerId: 3784 }` after splits/moveRange (the server stores the values as
        // given, in every version).
        let a = "max: { customerId: 3784 }";
        m.kind(
            &format!("{v} config.chunks shop.orders [100, 150)"),
            &orders[1],
            "min.customerId",
            CHUNKS_80.kind(a, "customerId"),
            &CHUNKS_80.at(a),
        );
        // Hashed bounds are int64: Long("-6148914691236517204") in 6.0.3, Long('0') in 8.0.32.
        let (fx, a) = if v == "6.0" {
            (&SH_STATUS_60, "min: { a: Long(\"-6148914691236517204\") }")
        } else {
            (&CHUNKS_80, "max: { userId: Long('0') }")
        };
        let field = if v == "6.0" { "a" } else { "userId" };
        let want = fx.kind(a, field);
        for (i, c) in users.iter().enumerate() {
            let what = format!("{v} config.chunks shop.users #{i}");
            for bound in ["min.userId", "max.userId"] {
                let b = at(c, bound).map(kind_of);
                if b != Some(Kind::MinKey) && b != Some(Kind::MaxKey) {
                    m.kind(&what, c, bound, want, &fx.at(a));
                }
            }
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// sh.status()'s chunk counts and getShardDistribution()'s `countDocuments`.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sh_status_chunk_counts() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let (fx, a) = match v {
            "6.0" => (&SH_STATUS_60, "'ourBase.col': {"),
            _ => (&SH_STATUS_70, "'ecommerce.orders': {"),
        };
        let want = fx.kind(a, "nChunks");
        for ns in ["shop.orders", "shop.users"] {
            let uuid = common::config_collection(&client, ns)
                .await
                .unwrap()
                .get("uuid")
                .unwrap()
                .clone();
            // mongosh helpers.ts getPrintableShardStatus, verbatim.
            let rows = aggregate(
                &client,
                "config",
                "chunks",
                vec![
                    doc! {"$match": {"uuid": uuid.clone()}},
                    doc! {"$group": {"_id": "$shard", "cnt": {"$sum": 1}}},
                    doc! {"$project": {"_id": 0, "shard": "$_id", "nChunks": "$cnt"}},
                    doc! {"$sort": {"shard": 1}},
                ],
            )
            .await;
            assert!(!rows.is_empty(), "{v} {ns}: no chunk counts");
            for r in &rows {
                let what = format!("{v} sh.status chunkMetadata {ns}");
                m.kind(&what, r, "nChunks", want, &fx.at(a));
                m.kind(&what, r, "shard", fx.kind(a, "shard"), &fx.at(a));
            }
            // countDocuments (getShardDistribution's chunk count per shard) is the driver's
            // `$group: {_id: 1, n: {$sum: 1}}`: the same $sum of int32 1s as nChunks.
            let rows = aggregate(
                &client,
                "config",
                "chunks",
                vec![
                    doc! {"$match": {"uuid": uuid}},
                    doc! {"$group": {"_id": 1, "n": {"$sum": 1}}},
                ],
            )
            .await;
            m.kind(
                &format!("{v} config.chunks countDocuments {ns}"),
                &rows[0],
                "n",
                want,
                &fx.at(a),
            );
        }
        // The 8.0.32 sample's own $group {chunks: {$sum: 1}} prints bare integers too.
        let a80 = "[ { _id: 'sh1', chunks:";
        assert_eq!(CHUNKS_80.kind(a80, "chunks"), Kind::Int32);
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.version (`shardingVersion`), config.mongos (`active mongoses`).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_version_and_mongos() {
    let mut m = Mismatches::default();
    let mongos_anchor = "# ---- config.mongos";
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let version = config_docs(&client, "version", doc! {}).await;
        assert_eq!(version.len(), 1, "{v}: config.version");
        let what = format!("{v} config.version");
        let fx = if v == "6.0" {
            &SH_STATUS_60
        } else {
            &SH_STATUS_70
        };
        let a = "shardingVersion";
        for field in ["_id", "clusterId"] {
            m.kind(&what, &version[0], field, fx.kind(a, field), &fx.at(a));
        }
        // 6.0.3 (mongosh 1.x, which printed the whole document) has minCompatibleVersion: 5,
        // currentVersion: 6. mongosh 2.x projects minCompatibleVersion away and deletes
        // currentVersion before printing, so the 7.0 samples cannot tell about them.
        if v == "6.0" {
            for field in ["minCompatibleVersion", "currentVersion"] {
                m.kind(
                    &what,
                    &version[0],
                    field,
                    SH_STATUS_60.kind(a, field),
                    &SH_STATUS_60.at(a),
                );
            }
        }

        let mongos = config_docs(&client, "mongos", doc! {}).await;
        assert!(!mongos.is_empty(), "{v}: config.mongos");
        let what = format!("{v} config.mongos");
        let cite = CONFIG_DOCS.at(mongos_anchor);
        for field in [
            "advisoryHostFQDNs",
            "created",
            "mongoVersion",
            "ping",
            "up",
            "waiting",
        ] {
            m.kind(
                &what,
                &mongos[0],
                field,
                CONFIG_DOCS.kind(mongos_anchor, field),
                &cite,
            );
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// config.settings: sh.status() reads the `balancer`, `autosplit`, `automerge` documents; the
// chunk size is the `chunksize` document a user writes.

/// config.settings of a fresh cluster, then the 8.0.32 session's chunk-size write.
async fn check_settings(m: &mut Mismatches, v: &str, client: &Client) {
    let settings_anchor = "# ---- config.settings";
    let settings = config_docs(client, "settings", doc! {}).await;
    // A fresh 8.0.32 cluster has an empty config.settings (defaults apply).
    if v == "8.0" {
        let a = "settings.find()";
        let section = SHARDS_80.section(a, "\n[direct");
        assert!(
            !section.contains("_id"),
            "the 8.0.32 sample's config.settings is empty"
        );
        if !settings.is_empty() {
            m.push(format!(
                "8.0 config.settings on a fresh cluster has {} document(s) ({}), {} shows none",
                settings.len(),
                settings
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                SHARDS_80.at(a)
            ));
        }
    }
    // The reference pages' settings documents: { _id: "chunksize", value: 64 } and
    // { _id: "balancer", mode: "full", stopped: false }.
    let cite = CONFIG_DOCS.at(settings_anchor);
    for d in &settings {
        let what = format!("{v} config.settings {}", d.get_str("_id").unwrap_or("?"));
        match d.get_str("_id").unwrap_or("") {
            "chunksize" => m.kind(
                &what,
                d,
                "value",
                CONFIG_DOCS.kind(settings_anchor, "value"),
                &cite,
            ),
            "balancer" => {
                for field in ["mode", "stopped"] {
                    m.kind_if_present(
                        &what,
                        d,
                        field,
                        CONFIG_DOCS.kind(settings_anchor, field),
                        &cite,
                    );
                }
            }
            _ => {}
        }
    }

    // The 8.0.32 session: `settings.updateOne({_id: 'chunksize'}, {$set: {value: 1}},
    // {upsert: true})` is acknowledged, then balancerCollectionStatus says chunkSize: 1.
    let write = "settings.updateOne({_id: 'chunksize'}";
    let written = client
        .database("config")
        .collection::<Document>("settings")
        .update_one(doc! {"_id": "chunksize"}, doc! {"$set": {"value": 1i32}})
        .upsert(true)
        .await;
    if let Err(e) = written {
        m.push(format!(
            "{v} config.settings updateOne chunksize {{value: 1}} is refused ({e}), {} acknowledges it",
            COMMANDS_80.at(write)
        ));
    } else {
        let d = config_docs(client, "settings", doc! {"_id": "chunksize"}).await;
        match d.first() {
            // Stored as written (an int32 from mongosh), as the reference page prints it.
            Some(d) => m.kind(
                &format!("{v} config.settings chunksize after the write"),
                d,
                "value",
                Kind::Int32,
                &cite,
            ),
            None => m.push(format!(
                "{v} config.settings chunksize: missing after an acknowledged upsert"
            )),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_settings_and_balancer_collection_status() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        check_settings(&mut m, v, &client).await;

        let status = common::admin(&client, doc! {"balancerCollectionStatus": "shop.orders"})
            .await
            .unwrap();
        let what = format!("{v} balancerCollectionStatus");
        let (fx, a) = match v {
            // Real 8.0.32, right after that write: chunkSize: 1.
            "8.0" => (&COMMANDS_80, "sh.balancerCollectionStatus('shop.orders')"),
            // 7.0 reference page: chunkSize: Long("128"). No 6.0 sample: the field is there
            // from 5.3 (7.0 page "versionadded 5.3"); for 6.0 its type is checked only to be
            // an integer below.
            _ => (&BALANCER_DOCS, "# ---- (B) 7.0 balancerCollectionStatus"),
        };
        for field in ["balancerCompliant", "firstComplianceViolation"] {
            m.kind_if_present(&what, &status, field, fx.kind(a, field), &fx.at(a));
        }
        m.kind(&what, &status, "balancerCompliant", Kind::Bool, &fx.at(a));
        // keyId: Long(0) in the 7.0 page's reply (NumberLong(0) in the 5.0 page's).
        let b = "# ---- (B) 7.0 balancerCollectionStatus";
        m.kind(
            &what,
            &status,
            "$clusterTime.signature.keyId",
            BALANCER_DOCS.kind(b, "keyId"),
            &BALANCER_DOCS.at(b),
        );
        if v == "6.0" {
            match status.get("chunkSize").map(kind_of) {
                Some(Kind::Int32 | Kind::Int64) => {}
                other => m.push(format!(
                    "6.0 balancerCollectionStatus: chunkSize is {other:?}, {} shows an integer (from 5.3)",
                    fx.at(a)
                )),
            }
        } else {
            m.kind(
                &what,
                &status,
                "chunkSize",
                fx.kind(a, "chunkSize"),
                &fx.at(a),
            );
        }
        if v == "8.0" && status.get("chunkSize") != Some(&Bson::Int32(1)) {
            m.push(format!(
                "8.0 balancerCollectionStatus: chunkSize is {:?} after config.settings chunksize {{value: 1}}, {} shows 1",
                status.get("chunkSize"),
                COMMANDS_80.at(a)
            ));
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// balancerStatus (sh.status() reads inBalancerRound; sh.isBalancerRunning() returns it).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn balancer_status() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let status = common::admin(&client, doc! {"balancerStatus": 1})
            .await
            .unwrap();
        let what = format!("{v} balancerStatus");
        // 7.0 reference page (numBalancerRounds: Long(86)) and 5.2 page (Long("1143")).
        for a in ["# ---- (C) 7.0 balancerStatus", "# ---- (D) 5.2 docs"] {
            for field in ["mode", "inBalancerRound", "numBalancerRounds"] {
                m.kind(
                    &what,
                    &status,
                    field,
                    BALANCER_DOCS.kind(a, field),
                    &BALANCER_DOCS.at(a),
                );
            }
        }
        // The reply's gossip, as the 5.2 page prints it: keyId: Long("0").
        let d = "# ---- (D) 5.2 docs";
        m.kind(
            &what,
            &status,
            "$clusterTime.signature.keyId",
            BALANCER_DOCS.kind(d, "keyId"),
            &BALANCER_DOCS.at(d),
        );
        for field in ["operationTime", "clusterTime"] {
            let path = if field == "clusterTime" {
                "$clusterTime.clusterTime"
            } else {
                field
            };
            m.kind(
                &what,
                &status,
                path,
                BALANCER_DOCS.kind(d, field),
                &BALANCER_DOCS.at(d),
            );
        }
        // `term` is in no fixture (the 7.0 page's example has none): checked only to be a
        // whole number when sent.
        if let Some(t) = status.get("term")
            && !matches!(kind_of(t), Kind::Int32 | Kind::Int64)
        {
            m.push(format!("{v} balancerStatus: term is {:?}", kind_of(t)));
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// $shardedDataDistribution (sh.status()'s `shardedDataDistribution`, 6.0.3+).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharded_data_distribution() {
    let real = "shardedDataDistribution\n[";
    let docs72 = "# ---- (C) sh.getShardedDataDistribution()";
    let fields = [
        "shardName",
        "numOrphanedDocs",
        "numOwnedDocuments",
        "ownedSizeBytes",
        "orphanedSizeBytes",
    ];
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let rows: Vec<Document> = client
            .database("admin")
            .aggregate(vec![doc! {"$shardedDataDistribution": {}}])
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let mut seen = 0;
        for r in &rows {
            let ns = r.get_str("ns").unwrap_or("?").to_string();
            if !ns.starts_with("shop.") {
                continue;
            }
            seen += 1;
            let what = format!("{v} $shardedDataDistribution {ns}");
            m.kind(
                &what,
                r,
                "ns",
                SH_STATUS_70.kind(real, "ns"),
                &SH_STATUS_70.at(real),
            );
            m.kind(&what, r, "shards", Kind::Array, &SH_STATUS_70.at(real));
            let shards = r.get_array("shards").cloned().unwrap_or_default();
            for (i, s) in shards.iter().enumerate() {
                let Bson::Document(s) = s else {
                    m.push(format!("{what}: shards.{i} is not a document"));
                    continue;
                };
                let what = format!("{what} shards.{i}");
                for field in fields {
                    // Real 7.0.24 sh.status() and the 7.2 reference page agree.
                    m.kind(
                        &what,
                        s,
                        field,
                        SH_STATUS_70.kind(real, field),
                        &SH_STATUS_70.at(real),
                    );
                    m.kind(
                        &what,
                        s,
                        field,
                        REMOVE_SHARD_DOCS.kind(docs72, field),
                        &REMOVE_SHARD_DOCS.at(docs72),
                    );
                }
            }
        }
        assert!(
            seen >= 2,
            "{v}: $shardedDataDistribution lists the shop collections: {rows:?}"
        );
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// $collStats storageStats through mongos, as getShardDistribution() reads it: one document per
// shard; it uses storageStats.size, count, avgObjSize, numOrphanDocs.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coll_stats_storage_stats() {
    let real = "{ shard: 'sh1', count:";
    // Fields no fixture shows, as the server appends them (mongodb/mongo
    // src/mongo/db/stats/storage_stats.cpp, 7.0/8.0-era: `appendNumber(long long)` is an int32
    // when the value fits, `nindexes` / `avgObjSize` / `scaleFactor` are C++ ints; `avgObjSize`
    // only when the shard holds documents). `indexDetails` (the storage engine's own statistics
    // per index) is not simulated and not checked.
    let source = "mongodb/mongo src/mongo/db/stats/storage_stats.cpp (no fixture)";
    let from_source = [
        ("size", Kind::Int32),
        ("avgObjSize", Kind::Int32),
        ("storageSize", Kind::Int32),
        ("freeStorageSize", Kind::Int32),
        ("capped", Kind::Bool),
        ("nindexes", Kind::Int32),
        ("indexBuilds", Kind::Array),
        ("totalIndexSize", Kind::Int32),
        ("totalSize", Kind::Int32),
        ("indexSizes", Kind::Document),
        ("scaleFactor", Kind::Int32),
    ];
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        for ns in ["orders", "users"] {
            let rows = aggregate(
                &client,
                "shop",
                ns,
                vec![doc! {"$collStats": {"storageStats": {}}}],
            )
            .await;
            assert!(!rows.is_empty(), "{v} shop.{ns}: $collStats");
            for r in &rows {
                let what = format!(
                    "{v} $collStats shop.{ns} {}",
                    r.get_str("shard").unwrap_or("?")
                );
                m.kind(
                    &what,
                    r,
                    "shard",
                    COMMANDS_80.kind(real, "shard"),
                    &COMMANDS_80.at(real),
                );
                // Real 8.0.32: { shard: 'sh1', count: 80000, numOrphanDocs: 37840 } (projected
                // from storageStats.count / storageStats.numOrphanDocs).
                for field in ["count", "numOrphanDocs"] {
                    m.kind(
                        &what,
                        r,
                        &format!("storageStats.{field}"),
                        COMMANDS_80.kind(real, field),
                        &COMMANDS_80.at(real),
                    );
                }
                // One line per document for the fields it lacks.
                let missing: Vec<&str> = from_source
                    .iter()
                    .filter(|(f, _)| at(r, &format!("storageStats.{f}")).is_none())
                    .map(|(f, _)| *f)
                    .collect();
                if !missing.is_empty() {
                    m.push(format!(
                        "{what}: storageStats lacks {} ({source} sends them)",
                        missing.join(", ")
                    ));
                }
                for (field, want) in from_source {
                    m.kind_if_present(&what, r, &format!("storageStats.{field}"), want, source);
                }
                if let Ok(Bson::Document(sizes)) = r
                    .get_document("storageStats")
                    .map(|s| s.get("indexSizes").cloned().unwrap_or(Bson::Null))
                {
                    for (name, size) in &sizes {
                        if kind_of(size) != Kind::Int32 {
                            m.push(format!("{what}: storageStats.indexSizes.{name} is {:?}, {source} gives int32", kind_of(size)));
                        }
                    }
                }
            }
        }
        // A shard that owns a chunk but no documents: count 0 and no avgObjSize.
        let rows = aggregate(
            &client,
            "shop",
            "empty",
            vec![doc! {"$collStats": {"storageStats": {}}}],
        )
        .await;
        for r in &rows {
            let what = format!(
                "{v} $collStats shop.empty {}",
                r.get_str("shard").unwrap_or("?")
            );
            m.kind(&what, r, "storageStats.count", Kind::Int32, source);
            m.absent(
                &what,
                r,
                "storageStats.avgObjSize",
                &format!("{source}, `if (numRecords)`,"),
            );
        }
        server.shutdown().await;
    }
    m.assert_none();
}
