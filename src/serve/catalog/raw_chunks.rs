//! `config.chunks` documents written straight into BSON bytes from the routing table — the same
//! bytes as encoding [`ChunkDocs::document`](crate::serve::catalog::chunk_docs::ChunkDocs::document) — for a read
//! whose filter is decided exactly without the documents: conditions on the fields every chunk
//! of a collection shares (`uuid`, `ns`, `lastmodEpoch`), `lastmod: {$gte|$gt: Timestamp}` and
//! `jumbo: true` (see [`ChunkPrefilter`]), or no filter at all. Other reads build documents.

use bson::spec::ElementType;
use bson::{Bson, Document, doc};

use crate::cluster::Collection;
use crate::cluster::ServerVersion;
use crate::model::{Chunk, ShardKey};
use crate::serve::catalog::ids;
use crate::serve::query;
use crate::serve::query::chunk_filter::ChunkPrefilter;
use crate::serve::state::State;
use crate::wire::encode;

/// A filter decided without building documents.
#[derive(Clone, Debug)]
pub struct RawFilter {
    pre: ChunkPrefilter,
    /// The conditions on the fields a collection's chunks share.
    shared: Document,
}

/// The fields whose value is the same in every chunk document of a collection.
const SHARED_FIELDS: &[&str] = &["uuid", "ns", "lastmodEpoch"];

impl RawFilter {
    /// `Some` when every top-level condition of `filter` is one this module decides exactly.
    pub fn of(filter: Option<&Document>) -> Option<Self> {
        let mut shared = Document::new();
        for (k, cond) in filter.into_iter().flatten() {
            let exact = match k.as_str() {
                "lastmod" => is_lastmod_bound(cond),
                "jumbo" => matches!(cond, Bson::Boolean(true)),
                k if SHARED_FIELDS.contains(&k) => {
                    shared.insert(k, cond.clone());
                    true
                }
                _ => false,
            };
            if !exact {
                return None;
            }
        }
        Some(Self {
            pre: ChunkPrefilter::of(filter),
            shared,
        })
    }

    /// Whether chunks of the collection whose shared fields are `shared` can match.
    fn admits_collection(&self, shared: &Document) -> bool {
        query::matches(shared, &self.shared).unwrap_or(false)
    }
}

/// `{$gte|$gt: Timestamp, …}`: the prefilter's conditions and nothing else.
fn is_lastmod_bound(cond: &Bson) -> bool {
    let Bson::Document(ops) = cond else {
        return false;
    };
    !ops.is_empty()
        && ops
            .iter()
            .all(|(op, v)| matches!(op.as_str(), "$gte" | "$gt") && matches!(v, Bson::Timestamp(_)))
}

/// What the chunk documents of one collection share, ready to be written.
pub struct RawChunks<'a> {
    state: &'a State,
    c: &'a Collection,
    v: ServerVersion,
    uuid: Vec<u8>,
    epoch: bson::oid::ObjectId,
    /// Whether the filter admits this collection's chunks at all.
    pub admitted: bool,
    pre: ChunkPrefilter,
    /// The chunk's `min`, encoded (it also gives the `_id`).
    min: Vec<u8>,
}

impl<'a> RawChunks<'a> {
    pub fn of(state: &'a State, c: &'a Collection, filter: &RawFilter) -> Self {
        let v = state.sim.cluster.version;
        let uuid = match ids::collection_uuid(&c.ns, c.incarnation) {
            Bson::Binary(b) => b.bytes,
            _ => Vec::new(),
        };
        let epoch = ids::collection_epoch(&c.ns, c.incarnation, state.started_secs);
        let shared = if v.chunks_by_uuid() {
            doc! { "uuid": ids::collection_uuid(&c.ns, c.incarnation) }
        } else {
            doc! { "ns": &c.ns, "lastmodEpoch": epoch }
        };
        Self {
            state,
            c,
            v,
            uuid,
            epoch,
            admitted: filter.admits_collection(&shared),
            pre: filter.pre.clone(),
            min: Vec::new(),
        }
    }

