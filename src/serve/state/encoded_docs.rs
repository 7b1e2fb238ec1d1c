//! The documents a cursor has left, encoded back to back: a few bytes each (their BSON) instead of
//! a decoded document's heap nodes, so an open cursor holds about what its results weigh on the
//! wire, and a read frees what it sends.

use bson::Document;

use crate::serve::reply::raw_reply::EncodedBatch;
use crate::wire::encode;

/// Encoded documents, read from the front.
pub struct EncodedDocs {
    bytes: Vec<u8>,
    at: usize,
}

impl EncodedDocs {
    pub fn new(docs: impl IntoIterator<Item = Document>) -> Self {
        let mut bytes = Vec::new();
        for d in docs {
            encode::document(&mut bytes, &d);
        }
        bytes.shrink_to_fit();
        Self { bytes, at: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// Bytes held.
    pub fn held(&self) -> usize {
        self.bytes.capacity()
    }

    /// The next `n` documents (fewer once `max_bytes` is passed), as a BSON array's bytes.
    pub fn next_batch(&mut self, n: usize, max_bytes: usize) -> EncodedBatch {
        let mut out = Vec::new();
        let mut len = 0;
        let mut key = encode::itoa_buf();
        let start = self.at;
        encode::framed(&mut out, |out| {
            while len < n && self.at - start <= max_bytes {
                let Some(size) = self.next_len() else { break };
                encode::document_item(out, &mut key, len);
                out.extend_from_slice(&self.bytes[self.at..self.at + size]);
                self.at += size;
                len += 1;
            }
        });
        if self.at > self.bytes.len() / 2 {
            self.bytes.drain(..self.at);
            self.bytes.shrink_to_fit();
            self.at = 0;
        }
        EncodedBatch { bytes: out, len }
    }

    fn next_len(&self) -> Option<usize> {
        let head: [u8; 4] = self.bytes.get(self.at..self.at + 4)?.try_into().ok()?;
        usize::try_from(i32::from_le_bytes(head))
            .ok()
            .filter(|n| self.at + n <= self.bytes.len())
    }
}
