//! `$currentOp` during a resharding: the coordinator's entry (on the config server), one donor
//! entry per shard owning chunks of the collection and one recipient entry per shard that may
//! receive the new chunks, with the fields of `db/s/resharding/resharding_metrics.cpp`
//! (`donorState`, `recipientState`, `documentsCopied`, `remainingOperationTimeEstimatedSecs` …,
//! counters and seconds as longs). The figures come from the simulator: the copy runs at the
//! migration rate from the start, each recipient copying an even share of the documents; the
//! remaining time is until the critical section may start. Before 6.0 `desc` reads
//! `Resharding{Role}Service`, from 6.0 `ReshardingMetrics{Role}Service`.

use std::fmt::Write;

use bson::{Document, doc};

use crate::cluster::resharding::Resharding;
use crate::cluster::{Collection, ServerVersion};
use crate::model::ShardIdx;
use crate::serve::state::State;

/// The phase a resharding is in, for the three roles' states.
#[derive(Clone, Copy)]
enum Phase {
    Cloning,
    Applying,
    Critical,
}

pub fn entries(state: &State) -> Vec<Document> {
    let cluster = &state.sim.cluster;
    let mut out = Vec::new();
    for c in &cluster.collections {
        if let Some(r) = &c.resharding {
            out.extend(of_collection(state, c, r));
        }
    }
    out
}

fn of_collection(state: &State, c: &Collection, r: &Resharding) -> Vec<Document> {
    let cluster = &state.sim.cluster;
    let now = state.sim.now_ms();
    let phase = if r.critical_section.is_some() {
        Phase::Critical
    } else if now < r.ready_ms {
        Phase::Cloning
    } else {
        Phase::Applying
    };
    let elapsed = (now.saturating_sub(r.started_ms) / 1000) as i64;
    let remaining = (r.ready_ms.saturating_sub(now) / 1000) as i64;
    let role = |name: &str| {
        if cluster.version < ServerVersion::V6_0 {
            format!("Resharding{name}Service")
        } else {
            format!("ReshardingMetrics{name}Service")
        }
    };
    let uuid = crate::serve::catalog::ids::collection_uuid(&c.ns, c.incarnation + 1);
    let uuid_text = match &uuid {
        bson::Bson::Binary(b) => hex(&b.bytes),
        _ => String::new(),
    };
    let base = |shard: &str, name: &str| {
        doc! {
            "shard": shard,
            "type": "op",
            "desc": format!("{} {uuid_text}", role(name)),
            "op": "command",
            "ns": &c.ns,
            "originatingCommand": {
                "reshardCollection": &c.ns,
                "key": r.key.to_document(),
                "unique": "false",
                "collation": { "locale": "simple" },
            },
            "totalOperationTimeElapsedSecs": elapsed,
        }
    };
    let mut coordinator = base("config", "Coordinator");
    coordinator.insert(
        "coordinatorState",
        match phase {
            Phase::Cloning => "cloning",
            Phase::Applying => "applying",
            Phase::Critical => "blocking-writes",
        },
    );
    let mut out = vec![coordinator];
    let donors: Vec<ShardIdx> = (0..cluster.shards.len())
        .map(|s| ShardIdx(s as u32))
        .filter(|s| c.table.shard_totals(*s).chunks > 0)
        .collect();
    let recipients = recipients(state, r);
    let (docs, bytes) = totals(c, cluster.shards.len());
    let n = recipients.len().max(1) as u64;
    // Even shares, the remainder to the first recipients: the shares add up to the whole.
    let share = |total: u64, k: u64| total / n + u64::from(k < total % n);
    let rate = cluster.settings.migration_bytes_per_sec.max(1);
    let copy_ms = (bytes.saturating_mul(1000) / rate).max(1);
    let done = now.saturating_sub(r.started_ms).min(copy_ms);
    let copying = matches!(phase, Phase::Cloning) && done < copy_ms;
    for s in &donors {
        let mut d = base(cluster.shard_id(*s), "Donor");
        d.insert(
            "donorState",
            match phase {
                _ if copying => "donating-initial-data",
                Phase::Cloning | Phase::Applying => "donating-oplog-entries",
                Phase::Critical => "blocking-writes",
            },
        );
        d.insert("countWritesDuringCriticalSection", 0_i64);
        d.insert("countReadsDuringCriticalSection", 0_i64);
        out.push(d);
    }
    let copied = |total: u64| (u128::from(total) * u128::from(done) / u128::from(copy_ms)) as i64;
    for (k, s) in recipients.into_iter().enumerate() {
        let (share_docs, share_bytes) = (share(docs, k as u64), share(bytes, k as u64));
        let mut d = base(cluster.shard_id(s), "Recipient");
        d.insert(
            "recipientState",
            match phase {
                _ if copying => "cloning",
                Phase::Cloning | Phase::Applying => "applying",
                Phase::Critical => "strict-consistency",
            },
        );
        d.insert("remainingOperationTimeEstimatedSecs", remaining);
        d.insert("approxDocumentsToCopy", share_docs as i64);
        d.insert("approxBytesToCopy", share_bytes as i64);
        d.insert("documentsCopied", copied(share_docs));
        d.insert("bytesCopied", copied(share_bytes));
        d.insert("countWritesToStashCollections", 0_i64);
        d.insert("indexesToBuild", 0_i64);
        d.insert("indexesBuilt", 0_i64);
        d.insert("totalCopyTimeElapsedSecs", (done / 1000) as i64);
        out.push(d);
    }
    out
}

fn recipients(state: &State, r: &Resharding) -> Vec<ShardIdx> {
    let shards = &state.sim.cluster.shards;
    let mut out: Vec<ShardIdx> = if r.distribution.is_empty() {
        (0..shards.len())
            .filter(|&s| !shards[s].removed && !shards[s].shard.draining)
            .map(|s| ShardIdx(s as u32))
            .collect()
    } else {
        r.distribution.iter().map(|d| d.shard).collect()
    };
    out.sort();
    out.dedup();
    out
}

fn totals(c: &Collection, shards: usize) -> (u64, u64) {
    (0..shards).fold((0, 0), |(d, b), s| {
        let t = c.table.shard_totals(ShardIdx(s as u32)).stats;
        (d + t.docs, b + t.bytes)
    })
}

fn hex(bytes: &[u8]) -> String {
    let h = bytes.iter().fold(String::new(), |mut h, b| {
        let _ = write!(h, "{b:02x}");
        h
    });
    if h.len() == 32 {
        format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    } else {
        h
    }
}
