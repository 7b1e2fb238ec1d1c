//! A typed fast path for keyframe lines: the bulky parts of each collection (its chunks and its
//! recent-writes window) are parsed straight into keys and counts; the rest of the keyframe is
//! read as JSON values by the same code as the full path (`state_codec`). Any line this path
//! does not take, it leaves to the full path, which gives the error.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::KeyDoc;
use super::canonical::Cursor;
use crate::cluster::window::WriteWindow;
use crate::cluster::{Cluster, Collection};
use crate::model::{ChunkStats, ShardKey};
use crate::trace::json::{Res, ms_of_seconds};
use crate::trace::state_codec::{self, ChunkFields, Heavy};

/// `[major, minor, …]`.
struct Version(u64, u64);

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Version;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("[major, minor]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Version, A::Error> {
                let missing = || de::Error::custom("expected [major, minor]");
                let major = seq.next_element::<u64>()?.ok_or_else(missing)?;
                let minor = seq.next_element::<u64>()?.ok_or_else(missing)?;
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Version(major, minor))
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
struct Chunk<'a> {
    min: KeyDoc,
    #[serde(borrow)]
    shard: Cow<'a, str>,
    v: Version,
    docs: u64,
    bytes: u64,
    writes: u64,
    jumbo: bool,
    since: u64,
    written: Option<u64>,
}

/// `[key, count, …]` of a window tick.
struct Pair(ShardKey, u64);

impl<'de> Deserialize<'de> for Pair {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pair;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("[key, count]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Pair, A::Error> {
                let missing = || de::Error::custom("expected [key, count]");
                let key = seq.next_element::<KeyDoc>()?.ok_or_else(missing)?;
                let n = seq.next_element::<u64>()?.ok_or_else(missing)?;
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Pair(key.0, n))
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
struct Tick {
    keys: Vec<Pair>,
    shards: Vec<u64>,
    /// Absent in traces older than the field (the tick is then left out).
    #[serde(default, rename = "atMs")]
    at_ms: Option<u64>,
}

/// The chunks, as written (`Cursor`) or else through serde.
fn chunks_of<E: de::Error>(raw: &RawValue) -> Result<Vec<Chunk<'_>>, E> {
    let mut c = Cursor::new(raw.get());
    if let Some(chunks) = c.list(chunk).filter(|_| c.at_end()) {
        return Ok(chunks);
    }
    serde_json::from_str(raw.get()).map_err(de::Error::custom)
}

/// `{"min":…,"shard":…,"v":[…],"docs":…,"bytes":…,"writes":…,"jumbo":…,"since":…,"written":…}`.
fn chunk<'a>(c: &mut Cursor<'a>) -> Option<Chunk<'a>> {
    c.expect(b"{\"min\":")?;
    let min = KeyDoc(c.key_doc()?);
    c.expect(b",\"shard\":\"")?;
    let shard = Cow::Borrowed(c.plain_str()?);
    c.expect(b",\"v\":[")?;
    let major = c.u64()?;
    c.expect(b",")?;
    let minor = c.u64()?;
    c.expect(b"],\"docs\":")?;
    let docs = c.u64()?;
    c.expect(b",\"bytes\":")?;
    let bytes = c.u64()?;
    c.expect(b",\"writes\":")?;
    let writes = c.u64()?;
    c.expect(b",\"jumbo\":")?;
    let jumbo = c.bool()?;
    c.expect(b",\"since\":")?;
    let since = c.u64()?;
    c.expect(b",\"written\":")?;
    let written = if c.eat(b"null") { None } else { Some(c.u64()?) };
    c.expect(b"}")?;
    Some(Chunk {
        min,
        shard,
        v: Version(major, minor),
        docs,
        bytes,
        writes,
        jumbo,
        since,
        written,
    })
}

/// The recent-writes window, as written (`Cursor`) or else through serde.
fn window_of<E: de::Error>(raw: &RawValue) -> Result<Vec<Tick>, E> {
    let mut c = Cursor::new(raw.get());
    if let Some(ticks) = c.list(tick).filter(|_| c.at_end()) {
        return Ok(ticks);
    }
    serde_json::from_str(raw.get()).map_err(de::Error::custom)
}