    /// Whether chunk `ch`'s document matches the filter.
    pub fn admits(&self, ch: &Chunk<'_>) -> bool {
        self.admitted && self.pre.admits(ch.info)
    }

    /// Appends chunk `ch`'s document to `out`; returns its length.
    pub fn write(&mut self, out: &mut Vec<u8>, ch: &Chunk<'_>) -> usize {
        let start = out.len();
        self.min.clear();
        bound(&mut self.min, self.c, ch.min);
        let id = ids::object_id(self.state.started_secs, &[&self.uuid, &self.min]);
        let shard = self.state.sim.cluster.shard_id(ch.info.shard);
        let since = timestamp(self.state.unix_secs_at(ch.info.since) as u32, 1);
        encode::framed(out, |out| {
            encode::element(out, "_id", &Bson::ObjectId(id));
            if self.v.chunks_by_uuid() {
                binary_uuid(out, "uuid", &self.uuid);
            } else {
                string(out, "ns", &self.c.ns);
            }
            out.push(ElementType::EmbeddedDocument as u8);
            out.extend_from_slice(b"min\0");
            out.extend_from_slice(&self.min);
            out.push(ElementType::EmbeddedDocument as u8);
            out.extend_from_slice(b"max\0");
            bound(out, self.c, ch.max);
            string(out, "shard", shard);
            let lastmod = timestamp(ch.info.version.major, ch.info.version.minor);
            encode::element(out, "lastmod", &lastmod);
            if !self.v.chunks_by_uuid() {
                encode::element(out, "lastmodEpoch", &Bson::ObjectId(self.epoch));
            }
            if self.v >= ServerVersion::V7_0 {
                encode::element(out, "onCurrentShardSince", &since);
            }
            out.push(ElementType::Array as u8);
            out.extend_from_slice(b"history\0");
            encode::framed(out, |out| {
                out.push(ElementType::EmbeddedDocument as u8);
                out.extend_from_slice(b"0\0");
                encode::framed(out, |out| {
                    encode::element(out, "validAfter", &since);
                    string(out, "shard", shard);
                });
            });
            if ch.info.jumbo {
                encode::element(out, "jumbo", &Bson::Boolean(true));
            }
        });
        out.len() - start
    }
}

fn timestamp(time: u32, increment: u32) -> Bson {
    Bson::Timestamp(bson::Timestamp { time, increment })
}

/// A shard-key bound as a document (`KeyPattern::bound_to_document`, encoded).
fn bound(out: &mut Vec<u8>, c: &Collection, key: &ShardKey) {
    encode::framed(out, |out| {
        for (f, v) in c.pattern.fields().iter().zip(key.values()) {
            encode::element(out, &f.path, &crate::model::extjson::to_bson(v));
        }
    });
}

