//! `shardtop whatif SOURCE --ns NS [changes…] [--until T] [--json]`: the source forked into the
//! simulator, changed, and run forward (`sim::whatif`); this module reads the arguments, names
//! the source and says what of the fork was measured and what assumed (docs/whatif.md).
//!
//! May import the toolbox (`source_arg`, `settings`) and the floors; never another command module.

use std::io::Write;

use super::source_arg::{SourceArg, resolve};
use super::{Failure, write_failed};
use crate::cli::WhatifArgs;
use crate::sim::whatif::assumptions::{ForkedFrom, prepare_calibrated};
use crate::sim::whatif::changes::Asked;
use crate::sim::whatif::report::Context;
use crate::sim::whatif::{Changes, DEFAULT_SPAN_MS, predict};

pub fn run(
    args: &WhatifArgs,
    config: &crate::config::Config,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let version = super::server_version(args.server_version.as_deref(), config)?;
    // Every argument is checked before the source is read (a live poll takes time).
    let changes = changes(args)?;
    let span_ms = match args.until.as_deref() {
        Some(t) => super::settings::duration(t)
            .map_err(|e| Failure::input(format!("--until: {}", e.message)))?
            .as_millis() as u64,
        None => DEFAULT_SPAN_MS,
    };
    let (kind, _) = SourceArg::parse(&args.source, args.at.as_deref())?;
    let resolved = resolve(&args.source, args.at.as_deref(), version)?;
    let (label, unread) = (resolved.label.clone(), resolved.unread);
    let calibration = resolved.calibration.clone();
    let mut sim = resolved.simulator();
    let c = sim.cluster.collection_index(&args.ns).ok_or_else(|| {
        Failure::input(format!(
            "--ns {}: no such sharded collection in {label} (it has: {})",
            args.ns,
            sim.cluster.namespaces().join(", ")
        ))
    })?;
    for id in &args.drain {
        if sim.cluster.shard_index(id).is_none() {
            return Err(Failure::input(format!(
                "--drain {id}: no such shard in {label} (it has: {})",
                (sim.cluster.shards.iter())
                    .filter(|s| !s.removed)
                    .map(|s| s.shard.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let from = match kind {
        SourceArg::Sim { .. } => ForkedFrom::Simulator,
        SourceArg::Trace { .. } => ForkedFrom::Trace,
        SourceArg::Capture { .. } => ForkedFrom::Capture,
        SourceArg::Live { .. } => ForkedFrom::Live,
    };
    let assumed = prepare_calibrated(from, &mut sim, c, unread, &calibration);
    let ctx = Context {
        source: label,
        unix_clock: from.unix_clock(),
        assumptions: assumed,
    };
    let until_ms = sim.now_ms().saturating_add(span_ms);
    let prediction = predict(sim, c, &changes, until_ms);
    let text = if args.json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&prediction.to_json(&ctx)).unwrap_or_default()
        )
    } else {
        prediction.to_text(&ctx)
    };
    out.write_all(text.as_bytes()).map_err(|e| write_failed(&e))
}

fn changes(args: &WhatifArgs) -> Result<Changes, Failure> {
    let asked = Asked {
        add_shards: args.add_shards,
        drain: args.drain.clone(),
        chunk_size: args.chunk_size,
        window: args.window.clone(),
        balancer: args.balancer.clone(),
        reshard: args.reshard.clone(),
    };
    asked.changes().map_err(Failure::input)
}
