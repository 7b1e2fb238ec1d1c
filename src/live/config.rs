//! Typed views of the `config.*` documents a live source reads, for every shape from 4.4 to 8.0:
//! chunks by `ns` (4.4) or by `uuid` (5.0+), `onCurrentShardSince` (7.0+), `jumbo`;
//! collections with `dropped` (4.4), `timestamp` (5.0+), `unsplittable` (8.0); shards with
//! `draining` and `tags`; zone ranges; balancer and chunk-size settings.
//!
//! Errors name the collection, the document's `_id` and the field.

use bson::{Bson, Document, RawBsonRef, RawDocument};

use crate::model::{ChunkInfo, ChunkVersion, KeyPattern, ShardIdx, ShardKey};

/// A document that does not have the shape its collection promises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn bad(coll: &str, doc: &Document, field: &str, want: &str) -> ConfigError {
    let id = doc
        .get("_id")
        .map_or_else(|| "?".to_string(), ToString::to_string);
    ConfigError(format!(
        "config.{coll} {{_id: {id}}}: field `{field}`: expected {want}"
    ))
}

fn string(coll: &str, doc: &Document, field: &str) -> Result<String, ConfigError> {
    doc.get_str(field)
        .map(str::to_string)
        .map_err(|_| bad(coll, doc, field, "a string"))
}

fn flag(doc: &Document, field: &str) -> bool {
    doc.get_bool(field).unwrap_or(false)
}

/// A `config.shards` document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardDoc {
    pub id: String,
    pub draining: bool,
    pub tags: Vec<String>,
}

impl ShardDoc {
    pub fn parse(doc: &Document) -> Result<Self, ConfigError> {
        let tags = match doc.get("tags") {
            None | Some(Bson::Null) => Vec::new(),
            Some(Bson::Array(a)) => a
                .iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad("shards", doc, "tags", "an array of strings"))?,
            Some(_) => return Err(bad("shards", doc, "tags", "an array of strings")),
        };
        Ok(Self {
            id: string("shards", doc, "_id")?,
            draining: flag(doc, "draining"),
            tags,
        })
    }
}

/// How a collection's chunks name it: by namespace (4.4) or by collection UUID (5.0+).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChunkOwner {
    Ns(String),
    Uuid(bson::Binary),
}

/// The identity of a collection's routing table: a change means a new table (drop and
/// re-create, refine, reshard), not an update of the old one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incarnation {
    pub uuid: Option<bson::Binary>,
    pub epoch: Option<bson::oid::ObjectId>,
    pub timestamp: Option<bson::Timestamp>,
}

/// A `config.collections` document.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionDoc {
    pub ns: String,
    pub key: KeyPattern,
    pub unique: bool,
    pub incarnation: Incarnation,
    /// 4.4 keeps dropped collections with `dropped: true`.
    pub dropped: bool,
    /// 8.0: an unsharded collection placed by `moveCollection`.
    pub unsplittable: bool,
    /// `timeseriesFields` present: a time series, its documents buckets
    /// (`src/mongo/s/catalog/type_collection.idl`).
    pub timeseries: bool,
    pub no_balance: bool,
    /// `defragmentCollection: true` with its `defragmentationPhase` (5.3+), while it runs; a
    /// phase this build does not know is kept as `None` inside `Some`.
    pub defragmentation: Option<Option<crate::cluster::defragmentation::DefragmentationPhase>>,
    /// `configureCollectionBalancing` (5.3+): `maxChunkSizeBytes` and `enableAutoMerge`.
    pub balancing: crate::cluster::CollectionBalancing,
}

