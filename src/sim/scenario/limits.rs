//! The bounds of every number a scenario file gives, checked when the file is read so that no
//! scenario can ask the simulator for more than a machine has (4,000,000,000 shards) or for a
//! run that never ends (`until: 1e300`, `every: 1e-300`). Each violation names its field path.
//! The bounds are the contract's ("Scenario files": limits); MongoDB's own limits where it has
//! one (chunk size 1–1024 MB, 64 indexes a collection, 16 MiB documents).

use serde_json::Value;

use crate::sim::scenario::keygen::GenSpec;
use crate::sim::scenario::{
    Action, CollectionSpec, DocSize, Op, Scenario, ShardsSpec, WorkloadSpec,
};

/// Shards in a cluster: the one bound of every cluster shardtop simulates.
pub const MAX_SHARDS: u64 = crate::cluster::MAX_SHARDS as u64;
/// Virtual seconds a scenario may run (`until`, `at`, `start`, `stop`): 30 days.
pub const MAX_SECONDS: f64 = 2_592_000.0;
/// Chunks a collection starts with (`numInitialChunks`, split points).
pub const MAX_INITIAL_CHUNKS: u64 = 1_000_000;
/// Times all repeating actions together may run.
pub const MAX_ACTION_RUNS: f64 = 10_000_000.0;
/// Nesting of a JSON value in a scenario (keys, bounds, documents, generators): well within
/// what a trace line may hold.
pub const MAX_VALUE_DEPTH: usize = 32;
/// Inserts per virtual second of one workload.
pub const MAX_RATE: f64 = 1_000_000.0;

type Res = Result<(), String>;

fn field(path: &str, what: impl std::fmt::Display) -> String {
    format!("field `{path}`: {what}")
}

fn whole(path: &str, v: u64, min: u64, max: u64) -> Res {
    if (min..=max).contains(&v) {
        return Ok(());
    }
    Err(field(path, format!("{v} is outside {min}..={max}")))
}

fn real(path: &str, v: f64, min: f64, max: f64) -> Res {
    if v.is_finite() && v >= min && v <= max {
        return Ok(());
    }
    Err(field(
        path,
        format!("{} is outside {min}..={max}", number(v)),
    ))
}

