//! A sorted `find` on `config.chunks` (and an `aggregate` starting with `$sort`, `commands::aggregate::chunk_sort`) that no index order answers (several collections, or a
//! sort on other fields): a blocking sort over the chunk documents built in batches, bounded as
//! mongod bounds it. With a limit it keeps only the best `skip + limit` documents (top-k, as
//! mongod's sort stage with a limit does); without one it holds every match and fails once
//! they pass [`MAX_BLOCKING_SORT_BYTES`] unless disk use is allowed. Owns that bound only.
// 8.0 `src/mongo/db/query/query_knobs.idl`: `internalQueryMaxBlockingSortMemoryUsageBytes`,
// default 100 * 1024 * 1024; `src/mongo/db/sorter/sorter.cpp`: past it without disk use,
// `uasserted(ErrorCodes::QueryExceededMemoryLimitNoDiskUseAllowed, "Sort exceeded memory limit
// of " << maxMemoryUsageBytes << " bytes, but did not opt in to external sorting.")`, which
// `src/mongo/db/commands/find_cmd.cpp` prefixes "Executor error during find command :: caused
// by :: ". From 6.0 `allowDiskUseByDefault` (`query_knobs.idl`, default true) lets a find that
// does not say `allowDiskUse: false` spill to disk.

use bson::{Bson, Document};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::catalog::chunks_cursor::ChunkCursor;
use crate::serve::query;
use crate::serve::state::State;

/// What a blocking sort may hold in memory without spilling to disk.
pub const MAX_BLOCKING_SORT_BYTES: usize = 100 * 1024 * 1024;

/// The documents built per step (the deadline is checked between steps).
const STEP: usize = 4096;

/// Whether `cmd` lets its sort spill to disk on server version `v`. `serve` has no disk to
/// spill to: an allowed sort is done in memory.
pub fn disk_use_allowed(cmd: &Document, v: ServerVersion) -> bool {
    match cmd.get("allowDiskUse") {
        Some(Bson::Boolean(b)) => *b,
        _ => v >= ServerVersion::V6_0,
    }
}

/// The error of a blocking sort past its memory limit.
pub fn exceeded() -> MongoError {
    MongoError::location(
        292,
        "QueryExceededMemoryLimitNoDiskUseAllowed",
        format!(
            "Executor error during find command :: caused by :: Sort exceeded memory limit of \
             {MAX_BLOCKING_SORT_BYTES} bytes, but did not opt in to external sorting."
        ),
    )
}

/// The documents `cursor` reads, sorted by `sort`, skipped and limited: at most
/// `skip + limit` held at once when there is a limit.
pub fn sorted(
    state: &State,
    mut cursor: ChunkCursor,
    sort: &Document,
    skip: usize,
    limit: Option<usize>,
    allow_disk: bool,
) -> Result<Vec<Document>, MongoError> {
    // Checks the sort spec before reading anything.
    query::sort(&mut [], sort)?;
    let keep = limit.map(|l| skip.saturating_add(l));
    let mut held: Vec<Document> = Vec::new();
    let mut bytes = 0usize;
    while !cursor.done(state) {
        crate::serve::query::deadline::check()?;
        let batch = cursor.next_documents_built(state, STEP);
        if batch.is_empty() && cursor.done(state) {
            break;
        }
        for d in batch {
            if let Bson::Document(d) = d {
                if keep.is_none() {
                    bytes += crate::wire::document_len(&d);
                }
                held.push(d);
            }
        }
        match keep {
            // Top-k: sort and cut whenever twice k are held.
            Some(k) if held.len() >= k.saturating_mul(2).max(STEP) => {
                query::sort(&mut held, sort)?;
                held.truncate(k);
            }
            None if bytes > MAX_BLOCKING_SORT_BYTES && !allow_disk => return Err(exceeded()),
            _ => {}
        }
    }
    query::sort(&mut held, sort)?;
    if let Some(k) = keep {
        held.truncate(k);
    }
    held.drain(..skip.min(held.len()));
    Ok(held)
}