fn string(out: &mut Vec<u8>, key: &str, s: &str) {
    out.push(ElementType::String as u8);
    out.extend_from_slice(key.as_bytes());
    out.push(0);
    out.extend_from_slice(&((s.len() + 1) as i32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    out.push(0);
}

/// A UUID: BinData subtype 4.
fn binary_uuid(out: &mut Vec<u8>, key: &str, bytes: &[u8]) {
    out.push(ElementType::Binary as u8);
    out.extend_from_slice(key.as_bytes());
    out.push(0);
    out.extend_from_slice(&(bytes.len() as i32).to_le_bytes());
    out.push(u8::from(bson::spec::BinarySubtype::Uuid));
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use bson::Timestamp;

    use super::*;
    use crate::model::ShardIdx;
    use crate::serve::catalog::chunk_docs::ChunkDocs;
    use crate::sim::{Simulator, scenario};

    /// Two collections (one on a compound key with strings), a moved chunk, jumbo chunks.
    fn state(version: &str) -> State {
        let sc = scenario::parse(
            r#"{"name": "raw", "description": "", "seedPassage": "", "shards": 3,
            "collections": [{"ns": "app.h", "key": {"h": "hashed"}, "numInitialChunks": 40},
                            {"ns": "app.r", "key": {"region": 1, "n": 1}}], "until": 0}"#,
        )
        .unwrap();
        // 8.0 ignores numInitialChunks (one chunk per shard): the table is laid out by 7.0's
        // rule, and its documents are read in `version`'s shape.
        let v: ServerVersion = version.parse().unwrap();
        let mut sim = Simulator::from_scenario(&sc, 1, Some(v.min(ServerVersion::V7_0))).unwrap();
        sim.cluster.version = v;
        let table = &mut sim.cluster.collections[0].table;
        table.set_jumbo(3, true);
        table.set_jumbo(17, true);
        let to = ShardIdx((table.chunk(5).info.shard.index() + 1) as u32 % 3);
        table.move_chunk(5, to, 42).unwrap();
        let addr = "127.0.0.1:27017".parse().unwrap();
        State::new(sim, addr, Vec::new(), true, None, 1000)
    }

    const VERSIONS: &[&str] = &["4.4", "5.0", "6.0", "7.0", "8.0"];

    #[test]
    fn raw_documents_are_the_encoded_documents_of_every_version() {
        for v in VERSIONS {
            let state = state(v);
            let all = RawFilter::of(None).unwrap();
            for c in &state.sim.cluster.collections {
                let docs = ChunkDocs::of(&state, c);
                let mut raw = RawChunks::of(&state, c, &all);
                for ch in c.table.iter() {
                    let d = docs.document(&state, c, state.sim.cluster.version, ch);
                    let mut out = Vec::new();
                    let len = raw.write(&mut out, &ch);
                    assert_eq!(out, encode::encode_document(&d), "{v} {d}");
                    assert_eq!(len, out.len());
                }
            }
        }
    }

    #[test]
    fn raw_filters_decide_as_the_matcher_does() {
        let ts = |time, increment| Bson::Timestamp(Timestamp { time, increment });
        for v in VERSIONS {
            let state = state(v);
            let c0 = &state.sim.cluster.collections[0];
            let uuid = ids::collection_uuid(&c0.ns, c0.incarnation);
            let epoch = ids::collection_epoch(&c0.ns, c0.incarnation, state.started_secs);
            let filters = [
                doc! {},
                doc! {"uuid": uuid.clone()},
                doc! {"ns": "app.h"},
                doc! {"ns": {"$in": ["app.r", "x"]}},
                doc! {"lastmodEpoch": epoch, "jumbo": true},
                doc! {"uuid": uuid, "lastmod": {"$gte": ts(1, 3)}},
                doc! {"ns": "app.h", "lastmod": {"$gt": ts(1, 0), "$gte": ts(0, 9)}},
                doc! {"jumbo": true},
            ];
            for f in &filters {
                let raw = RawFilter::of(Some(f)).unwrap();
                for c in &state.sim.cluster.collections {
                    let docs = ChunkDocs::of(&state, c);
                    let rc = RawChunks::of(&state, c, &raw);
                    for ch in c.table.iter() {
                        let d = docs.document(&state, c, state.sim.cluster.version, ch);
                        let want = query::matches(&d, f).unwrap();
                        assert_eq!(rc.admits(&ch), want, "{v} {f} {d}");
                    }
                }
            }
        }
        for f in [
            doc! {"shard": "shard0000"},
            doc! {"lastmod": {}},
            doc! {"lastmod": {"$lt": ts(1, 0)}},
            doc! {"jumbo": false},
            doc! {"$or": [{"jumbo": true}]},
        ] {
            assert!(RawFilter::of(Some(&f)).is_none(), "{f}");
        }
    }
}
