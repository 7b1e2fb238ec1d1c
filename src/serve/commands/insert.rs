//! `insert`: every document gets an `_id` (an ObjectId) when it has none, is refused as
//! DuplicateKey (E11000) when a kept document has its `_id`, is routed by its shard key into the
//! simulator (counted per chunk and shard, so the TUI and the summary see the write), and is kept
//! in the [`crate::serve::state::store`] up to `--max-docs`. A collection that is not sharded is counted and
//! kept, not simulated. Every acknowledged insert is recorded for change streams.

use bson::Document;

use crate::serve::reply::Answer;
use crate::serve::state::State;
use crate::serve::write_path::route::insert_one;
use crate::serve::write_path::statements::{each_statement, write_reply};

/// `insert` (`documents` from the body or an OP_MSG document sequence; `ordered` honoured).
pub fn insert(state: &mut State, db: &str, cmd: &Document) -> Answer {
    let (n, errors) = each_statement(state, db, cmd, ("insert", "documents"), |s, ns, _, d| {
        insert_one(s, ns, d.clone()).map(|_| 1)
    })?;
    Ok(write_reply(n, errors))
}
