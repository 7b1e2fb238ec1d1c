//! A keyframe written straight to the trace: the same bytes as [`super::encode`] serialized, but
//! each collection's chunks are turned into JSON one at a time as they are written, so recording
//! a million-chunk state never holds a million JSON values (about a kilobyte each).

use std::io::{self, Write};

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use crate::cluster::{Cluster, Collection};

/// Writes the keyframe line of `c` (without its newline) to `w`: byte for byte
/// `serde_json::to_writer(w, &encode(c))`.
pub fn write(c: &Cluster, w: &mut dyn Write) -> io::Result<()> {
    let line = super::encode_without_chunks(c);
    serde_json::to_writer(w, &Line { v: &line, c }).map_err(io::Error::other)
}

/// The line `{"t": …, "keyframe": {…}}`.
struct Line<'a> {
    v: &'a Value,
    c: &'a Cluster,
}

/// The `keyframe` object.
struct Frame<'a> {
    v: &'a Value,
    c: &'a Cluster,
}

/// The `collections` array.
struct Collections<'a> {
    v: &'a [Value],
    c: &'a Cluster,
}

/// One collection's object.
struct OneCollection<'a> {
    v: &'a Value,
    c: &'a Cluster,
    coll: &'a Collection,
}

/// One collection's `chunks`.
struct Chunks<'a> {
    c: &'a Cluster,
    coll: &'a Collection,
}

/// `v`'s entries, the one named `at` serialized as `with` makes it instead.
fn object_with<'a, S: Serializer, T: Serialize>(
    s: S,
    v: &'a Value,
    at: &str,
    with: impl Fn(&'a Value) -> Option<T>,
) -> Result<S::Ok, S::Error> {
    let Value::Object(o) = v else {
        return v.serialize(s);
    };
    let mut m = s.serialize_map(Some(o.len()))?;
    for (k, x) in o {
        match (k == at).then(|| with(x)).flatten() {
            Some(inner) => m.serialize_entry(k, &inner)?,
            None => m.serialize_entry(k, x)?,
        }
    }
    m.end()
}

impl Serialize for Line<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.c;
        object_with(s, self.v, "keyframe", |v| Some(Frame { v, c }))
    }
}

impl Serialize for Frame<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.c;
        object_with(s, self.v, "collections", |v| {
            let v = v.as_array()?;
            Some(Collections { v, c })
        })
    }
}

impl Serialize for Collections<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.v.len()))?;
        for (v, coll) in self.v.iter().zip(&self.c.collections) {
            seq.serialize_element(&OneCollection { v, c: self.c, coll })?;
        }
        seq.end()
    }
}

impl Serialize for OneCollection<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (c, coll) = (self.c, self.coll);
        object_with(s, self.v, "chunks", |_| Some(Chunks { c, coll }))
    }
}

impl Serialize for Chunks<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.coll.table.len()))?;
        for ch in self.coll.table.iter() {
            seq.serialize_element(&super::chunk_json(self.c, self.coll, &ch))?;
        }
        seq.end()
    }
}

/// An object whose entry `at` is serialized from `with` instead of its value.
pub(in crate::trace) struct Replaced<'a, T> {
    pub v: &'a Value,
    pub at: &'a str,
    pub with: &'a T,
}

impl<T: Serialize> Serialize for Replaced<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        object_with(s, self.v, self.at, |_| Some(self.with))
    }
}