impl CollectionDoc {
    pub fn parse(doc: &Document) -> Result<Self, ConfigError> {
        let ns = string("collections", doc, "_id")?;
        let key_doc = doc
            .get_document("key")
            .map_err(|_| bad("collections", doc, "key", "a shard key pattern document"))?;
        let key = KeyPattern::parse(key_doc).map_err(|e| {
            bad(
                "collections",
                doc,
                "key",
                &format!("a shard key pattern ({e})"),
            )
        })?;
        let uuid = match doc.get("uuid") {
            Some(Bson::Binary(b)) => Some(b.clone()),
            None => None,
            Some(_) => return Err(bad("collections", doc, "uuid", "a UUID")),
        };
        let epoch = match doc.get("lastmodEpoch") {
            Some(Bson::ObjectId(o)) => Some(*o),
            None => None,
            Some(_) => return Err(bad("collections", doc, "lastmodEpoch", "an ObjectId")),
        };
        let timestamp = match doc.get("timestamp") {
            Some(Bson::Timestamp(t)) => Some(*t),
            None => None,
            Some(_) => return Err(bad("collections", doc, "timestamp", "a Timestamp")),
        };
        Ok(Self {
            ns,
            key,
            unique: flag(doc, "unique"),
            incarnation: Incarnation {
                uuid,
                epoch,
                timestamp,
            },
            dropped: flag(doc, "dropped"),
            unsplittable: flag(doc, "unsplittable"),
            timeseries: doc.contains_key("timeseriesFields"),
            no_balance: flag(doc, "noBalance"),
            defragmentation: flag(doc, "defragmentCollection").then(|| {
                doc.get_str("defragmentationPhase")
                    .ok()
                    .and_then(crate::cluster::defragmentation::DefragmentationPhase::parse)
            }),
            balancing: crate::cluster::CollectionBalancing {
                max_chunk_size_bytes: match doc.get("maxChunkSizeBytes") {
                    None => None,
                    Some(Bson::Int64(n)) if *n > 0 => Some(*n as u64),
                    Some(Bson::Int32(n)) if *n > 0 => Some(*n as u64),
                    Some(_) => {
                        return Err(bad(
                            "collections",
                            doc,
                            "maxChunkSizeBytes",
                            "a positive number of bytes",
                        ));
                    }
                },
                auto_merge: doc.get_bool("enableAutoMerge").ok(),
                no_balance: flag(doc, "noBalance"),
                migrations_blocked: doc.get_bool("permitMigrations") == Ok(false),
            },
        })
    }

    /// Whether the collection is sharded and alive (not dropped, not an unsplittable one).
    pub fn is_sharded(&self) -> bool {
        !self.dropped && !self.unsplittable
    }

    /// How its chunks refer to it: by uuid when the document has a `timestamp` (5.0+ shapes,
    /// as mongosh decides), by namespace otherwise.
    pub fn chunk_owner(&self) -> ChunkOwner {
        match (&self.incarnation.timestamp, &self.incarnation.uuid) {
            (Some(_), Some(u)) => ChunkOwner::Uuid(u.clone()),
            _ => ChunkOwner::Ns(self.ns.clone()),
        }
    }
}

/// A `config.chunks` document.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkDoc {
    pub owner: ChunkOwner,
    pub min: ShardKey,
    pub max: ShardKey,
    pub shard: String,
    pub version: ChunkVersion,
    pub jumbo: bool,
    /// `onCurrentShardSince` (7.0+), seconds since the epoch.
    pub since: Option<u64>,
}

impl ChunkDoc {
    /// The owner of a chunk document, before its bounds can be read (they need the pattern).
    pub fn owner_of(doc: &Document) -> Result<ChunkOwner, ConfigError> {
        match (doc.get("uuid"), doc.get("ns")) {
            (Some(Bson::Binary(b)), _) => Ok(ChunkOwner::Uuid(b.clone())),
            (_, Some(Bson::String(ns))) => Ok(ChunkOwner::Ns(ns.clone())),
            _ => Err(bad(
                "chunks",
                doc,
                "uuid",
                "a UUID (5.0+) or an `ns` string (4.4)",
            )),
        }
    }

    pub fn parse(doc: &Document, pattern: &KeyPattern) -> Result<Self, ConfigError> {
        let row = ChunkRow::parse(doc, pattern, &mut |_| ShardIdx(0))?;
        Ok(Self {
            owner: Self::owner_of(doc)?,
            min: row.min,
            max: row.max,
            shard: string("chunks", doc, "shard")?,
            version: row.info.version,
            jumbo: row.info.jumbo,
            since: since_of(doc)?,
        })
    }
}

fn since_of(doc: &Document) -> Result<Option<u64>, ConfigError> {
    match doc.get("onCurrentShardSince") {
        Some(Bson::Timestamp(t)) => Ok(Some(u64::from(t.time))),
        None => Ok(None),
        Some(_) => Err(bad("chunks", doc, "onCurrentShardSince", "a Timestamp")),
    }
}

/// A `config.chunks` document as a routing table keeps it: the bounds, and the chunk with its
/// shard as an index in the reader's shard list.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkRow {
    pub min: ShardKey,
    pub max: ShardKey,
    pub info: ChunkInfo,
}

impl ChunkRow {
    /// Parses a chunk document of a collection with key `pattern`; `shard_index` numbers the
    /// shard names.
    pub fn parse(
        doc: &Document,
        pattern: &KeyPattern,
        shard_index: &mut impl FnMut(&str) -> ShardIdx,
    ) -> Result<Self, ConfigError> {
        let bound = |field: &str| {
            let d = doc
                .get_document(field)
                .map_err(|_| bad("chunks", doc, field, "a bound document"))?;
            pattern.bound_from_document(d).map_err(|e| {
                bad(
                    "chunks",
                    doc,
                    field,
                    &format!("a bound of the shard key ({e})"),
                )
            })
        };
        let version = match doc.get("lastmod") {
            Some(Bson::Timestamp(t)) => ChunkVersion::new(t.time, t.increment),
            _ => return Err(bad("chunks", doc, "lastmod", "a Timestamp (major, minor)")),
        };
        let shard = doc
            .get_str("shard")
            .map_err(|_| bad("chunks", doc, "shard", "a string"))?;
        let mut info = ChunkInfo::new(shard_index(shard), version);
        info.jumbo = flag(doc, "jumbo");
        info.since = since_of(doc)?.unwrap_or(0);
        Ok(Self {
            min: bound("min")?,
            max: bound("max")?,
            info,
        })
    }

