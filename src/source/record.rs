//! Recording the simulator into a trace (`sim --record`): the header, the set-up events, a
//! keyframe at time 0, then the events as they happen with a keyframe every interval, a final
//! keyframe and the end marker. The trace format itself is `trace`'s; this drives the simulator.

use std::io;
use std::path::{Path, PathBuf};

use crate::cluster::Event;
use crate::sim::Simulator;
use crate::sim::engine::TICK_MS;
use crate::sim::scenario::keygen::EPOCH_SECONDS;
use crate::trace::event_codec::Names;
use crate::trace::header::Header;
use crate::trace::writer::TraceWriter;

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
            .map(|c| (c.ns.clone(), crate::trace::json::pattern_json(&c.pattern)))
            .collect(),
        scenario: Some((scenario.to_string(), seed)),
    }
}

fn write_events(w: &mut TraceWriter, sim: &mut Simulator) -> io::Result<Vec<Event>> {
    let events = sim.take_events();
    let names = Names {
        state: &sim.cluster,
    };
    for e in &events {
        w.event(e, &names)?;
    }
    Ok(events)
}

/// Runs `sim` to `until_ms`, recording everything into `path` (replacing a file already there);
/// `on_events` sees the events too.
pub fn record_sim(
    sim: &mut Simulator,
    until_ms: u64,
    path: &Path,
    header: &Header,
    on_events: impl FnMut(&Simulator, &[Event]),
) -> io::Result<PathBuf> {
    let existing = crate::trace::writer::Existing::Replace;
    record_sim_to(sim, until_ms, (path, existing), header, on_events)
}

/// [`record_sim`], refusing a file already at `path` unless `existing` allows replacing it.
pub fn record_sim_to(
    sim: &mut Simulator,
    until_ms: u64,
    (path, existing): (&Path, crate::trace::writer::Existing),
    header: &Header,
    mut on_events: impl FnMut(&Simulator, &[Event]),
) -> io::Result<PathBuf> {
    let mut w = TraceWriter::create(path, header, existing)?;
    let setup = write_events(&mut w, sim)?;
    on_events(sim, &setup);
    w.keyframe_of(&sim.cluster)?;
    let mut last_keyframe = sim.now_ms();
    while sim.now_ms() + TICK_MS <= until_ms {
        let next = (last_keyframe + SIM_KEYFRAME_INTERVAL_MS).min(until_ms);
        sim.run_until(next);
        let events = write_events(&mut w, sim)?;
        on_events(sim, &events);
        if sim.now_ms() >= last_keyframe + SIM_KEYFRAME_INTERVAL_MS
            || sim.now_ms() + TICK_MS > until_ms
        {
            w.keyframe_of(&sim.cluster)?;
            last_keyframe = sim.now_ms();
        }
    }
    if last_keyframe != sim.now_ms() {
        w.keyframe_of(&sim.cluster)?;
    }
    w.finish(sim.now_ms())
}
