//! `shardtop whatif SOURCE --ns NS [changes…] [--until T] [--json]`: the source forked into the
//! simulator, changed, and run forward (`sim::whatif`); this module reads the arguments, names
//! the source and says what of the fork was measured and what assumed (docs/whatif.md).
//!
//! May import the toolbox (`source_arg`, `settings`) and the floors; never another command module.

use std::io::Write;

use super::source_arg::{SourceArg, resolve};
use super::{Failure, write_failed};
use crate::cli::WhatifArgs;
use crate::sim::whatif::changes::Asked;
use crate::sim::whatif::report::Context;
use crate::sim::whatif::{Changes, DEFAULT_SPAN_MS, predict};
use crate::source::whatif::ForkPoint;

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
    let sim = resolved.simulator();
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
    crate::sim::whatif::changes::room(sim.cluster.shards.len(), changes.add_shards)
        .map_err(|e| Failure::input(format!("{e} ({label})")))?;
    let from = kind.forked_from();
    let point = ForkPoint {
        sim,
        from,
        unread,
        calibration,
    };
    // The state now, as every surface says it; then the fork, every collection prepared as the
    // diagnosis prepares it (the same continuation: with no change, the same estimate).
    let now = crate::source::diagnose::of_point(ForkPoint {
        sim: point.sim.clone(),
        from,
        unread,
        calibration: point.calibration.clone(),
    });
    let (sim, mut assumed) = crate::source::diagnose::continuation(point);
    let ctx = Context {
        source: label,
        unix_clock: from.unix_clock(),
        assumptions: std::mem::take(&mut assumed[c]),
    };
    let until_ms = sim.now_ms().saturating_add(span_ms);
    let mut prediction = predict(sim, c, &changes, until_ms);
    let diagnosis = now.of(&args.ns);
    if changes.label() == "no change"
        && let Some(d) = diagnosis.filter(|d| d.status == crate::diagnosis::Status::Stalled)
    {
        // With no change the question is the diagnosis's, and a stall has no estimate.
        stalled(&mut prediction, d);
    }
    let text = if args.json {
        let mut json = prediction.to_json(&ctx);
        json["now"] = diagnosis.map_or(
            serde_json::Value::Null,
            crate::diagnosis::Diagnosis::to_json,
        );
        format!(
            "{}\n",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        )
    } else {
        let at = |ms: u64| crate::units::clock_time(ms, now.unix_clock);
        let mut text = String::from("now (the diagnosis of the source, before any change):\n");
        for line in diagnosis.map(|d| d.lines(&at)).unwrap_or_default() {
            text.push_str(&format!("  {line}\n"));
        }
        text.push_str(&prediction.to_text(&ctx));
        text
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

/// The prediction of a collection stalled now, with no change: no estimate while its
/// migrations fail, as its diagnosis says.
fn stalled(p: &mut crate::sim::whatif::Prediction, d: &crate::diagnosis::Diagnosis) {
    let why = format!(
        "stalled at the fork ({}): no estimate while its migrations fail — {}",
        d.cause.rule, d.cause.plain
    );
    p.collection.balanced_at_ms = None;
    p.collection.not_balanced_why = Some(why);
    for (_, at) in &mut p.collection.drained_at_ms {
        *at = None;
    }
    for drain in &mut p.drains {
        drain.drained_at_ms = None;
    }
}