    /// Parses a chunk document as the driver delivers it, without building a `Document`; for
    /// anything the fast path does not read, the document form gives the row or the error.
    pub fn parse_raw(
        raw: &RawDocument,
        pattern: &KeyPattern,
        shard_index: &mut impl FnMut(&str) -> ShardIdx,
    ) -> Result<Self, ConfigError> {
        if let Some(row) = Self::fast(raw, pattern, shard_index) {
            return Ok(row);
        }
        let doc = Document::try_from(raw).map_err(|e| {
            ConfigError(format!(
                "config.chunks: a document that is not valid BSON ({e})"
            ))
        })?;
        Self::parse(&doc, pattern, shard_index)
    }

    /// One pass over the document's fields (each `RawDocument::get` would walk them again from
    /// the start); the first of a repeated field counts, as `get` reads it. `None`: the document
    /// form decides.
    fn fast(
        raw: &RawDocument,
        pattern: &KeyPattern,
        shard_index: &mut impl FnMut(&str) -> ShardIdx,
    ) -> Option<Self> {
        let mut fields = RawChunkFields::default();
        for element in raw.iter_elements() {
            let element = element.ok()?;
            fields.take(element.key(), || element.value().ok())?;
        }
        let t = fields.lastmod?;
        let mut info = ChunkInfo::new(
            shard_index(fields.shard?),
            ChunkVersion::new(t.time, t.increment),
        );
        info.jumbo = fields.jumbo == Some(RawBsonRef::Boolean(true));
        info.since = match fields.since {
            None => 0,
            Some(RawBsonRef::Timestamp(t)) => u64::from(t.time),
            Some(_) => return None,
        };
        Some(Self {
            min: pattern.bound_from_raw(fields.min?.as_document()?)?,
            max: pattern.bound_from_raw(fields.max?.as_document()?)?,
            info,
        })
    }
}

/// The fields of a `config.chunks` document the fast path reads, as met.
#[derive(Default)]
struct RawChunkFields<'a> {
    min: Option<RawBsonRef<'a>>,
    max: Option<RawBsonRef<'a>>,
    lastmod: Option<bson::Timestamp>,
    shard: Option<&'a str>,
    jumbo: Option<RawBsonRef<'a>>,
    since: Option<RawBsonRef<'a>>,
}

impl<'a> RawChunkFields<'a> {
    /// Keeps the field `key` (its value read by `value`) if it is one of them and the first of
    /// its name; `None` when a value cannot be read or has the wrong type.
    fn take(&mut self, key: &str, value: impl FnOnce() -> Option<RawBsonRef<'a>>) -> Option<()> {
        let slot = match key {
            "min" => &mut self.min,
            "max" => &mut self.max,
            "jumbo" => &mut self.jumbo,
            "onCurrentShardSince" => &mut self.since,
            "lastmod" if self.lastmod.is_none() => {
                self.lastmod = Some(value()?.as_timestamp()?);
                return Some(());
            }
            "shard" if self.shard.is_none() => {
                self.shard = Some(value()?.as_str()?);
                return Some(());
            }
            _ => return Some(()),
        };
        if slot.is_none() {
            *slot = Some(value()?);
        }
        Some(())
    }
}

/// A `config.tags` document: a zone range.
#[derive(Clone, Debug, PartialEq)]
pub struct TagDoc {
    pub ns: String,
    pub min: Document,
    pub max: Document,
    pub zone: String,
}

impl TagDoc {
    /// Every zone range that parses, and a note for each that does not (it is not shown).
    pub fn parse_all(docs: &[Document]) -> (Vec<Self>, Vec<String>) {
        let mut notes = Vec::new();
        let tags = docs
            .iter()
            .filter_map(|d| {
                Self::parse(d)
                    .map_err(|e| notes.push(format!("{e}: that zone range is not shown")))
                    .ok()
            })
            .collect();
        (tags, notes)
    }

    pub fn parse(doc: &Document) -> Result<Self, ConfigError> {
        let bound = |field: &str| {
            doc.get_document(field)
                .cloned()
                .map_err(|_| bad("tags", doc, field, "a bound document"))
        };
        Ok(Self {
            ns: string("tags", doc, "ns")?,
            min: bound("min")?,
            max: bound("max")?,
            zone: string("tags", doc, "tag")?,
        })
    }
}

mod settings;
pub use settings::SettingsDocs;
