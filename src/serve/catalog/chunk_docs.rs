//! `config.chunks`' documents in the shapes of the selected server version: by `ns` and
//! `lastmodEpoch` before 5.0, by `uuid` from 5.0, `onCurrentShardSince` from 7.0
//! (`s/catalog/type_chunk.cpp`), built whole or only the fields a pipeline reads.
//!
//! May import `state`, `query` and `reply`; the other config collections are `config_db`'s.

use bson::{Bson, Document, Timestamp, doc};

use crate::cluster::{Collection, ServerVersion};
use crate::serve::catalog::ids;
use crate::serve::query::chunk_filter::ChunkPrefilter;
use crate::serve::state::State;

/// A `Timestamp` of `time` seconds and `increment`, as the config documents carry them.
pub(super) fn ts(time: u64, increment: u32) -> Bson {
    Bson::Timestamp(Timestamp {
        time: time as u32,
        increment,
    })
}

pub(super) fn chunks(
    state: &State,
    c: &Collection,
    v: ServerVersion,
    pre: &ChunkPrefilter,
) -> Vec<Document> {
    let docs = ChunkDocs::of(state, c);
    c.table
        .iter()
        .filter(|ch| pre.admits(ch.info))
        .map(|ch| docs.document(state, c, v, ch))
        .collect()
}

/// A set of `config.chunks` fields, by name (a bit each).
#[derive(Clone, Copy, Debug)]
pub struct ChunkFields(u16);

impl ChunkFields {
    const NAMES: [&'static str; 11] = [
        "_id",
        "uuid",
        "ns",
        "min",
        "max",
        "shard",
        "lastmod",
        "lastmodEpoch",
        "onCurrentShardSince",
        "history",
        "jumbo",
    ];
    pub const ALL: Self = Self(u16::MAX);
    const ID: u16 = 0;
    const UUID: u16 = 1;
    const NS: u16 = 2;
    const MIN: u16 = 3;
    const MAX: u16 = 4;
    const SHARD: u16 = 5;
    const LASTMOD: u16 = 6;
    const EPOCH: u16 = 7;
    const SINCE: u16 = 8;
    const HISTORY: u16 = 9;
    const JUMBO: u16 = 10;

    /// The fields of a chunk document among `names`.
    pub fn of<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut bits = 0;
        for n in names {
            if let Some(i) = Self::NAMES.iter().position(|x| *x == n) {
                bits |= 1 << i;
            }
        }
        Self(bits)
    }

    /// Whether the field of index `i` in `NAMES` is in the set.
    fn on(self, i: u16) -> bool {
        self.0 & (1 << i) != 0
    }
}

/// What every `config.chunks` document of one collection shares: its uuid, epoch and the
/// server's start.
pub struct ChunkDocs {
    secs: u64,
    uuid: Bson,
    uuid_bytes: Vec<u8>,
    epoch: bson::oid::ObjectId,
}

impl ChunkDocs {
    pub fn of(state: &State, c: &Collection) -> Self {
        let secs = state.started_secs;
        let uuid = ids::collection_uuid(&c.ns, c.incarnation);
        let uuid_bytes = match &uuid {
            Bson::Binary(b) => b.bytes.clone(),
            _ => Vec::new(),
        };
        Self {
            secs,
            epoch: ids::collection_epoch(&c.ns, c.incarnation, secs),
            uuid,
            uuid_bytes,
        }
    }

    /// The document of chunk `ch` of `c`, in the shape of version `v`.
    pub fn document(
        &self,
        state: &State,
        c: &Collection,
        v: ServerVersion,
        ch: crate::model::Chunk<'_>,
    ) -> Document {
        self.partial(state, c, v, ch, ChunkFields::ALL)
    }

    /// The fields of that document `fields` names (in the same order): a pipeline that reads a few
    /// fields of a million chunks builds only those.
    pub fn partial(
        &self,
        state: &State,
        c: &Collection,
        v: ServerVersion,
        ch: crate::model::Chunk<'_>,
        fields: ChunkFields,
    ) -> Document {
        let mut d = Document::new();
        let min = (fields.on(ChunkFields::ID) || fields.on(ChunkFields::MIN))
            .then(|| c.pattern.bound_to_document(ch.min));
        if fields.on(ChunkFields::ID)
            && let Some(min) = &min
        {
            d.insert(
                "_id",
                ids::object_id(self.secs, &[&self.uuid_bytes, &ids_key(min)]),
            );
        }
        if v.chunks_by_uuid() {
            if fields.on(ChunkFields::UUID) {
                d.insert("uuid", self.uuid.clone());
            }
        } else if fields.on(ChunkFields::NS) {
            d.insert("ns", &c.ns);
        }
        if let Some(min) = min.filter(|_| fields.on(ChunkFields::MIN)) {
            d.insert("min", min);
        }
        if fields.on(ChunkFields::MAX) {
            d.insert("max", c.pattern.bound_to_document(ch.max));
        }
        let shard = state.sim.cluster.shard_id(ch.info.shard);
        if fields.on(ChunkFields::SHARD) {
            d.insert("shard", shard);
        }
        if fields.on(ChunkFields::LASTMOD) {
            d.insert(
                "lastmod",
                Timestamp {
                    time: ch.info.version.major,
                    increment: ch.info.version.minor,
                },
            );
        }
        if !v.chunks_by_uuid() && fields.on(ChunkFields::EPOCH) {
            d.insert("lastmodEpoch", self.epoch);
        }
        let since = || ts(state.unix_secs_at(ch.info.since), 1);
        if v >= ServerVersion::V7_0 && fields.on(ChunkFields::SINCE) {
            d.insert("onCurrentShardSince", since());
        }
        if fields.on(ChunkFields::HISTORY) {
            d.insert(
                "history",
                vec![Bson::Document(
                    doc! { "validAfter": since(), "shard": shard },
                )],
            );
        }
        if ch.info.jumbo && fields.on(ChunkFields::JUMBO) {
            d.insert("jumbo", true);
        }
        d
    }
}

pub(super) fn ids_key(min: &Document) -> Vec<u8> {
    crate::wire::encode::encode_document(min)
}
