//! Whether a later keyframe of a simulator's recording is the state its events led to, in what
//! events carry: the shards, the databases' primaries, each collection's key and chunks (bounds,
//! owners, versions, documents, bytes, jumbo flags). The rest of a keyframe (the balancer's
//! schedule, the recent-writes window, bytes written since a split) is the recorder's own
//! bookkeeping, which events do not carry, so it is not compared.

use crate::cluster::Cluster;

/// The first place where `keyframe` differs from `replayed`, or `None`.
pub fn difference(replayed: &Cluster, keyframe: &Cluster) -> Option<String> {
    if replayed.shards.len() != keyframe.shards.len() {
        return Some("keyframe.shards".into());
    }
    for (i, (a, b)) in replayed.shards.iter().zip(&keyframe.shards).enumerate() {
        if a.shard != b.shard || a.removed != b.removed {
            return Some(format!("keyframe.shards[{i}]"));
        }
    }
    if replayed.databases != keyframe.databases {
        return Some("keyframe.databases".into());
    }
    if replayed.collections.len() != keyframe.collections.len() {
        return Some("keyframe.collections".into());
    }
    for (i, (a, b)) in replayed
        .collections
        .iter()
        .zip(&keyframe.collections)
        .enumerate()
    {
        let at = format!("keyframe.collections[{i}]");
        if a.ns != b.ns || a.pattern != b.pattern {
            return Some(at);
        }
        if a.table.len() != b.table.len() {
            return Some(format!("{at}.chunks"));
        }
        for (j, (x, y)) in a.table.iter().zip(b.table.iter()).enumerate() {
            let same = x.min == y.min
                && x.info.shard == y.info.shard
                && x.info.version == y.info.version
                && x.info.stats.docs == y.info.stats.docs
                && x.info.stats.bytes == y.info.stats.bytes
                && x.info.jumbo == y.info.jumbo;
            if !same {
                return Some(format!("{at}.chunks[{j}]"));
            }
        }
    }
    None
}
