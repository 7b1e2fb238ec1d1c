//! A cursor's documents as a replayed capture holds them: one buffer of BSON bytes, the documents
//! end to end, and where each ends — about the bytes the server sent (a `config.chunks` document
//! is some 200 bytes this way; a `Document` of the same fields, a map of owned names and values,
//! several times that). `open` keeps a capture's documents only this way, read straight from the
//! file, and hands them to the poller raw, as a cluster's driver does.
//!
//! Owns: the packing of documents. May not touch: what the documents mean.

use bson::{Document, RawDocument, RawDocumentBuf};

/// Documents packed end to end. A document that cannot be written as BSON (a field name holding
/// a NUL byte, which Extended JSON can spell) keeps the read in [`Documents::Kept`], so that the
/// poller meets the same error at the same document as it did before.
#[derive(Clone, Debug, PartialEq)]
pub enum Documents {
    Packed(Packed),
    Kept(Vec<Document>),
}

/// The BSON bytes of the documents, end to end, and each one's end.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packed {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Default for Documents {
    fn default() -> Self {
        Self::Packed(Packed::default())
    }
}

impl Packed {
    /// The buffer, for a parser writing a document straight at its end (then
    /// [`Packed::end_document`]).
    pub(super) fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Marks the end of the buffer as the end of a whole BSON document just written.
    pub(super) fn end_document(&mut self) {
        self.ends.push(self.bytes.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The documents in order, raw.
    pub fn iter(&self) -> impl Iterator<Item = &RawDocument> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(|(s, e)| {
            RawDocument::from_bytes(&self.bytes[s..e])
                .unwrap_or_else(|_| unreachable!("only whole BSON documents are packed"))
        })
    }
}

impl Documents {
    /// Packs `docs` (kept as they are when one cannot be written as BSON).
    pub fn of(docs: Vec<Document>) -> Self {
        let mut out = Self::default();
        for d in docs {
            out.push(d);
        }
        out.shrink();
        out
    }

    /// Adds a document at the end.
    pub fn push(&mut self, d: Document) {
        match self {
            Self::Packed(p) => {
                if let Ok(raw) = RawDocumentBuf::from_document(&d) {
                    p.bytes.extend_from_slice(raw.as_bytes());
                    p.ends.push(p.bytes.len());
                } else {
                    let mut kept: Vec<Document> = p
                        .iter()
                        .filter_map(|r| Document::try_from(r).ok())
                        .collect();
                    kept.push(d);
                    *self = Self::Kept(kept);
                }
            }
            Self::Kept(v) => v.push(d),
        }
    }

    /// Adds packed documents at the end.
    pub fn append(&mut self, more: Packed) {
        match self {
            Self::Packed(p) if p.ends.is_empty() => *p = more,
            Self::Packed(p) => {
                let base = p.bytes.len();
                p.bytes.extend_from_slice(&more.bytes);
                p.ends.extend(more.ends.iter().map(|e| e + base));
            }
            Self::Kept(v) => v.extend(more.iter().filter_map(|r| Document::try_from(r).ok())),
        }
    }

    /// Gives back the room reserved for more documents.
    pub fn shrink(&mut self) {
        match self {
            Self::Packed(p) => {
                p.bytes.shrink_to_fit();
                p.ends.shrink_to_fit();
            }
            Self::Kept(v) => v.shrink_to_fit(),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Self::Packed(p) => p.len(),
            Self::Kept(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The documents as `Document`s (a packed document always reads back).
    pub fn to_vec(&self) -> Vec<Document> {
        match self {
            Self::Packed(p) => p
                .iter()
                .filter_map(|r| Document::try_from(r).ok())
                .collect(),
            Self::Kept(v) => v.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn documents_read_back_as_packed_and_a_nul_name_keeps_them_whole() {
        let docs = vec![doc! {"a": 1_i64, "b": {"c": "x"}}, doc! {"d": [1, 2.5]}];
        let packed = Documents::of(docs.clone());
        assert!(matches!(packed, Documents::Packed(_)));
        assert_eq!(packed.len(), 2);
        assert_eq!(packed.to_vec(), docs);
        let mut bad = docs.clone();
        bad.push(doc! {"a\u{0}b": 1});
        bad.push(doc! {"e": 2});
        let kept = Documents::of(bad.clone());
        assert!(matches!(kept, Documents::Kept(_)));
        assert_eq!(kept.to_vec(), bad);
        assert!(Documents::default().is_empty());
    }
}
