//! Recording the simulator into a trace: the header, the set-up events, a keyframe at time 0,
//! then the events as they happen with a keyframe every interval, a final keyframe and the end
//! marker.

use std::io;
use std::path::{Path, PathBuf};

use super::event_codec::{self, Names};
use super::header::Header;
use super::state_codec;
use super::writer::TraceWriter;
use crate::sim::Simulator;
use crate::sim::keygen::EPOCH_SECONDS;

/// Virtual time between keyframes of simulator traces.
pub const SIM_KEYFRAME_INTERVAL_MS: u64 = 10_000;

/// The header of a trace of `sim` (at the start of its run).
pub fn sim_header(sim: &Simulator, source: &str, scenario: &str, seed: u64) -> Header {
    Header {
        recorder: format!("shardtop {}", env!("CARGO_PKG_VERSION")),
        source: source.to_string(),
        server_version: sim.cluster.version.to_string(),
        start_epoch_seconds: EPOCH_SECONDS,
        keyframe_interval_ms: SIM_KEYFRAME_INTERVAL_MS,
        shards: sim
            .cluster
            .shards
            .iter()
            .map(|s| s.shard.id.clone())
            .collect(),
        collections: sim
            .cluster
            .collections
            .iter()
            .map(|c| (c.ns.clone(), super::json::pattern_json(&c.pattern)))
            .collect(),
        scenario: Some((scenario.to_string(), seed)),
    }
}

fn write_events(
    w: &mut TraceWriter,
    sim: &mut Simulator,
) -> io::Result<Vec<crate::cluster::Event>> {
    let events = sim.take_events();
    let names = Names { sim };
    for e in &events {
        w.line(&event_codec::encode(e, &names))?;
    }
    Ok(events)
}

/// Runs `sim` to `until_ms`, recording everything into `path`; `on_events` sees the events too.
pub fn record_sim(
    sim: &mut Simulator,
    until_ms: u64,
    path: &Path,
    header: &Header,
    mut on_events: impl FnMut(&Simulator, &[crate::cluster::Event]),
) -> io::Result<PathBuf> {
    let mut w = TraceWriter::create(path, header)?;
    let setup = write_events(&mut w, sim)?;
    on_events(sim, &setup);
    w.keyframe(&state_codec::encode(sim))?;
    let mut last_keyframe = sim.now_ms();
    while sim.now_ms() + crate::sim::engine::TICK_MS <= until_ms {
        let next = (last_keyframe + SIM_KEYFRAME_INTERVAL_MS).min(until_ms);
        sim.run_until(next);
        let events = write_events(&mut w, sim)?;
        on_events(sim, &events);
        if sim.now_ms() >= last_keyframe + SIM_KEYFRAME_INTERVAL_MS
            || sim.now_ms() + crate::sim::engine::TICK_MS > until_ms
        {
            w.keyframe(&state_codec::encode(sim))?;
            last_keyframe = sim.now_ms();
        }
    }
    if last_keyframe != sim.now_ms() {
        w.keyframe(&state_codec::encode(sim))?;
    }
    w.finish(sim.now_ms())
}
