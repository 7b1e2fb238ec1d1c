//! What a command answers: a reply document, or a cursor reply whose batch is already BSON bytes
//! (a lazy `config.chunks` read writes its documents straight into bytes; see
//! [`crate::serve::catalog::raw_chunks`]), encoded into the same bytes the document would give.

use bson::{Bson, Document};

use crate::wire::encode;

/// Documents already encoded: the bytes of one BSON array, and how many documents it holds.
pub struct EncodedBatch {
    pub bytes: Vec<u8>,
    pub len: usize,
}

/// A command's answer.
pub enum Reply {
    Doc(Document),
    /// `{cursor: {firstBatch|nextBatch: <batch>, id, ns}, ok: 1.0}`.
    Cursor {
        first: bool,
        batch: EncodedBatch,
        id: i64,
        ns: String,
        /// Encoded elements after `ok` (`$clusterTime`, `operationTime`).
        tail: Vec<u8>,
    },
}

impl From<Document> for Reply {
    fn from(d: Document) -> Self {
        Self::Doc(d)
    }
}

impl Reply {
    /// The encoded length of the reply document.
    pub fn encoded_len(&self) -> usize {
        match self {
            Self::Doc(d) => crate::wire::document_len(d),
            Self::Cursor {
                first,
                batch,
                ns,
                tail,
                ..
            } => {
                // {cursor: {<key>: batch, id: long, ns: string}, ok: double}
                let key = if *first { 11 } else { 10 };
                let cursor =
                    4 + (1 + key + batch.bytes.len()) + 12 + (1 + 3 + 4 + ns.len() + 1) + 1;
                4 + (1 + 7 + cursor) + 12 + tail.len() + 1
            }
        }
    }

    /// Appends the encoded reply document to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Self::Doc(d) => encode::document(out, d),
            Self::Cursor {
                first,
                batch,
                id,
                ns,
                tail,
            } => encode::framed(out, |out| {
                out.push(bson::spec::ElementType::EmbeddedDocument as u8);
                out.extend_from_slice(b"cursor\0");
                encode::framed(out, |out| {
                    out.push(bson::spec::ElementType::Array as u8);
                    let key: &[u8] = if *first {
                        b"firstBatch\0"
                    } else {
                        b"nextBatch\0"
                    };
                    out.extend_from_slice(key);
                    out.extend_from_slice(&batch.bytes);
                    encode::element(out, "id", &Bson::Int64(*id));
                    encode::element(out, "ns", &Bson::String(ns.clone()));
                });
                encode::element(out, "ok", &Bson::Double(1.0));
                out.extend_from_slice(tail);
            }),
        }
    }

    /// Appends `$clusterTime` and `operationTime` as a mongos does (`VectorClock`'s signed
    /// format: a zero signature when the cluster runs without keys).
    pub fn with_cluster_time(mut self, at: bson::Timestamp) -> Self {
        let fields = [
            (
                "$clusterTime",
                Bson::Document(bson::doc! {
                    "clusterTime": at,
                    "signature": {
                        "hash": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![0; 20] },
                        "keyId": 0_i64,
                    },
                }),
            ),
            ("operationTime", Bson::Timestamp(at)),
        ];
        match &mut self {
            Self::Doc(d) => {
                for (k, v) in fields {
                    d.insert(k, v);
                }
            }
            Self::Cursor { tail, .. } => {
                for (k, v) in &fields {
                    encode::element(tail, k, v);
                }
            }
        }
        self
    }

    /// How many documents a cursor reply carries (`find`, `getMore`, `aggregate`), for the log.
    pub fn returned(&self) -> Option<usize> {
        match self {
            Self::Doc(d) => {
                let cursor = d.get_document("cursor").ok()?;
                cursor
                    .get_array("firstBatch")
                    .or_else(|_| cursor.get_array("nextBatch"))
                    .ok()
                    .map(Vec::len)
            }
            Self::Cursor { batch, .. } => Some(batch.len),
        }
    }
}

#[cfg(test)]
mod tests {
    use bson::doc;

    use super::*;

    #[test]
    fn an_encoded_cursor_reply_is_the_encoded_reply_document() {
        let docs = [doc! {"a": 1, "s": "x"}, doc! {"b": {"c": [1, 2]}}];
        let array: Vec<Bson> = docs.iter().cloned().map(Bson::Document).collect();
        // The array's bytes: `{k: array}` without its length, type byte, "k\0" and closing NUL.
        let wrapped = encode::encode_document(&doc! {"k": array.clone()});
        let bytes = wrapped[4 + 1 + 2..wrapped.len() - 1].to_vec();
        for first in [true, false] {
            let key = if first { "firstBatch" } else { "nextBatch" };
            let want = doc! {"cursor": {key: array.clone(), "id": 7_i64, "ns": "config.chunks"}, "ok": 1.0};
            let reply = Reply::Cursor {
                first,
                batch: EncodedBatch {
                    bytes: bytes.clone(),
                    len: 2,
                },
                id: 7,
                ns: "config.chunks".into(),
                tail: Vec::new(),
            };
            let mut out = Vec::new();
            reply.write(&mut out);
            assert_eq!(out, encode::encode_document(&want));
            assert_eq!(reply.encoded_len(), out.len());
            assert_eq!(reply.returned(), Some(2));
        }
    }
}
