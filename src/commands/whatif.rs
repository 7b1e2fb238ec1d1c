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
use crate::sim::Simulator;
use crate::sim::balancer::explain::Unread;
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
    let mut assumed = assumptions(&kind, &sim, unread);
    if !matches!(kind, SourceArg::Sim { .. }) {
        let note = if crate::sim::whatif::keys::spread_evenly(&mut sim, c) {
            "each chunk's documents spread evenly over its range (where a migration of part of a chunk cuts it)"
        } else {
            "unknown for this key: a migration moves whole chunks, and one too big fails (ChunkTooBig)"
        };
        assumed.push(("keyDistribution".into(), "assumed", note.into()));
    }
    let ctx = Context {
        source: label,
        unix_clock: matches!(kind, SourceArg::Live { .. } | SourceArg::Capture { .. }),
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

/// What the fork measured of the source and what it assumed.
fn assumptions(
    kind: &SourceArg,
    sim: &Simulator,
    unread: Unread,
) -> Vec<(String, &'static str, String)> {
    let set = &sim.cluster.settings;
    let cost = format!(
        "{} ms + bytes ÷ {}/s per migration",
        set.migration_overhead_ms,
        crate::units::human_bytes(set.migration_bytes_per_sec)
    );
    let mut out = Vec::new();
    let mut say = |what: &str, how, note: String| out.push((what.to_string(), how, note));
    if let SourceArg::Sim { .. } = kind {
        say(
            "migrationRate",
            "measured",
            format!("the simulator's own: {cost}"),
        );
        say(
            "writes",
            "measured",
            "the scenario's workloads and scheduled actions continue, same random stream".into(),
        );
        say("chunkSizes", "measured", "the simulator's own".into());
        return out;
    }
    say(
        "migrationRate",
        "assumed",
        format!("the simulator's cost model, {cost} (not calibrated from the changelog)"),
    );
    say(
        "writes",
        "assumed",
        "none: the fork runs without writes (the write rate and key distribution are not calibrated)"
            .into(),
    );
    let sizes = match (kind, unread.sizes, unread.chunk_docs) {
        (_, true, _) => (
            "assumed",
            "the shards' data sizes could not be read: chunks count as empty",
        ),
        (SourceArg::Trace { .. }, false, _) => ("measured", "as the trace keeps them"),
        (_, false, true) => (
            "measured",
            "each shard's data size read, spread evenly over its chunks",
        ),
        (_, false, false) => ("measured", "each chunk's size read"),
    };
    say("chunkSizes", sizes.0, sizes.1.into());
    if unread.balancer {
        say(
            "balancerSettings",
            "assumed",
            "not all read: the defaults stand for what was not".into(),
        );
    }
    if unread.window {
        say(
            "activeWindow",
            "assumed",
            "the config server's time zone is unknown: the window is read as UTC".into(),
        );
    }
    out
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
