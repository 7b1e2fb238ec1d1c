//! `dbStats` as a mongos answers it (`s/commands/cluster_db_stats_cmd.cpp`): the command is
//! sent to every shard, each shard's answer kept under `raw` (by its connection string), and the
//! totals summed over them — a collection counted once per shard that holds it, `avgObjSize` a
//! double over all objects, the sizes divided by `scale`.
//!
//! What each shard holds comes from the simulator: a tracked collection's owned and orphaned
//! documents and bytes on that shard, an untracked one's kept documents on its database's
//! primary shard. Storage and index sizes are not simulated: `storageSize` is the data size,
//! `indexSize` and the filesystem sizes are 0 (docs/fidelity.md).
//!
//! May import `catalog`, `state` and `reply`.

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::model::ShardIdx;
use crate::serve::reply::{Answer, number, ok};
use crate::serve::state::State;

/// One shard's share of the database.
#[derive(Default)]
struct Share {
    collections: u64,
    objects: u64,
    bytes: u64,
    indexes: u64,
}

/// `scale` (an integer ≥ 1; the IDL's `validator: { gte: 1 }`, 51024).
fn scale_of(cmd: &Document) -> Result<u64, MongoError> {
    let v = match cmd.get("scale") {
        None => return Ok(1),
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(d)) => *d as i64,
        Some(other) => {
            return Err(crate::serve::reply::type_mismatch(format!(
                "BSON field 'dbStats.scale' is the wrong type '{}', expected types '[long, int, decimal, double]'",
                crate::serve::reply::type_name(other)
            )));
        }
    };
    if v < 1 {
        return Err(MongoError {
            code: 51024,
            code_name: "Location51024",
            message: format!("BSON field 'scale' value must be >= 1, actual value '{v}'"),
        });
    }
    Ok(v as u64)
}

fn shares(state: &State, db: &str) -> Vec<Share> {
    let cluster = &state.sim.cluster;
    let mut out: Vec<Share> = cluster.shards.iter().map(|_| Share::default()).collect();
    let prefix = format!("{db}.");
    for c in cluster
        .collections
        .iter()
        .filter(|c| c.ns.starts_with(&prefix))
    {
        let indexes = crate::serve::catalog::indexes::listing(state, &c.ns).map_or(1, |l| l.len());
        for (i, share) in out.iter_mut().enumerate() {
            let s = ShardIdx(i as u32);
            let t = c.table.shard_totals(s);
            let (orphan_docs, orphan_bytes) = c.orphans_on(s);
            if t.chunks == 0 && orphan_docs == 0 {
                continue;
            }
            share.collections += 1;
            share.objects += t.stats.docs + orphan_docs;
            share.bytes += t.stats.bytes + orphan_bytes;
            share.indexes += indexes as u64;
        }
    }
    let primary = cluster.databases.get(db).map_or(0, |p| p.0 as usize);
    for (ns, u) in state.unsharded.range(prefix.clone()..) {
        if !ns.starts_with(&prefix) {
            break;
        }
        if cluster.collection(ns).is_some() {
            continue;
        }
        let bytes: u64 = state
            .store
            .iter(ns)
            .map(|(_, s)| crate::wire::document_len(&s.doc) as u64)
            .sum();
        if let Some(share) = out.get_mut(primary) {
            share.collections += 1;
            share.objects += u.count;
            share.bytes += bytes;
            share.indexes += u.indexes.len().max(1) as u64;
        }
    }
    out
}

fn stats_doc(db: &str, s: &Share, scale: u64) -> Document {
    let avg = if s.objects == 0 {
        0.0
    } else {
        s.bytes as f64 / s.objects as f64
    };
    doc! {
        "db": db,
        "collections": number(s.collections),
        "views": 0,
        "objects": number(s.objects),
        "avgObjSize": avg,
        "dataSize": number(s.bytes / scale),
        "storageSize": number(s.bytes / scale),
        "indexes": number(s.indexes),
        "indexSize": 0,
        "totalSize": number(s.bytes / scale),
        "scaleFactor": number(scale),
        "fsUsedSize": 0,
        "fsTotalSize": 0,
    }
}

/// `dbStats` / `dbstats`.
pub fn db_stats(state: &State, db: &str, cmd: &Document) -> Answer {
    let scale = scale_of(cmd)?;
    let cluster = &state.sim.cluster;
    let shares = shares(state, db);
    let mut raw = Document::new();
    let mut total = Share::default();
    for (i, share) in shares.iter().enumerate() {
        if cluster.shards[i].removed {
            continue;
        }
        let id = cluster.shard_id(ShardIdx(i as u32));
        let mut one = stats_doc(db, share, scale);
        one.insert("ok", 1.0);
        raw.insert(format!("{id}/{id}.shardtop.sim:27018"), one);
        total.collections += share.collections;
        total.objects += share.objects;
        total.bytes += share.bytes;
        total.indexes += share.indexes;
    }
    let mut out = doc! { "raw": raw };
    out.extend(stats_doc(db, &total, scale));
    Ok(ok(out))
}
