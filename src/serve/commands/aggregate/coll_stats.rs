//! `$collStats: {storageStats: {}}` on a sharded collection through mongos (what mongosh's
//! `getShardDistribution()` reads): one document per shard that holds documents of it, with
//! the fields of `db/stats/storage_stats.cpp` and the number types it appends (int32 when they
//! fit). `count` and `size` are the documents and bytes the shard holds (orphans included,
//! `numOrphanDocs` says how many, 6.0+). The storage engine's sizes are estimates, not
//! WiredTiger's: `storageSize` is `size` in 4 KiB blocks (no compression), each index takes 32
//! bytes per document in 4 KiB blocks (docs/fidelity.md).

use bson::{Document, doc};

use crate::cluster::{MongoError, ServerVersion};
use crate::model::ShardIdx;
use crate::serve::reply::number;
use crate::serve::state::State;

const BLOCK: u64 = 4096;
const INDEX_ENTRY_BYTES: u64 = 32;

fn blocks(bytes: u64) -> u64 {
    bytes.div_ceil(BLOCK).max(1) * BLOCK
}

pub fn coll_stats(state: &State, ns: &str) -> Result<Vec<Document>, MongoError> {
    let cluster = &state.sim.cluster;
    let catalog = state.catalog();
    let Some(c) = catalog.iter().find(|c| c.ns == ns) else {
        return Err(MongoError::namespace_not_found(format!(
            "Collection [{ns}] not found (shardtop serve keeps statistics of sharded collections only)"
        )));
    };
    let index_names: Vec<String> = crate::serve::catalog::indexes::listing(state, ns)
        .unwrap_or_default()
        .iter()
        .map(|d| d.get_str("name").unwrap_or_default().to_string())
        .collect();
    Ok((0..cluster.shards.len())
        .map(|i| ShardIdx(i as u32))
        .filter_map(|s| {
            let t = c.table.shard_totals(s);
            let (orphan_docs, orphan_bytes) = c.orphans_on(s);
            let (docs, bytes) = (t.stats.docs + orphan_docs, t.stats.bytes + orphan_bytes);
            (t.chunks > 0 || orphan_docs > 0).then(|| {
                let stats = storage_stats(cluster.version, docs, bytes, orphan_docs, &index_names);
                let id = cluster.shard_id(s);
                doc! {
                    "ns": ns,
                    "shard": id,
                    "host": format!("{id}.shardtop.sim:27018"),
                    "storageStats": stats,
                }
            })
        })
        .collect())
}

fn storage_stats(
    v: ServerVersion,
    docs: u64,
    bytes: u64,
    orphans: u64,
    index_names: &[String],
) -> Document {
    let mut stats = doc! { "size": number(bytes), "count": number(docs) };
    if let Some(avg) = bytes.checked_div(docs) {
        stats.insert("avgObjSize", number(avg));
    }
    if v >= ServerVersion::V6_0 {
        stats.insert("numOrphanDocs", number(orphans));
    }
    let storage = blocks(bytes);
    let index_size = blocks(docs * INDEX_ENTRY_BYTES);
    let mut sizes = Document::new();
    for name in index_names {
        sizes.insert(name.clone(), number(index_size));
    }
    let total_index = index_size * index_names.len() as u64;
    stats.insert("storageSize", number(storage));
    stats.insert("freeStorageSize", number(0));
    stats.insert("capped", false);
    stats.insert("nindexes", index_names.len() as i32);
    stats.insert("indexBuilds", Vec::<String>::new());
    stats.insert("totalIndexSize", number(total_index));
    stats.insert("totalSize", number(storage + total_index));
    stats.insert("indexSizes", sizes);
    stats.insert("scaleFactor", 1);
    stats
}
