//! An aggregation on `config.chunks` that starts with `[$match,] $sort[, $skip][, $limit]`: read
//! as `find` reads such a sort — in the routing table's order when the match names one
//! collection and the sort is `min`, `max` or `lastmod` (as the config server's `{uuid: 1, min:
//! 1}` and `{uuid: 1, lastmod: 1}` indexes give it), otherwise a blocking sort that keeps only the
//! best `skip + limit` documents with a limit (top-k) and fails past 100 MB without one unless
//! disk use is allowed. The rest of the pipeline runs on what it returns.
// 8.0 `src/mongo/db/pipeline/document_source_sort.cpp` (a `$sort` followed by `$limit` keeps
// only the limit's documents: `DocumentSourceSort::optimizeAt` absorbs the `$limit`);
// `src/mongo/db/pipeline/pipeline_d.cpp` (a leading `$match` + `$sort` is pushed down to the
// query layer, which uses an index order when one gives it); the memory limit and its error as
// in `find` (`blocking_sort`), in the aggregation's words (`PlanExecutor error during
// aggregation :: caused by :: …`, `src/mongo/db/pipeline/plan_executor_pipeline.cpp`).

use bson::{Bson, Document};

use crate::cluster::{MongoError, ServerVersion};
use crate::serve::catalog::blocking_sort;
use crate::serve::catalog::chunk_scope::{ChunkOrder, ChunkScope};
use crate::serve::catalog::chunks_cursor::ChunkCursor;
use crate::serve::query;
use crate::serve::state::State;

/// The documents built per step (the deadline is checked between steps).
const STEP: usize = 4096;

/// The leading stages this read answers: the filter, the sort, the skip and limit, and how many
/// stages they are.
struct Leading<'a> {
    filter: Option<&'a Document>,
    sort: &'a Document,
    skip: usize,
    limit: Option<usize>,
    consumed: usize,
}

fn count(v: &Bson) -> Option<usize> {
    match v {
        Bson::Int32(n) if *n >= 0 => usize::try_from(*n).ok(),
        Bson::Int64(n) if *n >= 0 => usize::try_from(*n).ok(),
        Bson::Double(d) if *d >= 0.0 && d.fract() == 0.0 && *d < 1e15 => Some(*d as usize),
        _ => None,
    }
}

fn leading(pipeline: &[Bson]) -> Option<Leading<'_>> {
    let stage = |i: usize| -> Option<(&str, &Bson)> {
        let d = pipeline.get(i)?.as_document()?;
        if d.len() != 1 {
            return None;
        }
        d.iter().next().map(|(k, v)| (k.as_str(), v))
    };
    let mut i = 0;
    let mut filter = None;
    if let Some(("$match", Bson::Document(f))) = stage(0) {
        filter = Some(f);
        i = 1;
    }
    let Some(("$sort", Bson::Document(sort))) = stage(i) else {
        return None;
    };
    i += 1;
    let mut skip = 0;
    if let Some(("$skip", n)) = stage(i) {
        skip = count(n)?;
        i += 1;
    }
    let mut limit = None;
    if let Some(("$limit", n)) = stage(i) {
        // `$limit: 0` is the general path's error.
        limit = Some(count(n).filter(|l| *l > 0)?);
        i += 1;
    }
    Some(Leading {
        filter,
        sort,
        skip,
        limit,
        consumed: i,
    })
}

/// Whether an aggregation may spill its sort to disk on server version `v` (the same rule as
/// `find`: `allowDiskUse`, or from 6.0 `allowDiskUseByDefault`).
fn disk_use_allowed(cmd: &Document, v: ServerVersion) -> bool {
    blocking_sort::disk_use_allowed(cmd, v)
}

/// The documents the leading stages return and how many stages they are; `None` when the
/// pipeline does not start so.
pub fn read(
    state: &mut State,
    cmd: &Document,
    pipeline: &[Bson],
) -> Option<Result<(Vec<Document>, usize), MongoError>> {
    let lead = leading(pipeline)?;
    Some(answer(state, cmd, &lead).map(|docs| (docs, lead.consumed)))
}

fn answer(
    state: &mut State,
    cmd: &Document,
    lead: &Leading<'_>,
) -> Result<Vec<Document>, MongoError> {
    if let Some(f) = lead.filter {
        query::matches(&Document::new(), f)?;
    }
    query::sort(&mut [], lead.sort)?;
    let scope = ChunkScope::of(state, lead.filter);
    let order = (scope != ChunkScope::All)
        .then(|| ChunkOrder::of(lead.sort))
        .flatten();
    let Some(order) = order else {
        let cursor = ChunkCursor::new(lead.filter, None, 0, None).scoped(scope, ChunkOrder::Key);
        let allow = disk_use_allowed(cmd, state.sim.cluster.version);
        return blocking_sort::sorted(state, cursor, lead.sort, lead.skip, lead.limit, allow)
            .map_err(in_aggregation);
    };
    let mut cursor =
        ChunkCursor::new(lead.filter, None, lead.skip, lead.limit).scoped(scope, order);
    let mut out = Vec::new();
    while !cursor.done(state) {
        crate::serve::query::deadline::check()?;
        let batch = cursor.next_documents_built(state, STEP);
        if batch.is_empty() && cursor.done(state) {
            break;
        }
        out.extend(batch.into_iter().filter_map(|d| match d {
            Bson::Document(d) => Some(d),
            _ => None,
        }));
    }
    Ok(out)
}

/// The memory limit's error in an aggregation's words.
fn in_aggregation(e: MongoError) -> MongoError {
    if e.code != 292 {
        return e;
    }
    MongoError {
        message: e.message.replacen(
            "Executor error during find command",
            "PlanExecutor error during aggregation",
            1,
        ),
        ..e
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn pipeline(stages: Vec<Document>) -> Vec<Bson> {
        stages.into_iter().map(Bson::Document).collect()
    }

    #[test]
    fn the_leading_match_sort_skip_and_limit_are_read_together() {
        let p = pipeline(vec![
            doc! {"$match": {"uuid": 1}},
            doc! {"$sort": {"max": -1}},
            doc! {"$skip": 2},
            doc! {"$limit": 5},
            doc! {"$project": {"min": 1}},
        ]);
        let l = leading(&p).expect("leading stages");
        assert_eq!((l.skip, l.limit, l.consumed), (2, Some(5), 4));
        assert!(l.filter.is_some());
        let p = pipeline(vec![doc! {"$sort": {"lastmod": 1}}]);
        let l = leading(&p).expect("a sort alone");
        assert_eq!((l.skip, l.limit, l.consumed), (0, None, 1));
        let p = pipeline(vec![doc! {"$match": {}}, doc! {"$group": {"_id": 1}}]);
        assert!(leading(&p).is_none());
        let p = pipeline(vec![doc! {"$sort": {"max": 1}}, doc! {"$limit": -1}]);
        assert!(
            leading(&p).is_none(),
            "a bad limit is the general path's error"
        );
    }

    #[test]
    fn the_memory_error_is_in_the_aggregations_words() {
        let e = in_aggregation(blocking_sort::exceeded());
        assert_eq!(e.code, 292);
        assert!(e.message.starts_with("PlanExecutor error during aggregation :: caused by :: Sort exceeded memory limit of 104857600 bytes"));
    }
}
