//! `shardtop whatif SOURCE --ns NS [changes…] [--until T] [--json]`: the source forked into the
//! simulator, changed, and run forward (`sim::whatif`); this module reads the arguments, names
//! the source and says what of the fork was measured and what assumed (docs/whatif.md).
//!
//! May import the toolbox (`source_arg`, `settings`) and the floors; never another command module.

use std::io::Write;

use super::source_arg::{SourceArg, resolve};
use super::{Failure, write_failed};
use crate::cli::WhatifArgs;
use crate::cluster::ActiveWindow;
use crate::sim::whatif::assumptions::{ForkedFrom, prepare_calibrated};
use crate::sim::whatif::report::Context;
use crate::sim::whatif::{Changes, predict};

/// How far a what-if runs past the fork without `--until`: a day of the source's clock.
const DEFAULT_UNTIL_MS: u64 = 24 * 3600 * 1000;

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
        None => DEFAULT_UNTIL_MS,
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
    let balancer = match args.balancer.as_deref() {
        None => None,
        Some("on") => Some(true),
        Some("off") => Some(false),
        Some(other) => {
            return Err(Failure::input(format!(
                "--balancer {other}: give on or off"
            )));
        }
    };
    if let Some(mb) = args.chunk_size
        && !(1..=1024).contains(&mb)
    {
        return Err(Failure::input(format!(
            "--chunk-size {mb}: the chunk size is 1 to 1024 MB"
        )));
    }
    let reshard = args
        .reshard
        .as_deref()
        .map(|k| {
            crate::model::KeyPattern::parse_json(k)
                .map_err(|e| Failure::input(format!("--reshard {k}: {}", e.0)))
        })
        .transpose()?;
    Ok(Changes {
        add_shards: args.add_shards,
        drain: args.drain.clone(),
        chunk_size_mb: args.chunk_size,
        window: args.window.as_deref().map(window).transpose()?,
        balancer,
        reshard,
    })
}

/// `HH:MM-HH:MM`, as the balancer document's `activeWindow` `{start, stop}`.
fn window(text: &str) -> Result<ActiveWindow, Failure> {
    let bad = || Failure::input(format!("--window {text}: give HH:MM-HH:MM, as 23:00-06:00"));
    let minute = |t: &str| -> Result<u32, Failure> {
        let (h, m) = t.trim().split_once(':').ok_or_else(bad)?;
        let (h, m): (u32, u32) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
        if h > 23 || m > 59 || t.trim().len() != 5 {
            return Err(bad());
        }
        Ok(h * 60 + m)
    };
    let (start, stop) = text.split_once('-').ok_or_else(bad)?;
    Ok(ActiveWindow {
        start_minute: minute(start)?,
        stop_minute: minute(stop)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_read_as_the_balancer_document_writes_them() {
        let w = window("23:00-06:30").expect("parses");
        assert_eq!((w.start_minute, w.stop_minute), (23 * 60, 6 * 60 + 30));
        for bad in [
            "23:00",
            "24:00-01:00",
            "1:00-2:00",
            "ab:cd-01:00",
            "23:00-06:60",
        ] {
            let e = window(bad).expect_err(bad);
            assert_eq!(e.code, 2);
            assert!(e.message.contains("--window"), "{bad}: {}", e.message);
        }
    }
}