/// `v` as people write it: plain, or in exponent form when very large or very small.
fn number(v: f64) -> String {
    if v == 0.0 || (1e-4..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

fn depth(path: &str, v: &Value) -> Res {
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        let container = matches!(v, Value::Array(_) | Value::Object(_));
        if container && d > MAX_VALUE_DEPTH {
            return Err(field(
                path,
                format!("nested deeper than {MAX_VALUE_DEPTH} levels"),
            ));
        }
        match v {
            Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// Checks every bound of `sc`.
pub fn check(sc: &Scenario) -> Res {
    match &sc.shards {
        ShardsSpec::Count(n) => whole("shards", u64::from(*n), 1, MAX_SHARDS)?,
        ShardsSpec::List(list) => {
            whole("shards", list.len() as u64, 1, MAX_SHARDS)
                .map_err(|_| field("shards", format!("a cluster has 1 to {MAX_SHARDS} shards")))?;
            for (i, s) in list.iter().enumerate() {
                if s.id.is_empty() || list[..i].iter().any(|o| o.id == s.id) {
                    return Err(field(&format!("shards[{i}].id"), "empty or repeated"));
                }
                real(&format!("shards[{i}].capacity"), s.capacity, 0.001, 1000.0)?;
            }
        }
    }
    real("until", sc.until, 0.0, MAX_SECONDS)?;
    if let Some(mb) = sc.chunk_size_mb {
        whole("chunkSizeMb", mb, 1, 1024)?;
    }
    if let Some(r) = sc.migration_mb_per_sec {
        real("migrationMbPerSec", r, 0.001, 1e6)?;
    }
    let day_ms = 86_400_000;
    for (name, v) in [
        (
            "reshardingMinimumOperationDurationMillis",
            sc.resharding_minimum_operation_duration_millis,
        ),
        (
            "reshardingCriticalSectionTimeoutMillis",
            sc.resharding_critical_section_timeout_millis,
        ),
        ("autoMergerThrottlingMS", sc.auto_merger_throttling_ms),
        (
            "autoMergerIntervalSecs",
            sc.auto_merger_interval_secs.map(|s| s.saturating_mul(1000)),
        ),
    ] {
        if let Some(v) = v {
            whole(name, v, 0, 30 * day_ms)?;
        }
    }
    whole("collections", sc.collections.len() as u64, 0, 10_000)?;
    for (i, c) in sc.collections.iter().enumerate() {
        collection(&format!("collections[{i}]"), c)?;
    }
    whole("workloads", sc.workloads.len() as u64, 0, 1_000)?;
    for (i, w) in sc.workloads.iter().enumerate() {
        workload(&format!("workloads[{i}]"), w)?;
    }
    whole("actions", sc.actions.len() as u64, 0, 100_000)?;
    let mut runs = 0.0;
    for (i, a) in sc.actions.iter().enumerate() {
        runs += action(&format!("actions[{i}]"), a, sc.until)?;
    }
    if runs > MAX_ACTION_RUNS {
        return Err(field(
            "actions",
            format!("the repeating actions would run {runs:.0} times, over {MAX_ACTION_RUNS}"),
        ));
    }
    Ok(())
}

fn collection(path: &str, c: &CollectionSpec) -> Res {
    depth(&format!("{path}.key"), &c.key)?;
    if let Some(n) = c.num_initial_chunks {
        whole(
            &format!("{path}.numInitialChunks"),
            u64::from(n),
            1,
            MAX_INITIAL_CHUNKS,
        )?;
    }
    if let Some(l) = &c.initial_layout {
        let p = format!("{path}.initialLayout.splitPoints");
        whole(&p, l.split_points.len() as u64, 0, MAX_INITIAL_CHUNKS)?;
        for (i, s) in l.split_points.iter().enumerate() {
            depth(&format!("{p}[{i}]"), s)?;
        }
    }
    whole(&format!("{path}.indexes"), c.indexes.len() as u64, 0, 64)?;
    for (i, ix) in c.indexes.iter().enumerate() {
        depth(&format!("{path}.indexes[{i}].key"), &ix.key)?;
    }
    Ok(())
}

fn workload(path: &str, w: &WorkloadSpec) -> Res {
    real(&format!("{path}.rate"), w.rate, 0.0, MAX_RATE)?;
    if let Some(n) = w.count {
        whole(&format!("{path}.count"), n, 0, 1_000_000_000_000)?;
    }
    real(&format!("{path}.start"), w.start, 0.0, MAX_SECONDS)?;
    if let Some(s) = w.stop {
        real(&format!("{path}.stop"), s, w.start, MAX_SECONDS)?;
    }
    let max_doc = 16 * 1024 * 1024;
    match w.doc_size {
        DocSize::Fixed(n) => whole(&format!("{path}.docSize"), n, 1, max_doc)?,
        DocSize::Range { min, max } => {
            whole(&format!("{path}.docSize.min"), min, 1, max_doc)?;
            whole(&format!("{path}.docSize.max"), max, min, max_doc)?;
        }
    }
    for (name, g) in &w.fields {
        generator(&format!("{path}.fields.{name}"), g, 1)?;
    }
    Ok(())
}

fn generator(path: &str, g: &GenSpec, level: usize) -> Res {
    if level > 8 {
        return Err(field(path, "generators nested deeper than 8 levels"));
    }
    match g {
        GenSpec::Uniform { min, max } => {
            real(&format!("{path}.uniform.min"), *min, -1e300, 1e300)?;
            real(&format!("{path}.uniform.max"), *max, *min, 1e300)
        }
        GenSpec::UniformInt { min, max } if min > max => Err(field(
            &format!("{path}.uniformInt.max"),
            format!("{max} is below min {min}"),
        )),
        GenSpec::RandomString { length } | GenSpec::Alphabetical { length } => {
            whole(&format!("{path}.length"), *length as u64, 1, 4096)
        }
        GenSpec::Choice { values, weights } => {
            whole(
                &format!("{path}.choice.values"),
                values.len() as u64,
                1,
                100_000,
            )?;
            for (i, v) in values.iter().enumerate() {
                depth(&format!("{path}.choice.values[{i}]"), v)?;
            }
            weights_ok(&format!("{path}.choice.weights"), weights)
        }
        GenSpec::Const(v) => depth(&format!("{path}.const"), v),
        GenSpec::Mix(parts) => {
            whole(&format!("{path}.mix"), parts.len() as u64, 1, 1_000)?;
            let weights: Vec<f64> = parts.iter().map(|p| p.weight).collect();
            weights_ok(&format!("{path}.mix"), &weights)?;
            for (i, p) in parts.iter().enumerate() {
                generator(&format!("{path}.mix[{i}].gen"), &p.generator, level + 1)?;
            }
            Ok(())
        }
        GenSpec::Repeat {
            times,
            generator: g,
        } => {
            whole(&format!("{path}.repeat.times"), *times, 1, 1_000_000_000)?;
            generator(&format!("{path}.repeat.gen"), g, level + 1)
        }
        _ => Ok(()),
    }
}

fn weights_ok(path: &str, weights: &[f64]) -> Res {
    for (i, w) in weights.iter().enumerate() {
        real(&format!("{path}[{i}]"), *w, 0.0, 1e12)?;
    }
    if !weights.is_empty() && weights.iter().sum::<f64>() <= 0.0 {
        return Err(field(path, "the weights add up to 0"));
    }
    Ok(())
}

/// Checks an action; how many times it runs before `until`.
fn action(path: &str, a: &Action, until: f64) -> Result<f64, String> {
    real(&format!("{path}.at"), a.at, 0.0, MAX_SECONDS)?;
    let mut runs = 1.0;
    if let Some(every) = a.every {
        real(&format!("{path}.every"), every, 0.1, MAX_SECONDS)?;
        runs += ((until - a.at).max(0.0) / every).floor();
    }
    op(&format!("{path}.do.{}", a.name()), &a.op)?;
    Ok(runs)
}

fn op(path: &str, op: &Op) -> Res {
    match op {
        Op::AddShard { capacity, .. } => {
            real(&format!("{path}.capacity"), *capacity, 0.001, 1000.0)
        }
        Op::SetChunkSize { mb } => whole(&format!("{path}.mb"), *mb, 1, 1024),
        Op::ConfigureCollectionBalancing {
            chunk_size: Some(mb),
            ..
        } => whole(&format!("{path}.chunkSize"), *mb, 0, 1024),
        Op::ReshardCollection {
            key,
            num_initial_chunks,
            shard_distribution,
            zones,
            ..
        } => {
            depth(&format!("{path}.key"), key)?;
            if let Some(n) = num_initial_chunks {
                whole(
                    &format!("{path}.numInitialChunks"),
                    u64::from(*n),
                    1,
                    MAX_INITIAL_CHUNKS,
                )?;
            }
            for (name, list) in [("shardDistribution", shard_distribution), ("zones", zones)] {
                for (i, v) in list.iter().flatten().enumerate() {
                    depth(&format!("{path}.{name}[{i}]"), v)?;
                }
            }
            Ok(())
        }
        _ => values(path, op),
    }
}

/// The JSON values of the other operations (keys, bounds, documents), depth-checked.
fn values(path: &str, op: &Op) -> Res {
    let named: Vec<(&str, &Value)> = match op {
        Op::Split { middle, .. } => vec![("middle", middle)],
        Op::SplitFind { find, .. } | Op::ClearJumboFlag { find, .. } => vec![("find", find)],
        Op::MoveChunk { find, bounds, .. } => {
            let mut v: Vec<(&str, &Value)> = find.iter().map(|f| ("find", f)).collect();
            v.extend(bounds.iter().flatten().map(|b| ("bounds", b)));
            v
        }
        Op::MoveRange { min, max, .. } => {
            let mut v: Vec<(&str, &Value)> = min.iter().map(|m| ("min", m)).collect();
            v.extend(max.iter().map(|m| ("max", m)));
            v
        }
        Op::MergeChunks { bounds, .. } => bounds.iter().map(|b| ("bounds", b)).collect(),
        Op::CreateIndex { key, .. }
        | Op::RefineCollectionShardKey { key, .. }
        | Op::DropIndex { key, .. } => vec![("key", key)],
        Op::UpdateShardKey { find, set, .. } => vec![("find", find), ("set", set)],
        Op::UpdateZoneKeyRange { min, max, .. } => vec![("min", min), ("max", max)],
        _ => Vec::new(),
    };
    for (name, v) in named {
        depth(&format!("{path}.{name}"), v)?;
    }
    Ok(())
}