/// `{"keys":[[key,count],…],"shards":[…],"atMs":…}` (`atMs` optional).
fn tick(c: &mut Cursor<'_>) -> Option<Tick> {
    c.expect(b"{\"keys\":")?;
    let keys = c.list(|c| {
        c.expect(b"[")?;
        let key = c.key_doc()?;
        c.expect(b",")?;
        let n = c.u64()?;
        c.expect(b"]")?;
        Some(Pair(key, n))
    })?;
    c.expect(b",\"shards\":")?;
    let shards = c.list(Cursor::u64)?;
    let at_ms = if c.eat(b",\"atMs\":") {
        Some(c.u64()?)
    } else {
        None
    };
    c.expect(b"}")?;
    Some(Tick {
        keys,
        shards,
        at_ms,
    })
}

/// A keyframe collection: chunks and window typed, every other field as a JSON value.
struct CollectionLine<'a> {
    rest: Map<String, Value>,
    chunks: Vec<Chunk<'a>>,
    window: Vec<Tick>,
}

impl<'de: 'a, 'a> Deserialize<'de> for CollectionLine<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = CollectionLine<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a keyframe collection")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut rest, mut chunks, mut window) = (Map::new(), None, None);
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "chunks" if chunks.is_none() => {
                            chunks = Some(chunks_of(map.next_value::<&'de RawValue>()?)?);
                        }
                        "window" if window.is_none() => {
                            window = Some(window_of(map.next_value::<&'de RawValue>()?)?);
                        }
                        "chunks" | "window" => return Err(de::Error::custom("duplicate field")),
                        _ => {
                            rest.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                let missing = || de::Error::custom("missing chunks or window");
                Ok(CollectionLine {
                    rest,
                    chunks: chunks.ok_or_else(missing)?,
                    window: window.ok_or_else(missing)?,
                })
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// The `keyframe` object: collections typed, every other field as a JSON value.
struct Frame<'a> {
    rest: Value,
    collections: Vec<CollectionLine<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Frame<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Frame<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a keyframe")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut rest, mut collections) = (Map::new(), None);
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    if key == "collections" {
                        if collections.is_some() {
                            return Err(de::Error::custom("duplicate field"));
                        }
                        collections = Some(map.next_value()?);
                    } else {
                        rest.insert(key.into_owned(), map.next_value()?);
                    }
                }
                Ok(Frame {
                    rest: Value::Object(rest),
                    collections: collections
                        .ok_or_else(|| de::Error::custom("missing collections"))?,
                })
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct KeyframeLine<'a> {
    t: f64,
    #[serde(borrow)]
    keyframe: Frame<'a>,
}

/// Whether a raw line looks like a keyframe as this program writes it (`t` first, then
/// `keyframe`).
pub fn is_keyframe(text: &[u8]) -> bool {
    text.starts_with(b"{\"t\":")
        && text
            .get(..40)
            .unwrap_or(text)
            .windows(12)
            .any(|w| w == b",\"keyframe\":")
}

/// Reads a keyframe line into a state, as `state_codec::decode` of the same line would; `None`
/// when this path does not take the line (the full path then reads it, or says what is wrong).
pub fn keyframe(text: &[u8]) -> Option<Cluster> {
    let line: KeyframeLine = serde_json::from_slice(text).ok()?;
    let Frame { rest, collections } = line.keyframe;
    state_codec::decode_frame(ms_of_seconds(line.t), &rest, move |cluster| {
        collections
            .into_iter()
            .enumerate()
            .map(|(i, c)| collection(cluster, c, &format!("keyframe.collections[{i}].")))
            .collect()
    })
    .ok()
}

fn collection(cluster: &Cluster, c: CollectionLine<'_>, p: &str) -> Res<Collection> {
    let chunks = c
        .chunks
        .into_iter()
        .map(|ch| {
            let fields = ChunkFields {
                shard: state_codec::shard_of(cluster, &ch.shard, p)?,
                major: ch.v.0,
                minor: ch.v.1,
                stats: ChunkStats::new(ch.docs, ch.bytes, ch.writes),
                jumbo: ch.jumbo,
                since: ch.since,
                written: ch.written.unwrap_or(0),
            };
            Ok((ch.min.0, fields.info()))
        })
        .collect::<Res<Vec<_>>>()?;
    let mut window = WriteWindow::new();
    // A tick without `atMs` (older traces) is left out: when its writes happened is unknown.
    for t in c.window {
        if let Some(at) = t.at_ms {
            window.restore(
                at,
                t.keys.into_iter().map(|p| (p.0, p.1)).collect(),
                t.shards,
            );
        }
    }
    let heavy = Heavy { chunks, window };
    state_codec::collection_of(cluster, &Value::Object(c.rest), p, Some(heavy))
}
