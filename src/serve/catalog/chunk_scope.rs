//! Which collections a `config.chunks` read can touch, and in which order it can read their
//! chunks without sorting documents — what a config server gets from its indexes on
//! `config.chunks`: `{uuid: 1, min: 1}` (5.0+; `{ns: 1, min: 1}` before) and
//! `{uuid: 1, lastmod: 1}` (`{ns: 1, lastmod: 1}`). 8.0
// `src/mongo/db/s/config/sharding_catalog_manager.cpp` (`createIndexesForConfigChunks`:
// `ChunkType::collectionUUID() << 1 << ChunkType::min() << 1` unique, and
// `ChunkType::collectionUUID() << 1 << ChunkType::lastmod() << 1`).
//!
//! A filter naming one collection by an exact `uuid` (or, before 5.0, `ns`) is answered from that
//! collection alone, found through [`State::chunk_uuids`] (uuid → namespace) in constant time,
//! so a read's cost follows its answer, not the number of collections. Owns the resolution and
//! the order; may not build documents (`chunks_cursor`, `raw_chunks` do).

use std::borrow::Cow;

use bson::{Bson, Document};

use crate::cluster::Collection;
use crate::model::RoutingTable;
use crate::serve::catalog::{ids, system_sessions};
use crate::serve::state::State;

/// The collections a read of `config.chunks` reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkScope {
    /// Every collection of the catalog, in namespace order.
    All,
    /// One collection: its namespace and incarnation when the read began (a collection
    /// resharded since has another uuid, so no more chunks).
    One { ns: String, incarnation: u32 },
    /// The filter names a collection that does not exist.
    Nothing,
}

impl ChunkScope {
    /// The scope `filter` puts on the read: an exact `uuid` (5.0+) or `ns` (before 5.0), as a
    /// value or `{$eq: value}`, names one collection; anything else reads them all (the full
    /// filter is still applied to every document).
    pub fn of(state: &mut State, filter: Option<&Document>) -> Self {
        let by_uuid = state.sim.cluster.version.chunks_by_uuid();
        let Some(value) = filter.and_then(|f| exact(f, if by_uuid { "uuid" } else { "ns" })) else {
            return Self::All;
        };
        let ns = match (by_uuid, value) {
            (true, Bson::Binary(b)) => match <[u8; 16]>::try_from(b.bytes.as_slice()) {
                Ok(uuid) => namespace_of(state, uuid),
                Err(_) => None,
            },
            (false, Bson::String(ns)) => Some(ns.clone()),
            // A value of another type matches no chunk document's field.
            _ => None,
        };
        match ns.and_then(|ns| entry(state, &ns).map(|c| (ns, c.incarnation))) {
            Some((ns, incarnation)) => Self::One { ns, incarnation },
            None => Self::Nothing,
        }
    }

    /// The collections to read now, in namespace order.
    pub fn collections<'s>(&self, state: &'s State) -> Vec<Cow<'s, Collection>> {
        match self {
            Self::All => state.catalog(),
            Self::One { ns, incarnation } => entry(state, ns)
                .filter(|c| c.incarnation == *incarnation)
                .into_iter()
                .collect(),
            Self::Nothing => Vec::new(),
        }
    }
}

/// The value `filter` requires of top-level `field` exactly, if it does.
fn exact<'f>(filter: &'f Document, field: &str) -> Option<&'f Bson> {
    match filter.get(field)? {
        Bson::Document(ops) => match (ops.len(), ops.get("$eq")) {
            (1, Some(v)) if !matches!(v, Bson::Document(_) | Bson::Array(_)) => Some(v),
            _ => None,
        },
        Bson::Array(_) | Bson::RegularExpression(_) => None,
        v => Some(v),
    }
}

/// The catalog's collection `ns` (`config.system.sessions` included).
fn entry<'s>(state: &'s State, ns: &str) -> Option<Cow<'s, Collection>> {
    match state.sim.cluster.collection(ns) {
        Some(c) => Some(Cow::Borrowed(c)),
        None if ns == system_sessions::NS => {
            system_sessions::collection(&state.sim.cluster).map(Cow::Owned)
        }
        None => None,
    }
}

/// The uuid's bytes of the catalog's collection `c`.
fn uuid_of(c: &Collection) -> Option<[u8; 16]> {
    match ids::collection_uuid(&c.ns, c.incarnation) {
        Bson::Binary(b) => b.bytes.as_slice().try_into().ok(),
        _ => None,
    }
}

/// The namespace of the collection whose uuid is `uuid`: from the index when it still holds
/// (checked against the collection's uuid now), else after rebuilding the index from the catalog
/// (a new, resharded or unknown uuid: one pass over the collections).
fn namespace_of(state: &mut State, uuid: [u8; 16]) -> Option<String> {
    let holds =
        |state: &State, ns: &String| entry(state, ns).is_some_and(|c| uuid_of(&c) == Some(uuid));
    if let Some(ns) = state.chunk_uuids.get(&uuid)
        && holds(state, ns)
    {
        return Some(ns.clone());
    }
    let index = state
        .catalog()
        .iter()
        .filter_map(|c| Some((uuid_of(c)?, c.ns.clone())))
        .collect();
    state.chunk_uuids = index;
    state.chunk_uuids.get(&uuid).cloned()
}

/// A sort a collection's routing table answers in order: on `min` or `max` (the table is in key
/// order, and each chunk's `max` is the next one's `min`) or on `lastmod`, ascending or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkOrder {
    /// Key order: `min`/`max` ascending.
    Key,
    /// Reverse key order.
    KeyDesc,
    /// By `lastmod` (the chunk version), ascending or not.
    Lastmod { desc: bool },
}

impl ChunkOrder {
    /// The order `sort` asks for, when it is one of these (one field, 1 or -1).
    pub fn of(sort: &Document) -> Option<Self> {
        let mut it = sort.iter();
        let (field, dir) = it.next()?;
        if it.next().is_some() {
            return None;
        }
        let desc = match dir {
            Bson::Int32(1) | Bson::Int64(1) => false,
            Bson::Int32(-1) | Bson::Int64(-1) => true,
            Bson::Double(d) if d.to_bits() == 1f64.to_bits() => false,
            Bson::Double(d) if d.to_bits() == (-1f64).to_bits() => true,
            _ => return None,
        };
        Some(match (field.as_str(), desc) {
            ("min" | "max", false) => Self::Key,
            ("min" | "max", true) => Self::KeyDesc,
            ("lastmod", desc) => Self::Lastmod { desc },
            _ => return None,
        })
    }

    /// The chunk indexes of `table` in this order, when it is by `lastmod` (`None`: key order
    /// or its reverse, nothing to hold). Ties in `lastmod` keep key order.
    pub fn permutation(self, table: &RoutingTable) -> Option<Vec<u32>> {
        match self {
            Self::Key | Self::KeyDesc => None,
            Self::Lastmod { desc } => {
                let mut order: Vec<(u64, u32)> = table
                    .iter()
                    .enumerate()
                    .map(|(i, ch)| {
                        let v = (u64::from(ch.info.version.major) << 32)
                            | u64::from(ch.info.version.minor);
                        (v, i as u32)
                    })
                    .collect();
                if desc {
                    order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                } else {
                    order.sort_unstable();
                }
                Some(order.into_iter().map(|(_, i)| i).collect())
            }
        }
    }
}
