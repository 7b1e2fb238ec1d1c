//! `config.changelog` and `config.actionlog`, written from the simulator's events as the servers
//! of the release line log them ([`super::diary`] makes the entries). Write batches and round
//! starts are not logged, as on a real cluster; the newest `KEEP` entries of each are kept (the
//! real collections are capped too).

use crate::cluster::Event;
use crate::serve::state::State;

use super::diary::{Diary, entries};

/// Takes the simulator's new events into the changelog and the actionlog.
pub fn record(state: &mut State) {
    let events: Vec<Event> = state.sim.take_events();
    state.outcomes.note(&events);
    for e in &events {
        for (diary, entry) in entries(&state.sim.cluster, state.started_secs, e) {
            match diary {
                Diary::Changelog => state.changelog.push(state.started_secs, entry),
                Diary::Actionlog => state.actionlog.push(state.started_secs, entry),
            }
        }
    }
}
