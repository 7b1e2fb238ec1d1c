//! Query targeting in the view: which shards a mongos would ask for a filter (SINGLE_SHARD or
//! SHARD_MERGE, as `explain` says) and which strip cells hold the targeted chunks.

use super::{Cell, QueryView};
use crate::cluster::Cluster;
use crate::cluster::Collection;
use crate::model::targeting::{key_ranges, target_ranges, target_spans};

/// Targets `filter` (mongosh's relaxed syntax, or Extended JSON) on the collection and marks the
/// cells it reaches.
pub fn target(cluster: &Cluster, c: &Collection, filter: &str, cells: &mut [Cell]) -> QueryView {
    let parsed = crate::model::mongosh_read::value(filter);
    let doc = match parsed {
        Ok(bson::Bson::Document(d)) => d,
        Ok(_) => {
            return QueryView::Invalid {
                filter: filter.to_string(),
                error: "a filter is a document: {…}".into(),
            };
        }
        Err(error) => {
            return QueryView::Invalid {
                filter: filter.to_string(),
                error,
            };
        }
    };
    let ranges = key_ranges(&c.pattern, &doc);
    let t = target_ranges(&c.table, &ranges);
    for (first, last) in target_spans(&c.table, &ranges) {
        for cell in cells.iter_mut() {
            if cell.first <= last && first < cell.first + cell.count {
                cell.targeted = true;
            }
        }
    }
    QueryView::Targeted {
        filter: filter.to_string(),
        stage: t.kind.stage(),
        shards: t
            .shards
            .iter()
            .map(|&s| cluster.shard_id(s).to_string())
            .collect(),
        chunks: t.chunks,
    }
}
