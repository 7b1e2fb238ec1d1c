//! Chunk counts a config server answers from its indexes: an aggregation on `config.chunks`
//! that starts with `$match` on one collection (`uuid` from 5.0, `ns` before) and `$group`s by
//! `shard` (or by a constant) counting with `{$sum: 1}` — what mongosh's `sh.status()` and
//! `countDocuments` send — is answered from the routing table's per-shard totals, without
//! building a chunk document. Its cost does not grow with the chunk count.
// mongosh `packages/shell-api/src/helpers.ts` (`printShardingStatus`: `$match {uuid}` /
// `{ns}`, `$group {_id: '$shard', cnt: {$sum: 1}}`).

use bson::{Bson, Document, doc};

use crate::cluster::{Collection, Placement};
use crate::model::ShardIdx;
use crate::serve::state::State;

/// What the group stage counts by.
enum By {
    Shard,
    Constant(Bson),
}

/// The result of the leading `$match` + `$group` of `pipeline` on `config.chunks`, when they
/// have this shape; the stages it consumed (2).
pub fn answer(state: &State, pipeline: &[Bson]) -> Option<Vec<Document>> {
    let [Bson::Document(first), Bson::Document(second), ..] = pipeline else {
        return None;
    };
    let catalog = state.catalog();
    let c = matched_collection(state, &catalog, first.get_document("$match").ok()?)?;
    let group = second.get_document("$group").ok()?;
    let by = match group.get("_id")? {
        Bson::String(s) if s == "$shard" => By::Shard,
        Bson::String(s) if s.starts_with('$') => return None,
        Bson::Document(_) | Bson::Array(_) => return None,
        other => By::Constant(other.clone()),
    };
    let mut counters = Vec::new();
    for (name, acc) in group.iter().filter(|(k, _)| *k != "_id") {
        let Bson::Document(acc) = acc else {
            return None;
        };
        let one = match acc.get("$sum") {
            Some(Bson::Int32(1) | Bson::Int64(1)) => true,
            Some(Bson::Double(x)) => (*x - 1.0).abs() < f64::EPSILON,
            _ => false,
        };
        if acc.len() != 1 || !one {
            return None;
        }
        counters.push((name.clone(), acc.get("$sum").cloned()?));
    }
    let shards = &state.sim.cluster.shards;
    let per_shard: Vec<(String, u64)> = (0..shards.len())
        .map(|s| {
            let n = c.table.shard_totals(ShardIdx(s as u32)).chunks;
            (shards[s].shard.id.clone(), n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    let rows: Vec<(Bson, u64)> = match by {
        By::Shard => per_shard
            .into_iter()
            .map(|(id, n)| (Bson::String(id), n))
            .collect(),
        By::Constant(k) => {
            let total: u64 = per_shard.iter().map(|(_, n)| n).sum();
            if total == 0 {
                Vec::new()
            } else {
                vec![(k, total)]
            }
        }
    };
    Some(
        rows.into_iter()
            .map(|(id, n)| {
                let mut d = doc! { "_id": id };
                for (name, one) in &counters {
                    d.insert(name.clone(), sum_of(one, n));
                }
                d
            })
            .collect(),
    )
}

/// `$sum` of `n` ones of `one`'s type: an int32 sum widens to a long past its range.
fn sum_of(one: &Bson, n: u64) -> Bson {
    match one {
        Bson::Double(_) => Bson::Double(n as f64),
        Bson::Int64(_) => Bson::Int64(n as i64),
        _ => crate::serve::reply::number(n),
    }
}

/// The sharded collection `{uuid: X}` or `{ns: X}` names (the only field of the match).
fn matched_collection<'a>(
    state: &State,
    catalog: &'a [std::borrow::Cow<'_, Collection>],
    m: &Document,
) -> Option<&'a Collection> {
    if m.len() != 1 {
        return None;
    }
    let (field, value) = m.iter().next()?;
    let by_uuid = state.sim.cluster.version.chunks_by_uuid();
    catalog
        .iter()
        .map(AsRef::as_ref)
        .filter(|c| c.placement != Placement::Untracked)
        .find(|c| match (field.as_str(), value) {
            ("uuid", v) if by_uuid => {
                crate::serve::catalog::ids::collection_uuid(&c.ns, c.incarnation) == *v
            }
            ("ns", Bson::String(ns)) if !by_uuid => c.ns == *ns,
            _ => false,
        })
}
