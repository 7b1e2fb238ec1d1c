//! What a read sees and how its answer opens a cursor: the documents of a namespace (the generated
//! config database, or the kept documents as a transaction's snapshot shows them), the note of a
//! collection whose documents are not all kept, the first batch and the cursor over the rest.
//! Shared by `find` and `aggregate`, which never import each other.
//!
//! May import `state`, `query` and `reply`, and the catalog beside it.

use std::collections::VecDeque;

use bson::{Bson, Document};

use crate::serve::catalog::config_db;
use crate::serve::state::Rest;
use crate::serve::state::State;
use crate::serve::state::encoded_docs::EncodedDocs;

/// The first batch's default size, as servers use.
pub(crate) const DEFAULT_BATCH: usize = 101;
/// A batch stops growing past this many bytes (replies stay well under 16 MB).
pub(crate) const BATCH_BYTES: usize = 8 << 20;

pub(crate) fn take_batch(docs: &mut VecDeque<Document>, n: usize) -> Vec<Bson> {
    let mut out = Vec::new();
    let mut bytes = 0;
    while out.len() < n {
        let Some(d) = docs.pop_front() else { break };
        bytes += crate::wire::document_len(&d);
        out.push(Bson::Document(d));
        if bytes > BATCH_BYTES {
            break;
        }
    }
    out
}

/// Takes a first batch (`batchSize`, default 101) and opens a cursor over the rest.
pub fn open_cursor(
    state: &mut State,
    ns: &str,
    docs: &mut VecDeque<Document>,
    batch_size: Option<i64>,
) -> (Vec<Bson>, i64) {
    let n = batch_size.map_or(DEFAULT_BATCH, |n| n.max(0) as usize);
    let first = take_batch(docs, n);
    let id = open(state, ns, std::mem::take(docs));
    (first, id)
}

/// Opens a cursor of the connection being answered over `docs` (id 0 when there are none).
pub(crate) fn open(state: &mut State, ns: &str, docs: VecDeque<Document>) -> i64 {
    if docs.is_empty() {
        return 0;
    }
    insert(state, ns, Rest::Docs(EncodedDocs::new(docs)))
}

pub(crate) fn insert(state: &mut State, ns: &str, rest: Rest) -> i64 {
    let session = state.session.clone();
    let (id, evicted) = state.cursors.open(ns, rest, state.connection, session);
    if evicted > 0 {
        let (n, held) = state.cursors.usage();
        crate::serve::state::log::line(
            state.log.as_deref(),
            &format!(
                "killed the {evicted} least recently read cursors: open cursors would hold over \
                 {} bytes ({n} open, {held} bytes)",
                crate::serve::state::cursors::CURSOR_BUDGET
            ),
        );
    }
    id
}

/// The documents of `db.coll`: the config database is generated, other collections are kept.
pub fn documents(state: &State, db: &str, coll: &str) -> Vec<Document> {
    if db == "config" {
        config_db::documents(state, coll).unwrap_or_default()
    } else {
        let ns = format!("{db}.{coll}");
        let Some(mut view) = state.sessions.view(&ns) else {
            return state.store.iter(&ns).map(|(_, s)| s.doc.clone()).collect();
        };
        // A transaction's snapshot or another's locked documents: their versions instead.
        let mut out: Vec<Document> = state
            .store
            .iter(&ns)
            .filter_map(|(_, s)| {
                let id = crate::model::extjson::from_bson(s.doc.get("_id").unwrap_or(&Bson::Null));
                match view.remove(&id) {
                    Some(v) => v,
                    None => Some(s.doc.clone()),
                }
            })
            .collect();
        out.extend(view.into_values().flatten());
        out
    }
}

/// `reply` with the note of a read on `db.coll` whose documents are not all kept.
pub fn with_note(state: &State, db: &str, coll: &str, mut reply: Document) -> Document {
    if db != "config"
        && let Some(note) = state.read_note(&format!("{db}.{coll}"))
    {
        reply.insert("shardtop", note);
    }
    reply
}
