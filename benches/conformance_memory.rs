//! Conformance at a million chunks: the bytes the tracker keeps between polls and its peak while
//! it takes a poll, over 1,000 shards × 1,000,000 chunks (the state of `benches/whatif.rs`),
//! beside the bytes of the polled state itself. Run: `cargo bench --bench conformance_memory`.
#![allow(clippy::unwrap_used)]

use shardtop::sim::balancer::explain::Unread;
use shardtop::source::conformance::Tracker;

mod common;

#[global_allocator]
static COUNTING: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

const MB: f64 = 1e6;
const POLLS: u64 = 3;

fn main() {
    let base = COUNTING.current_usage();
    let state = common::scale_cluster().cluster;
    let state_bytes = COUNTING.current_usage().saturating_sub(base);
    let mut tracker = Tracker::default();
    COUNTING.reset_peak_usage();
    let before = COUNTING.current_usage();
    let start = std::time::Instant::now();
    for k in 0..POLLS {
        let mut poll = state.clone();
        poll.now_ms += k * 10_000;
        tracker.observe(&poll, Unread::default());
        drop(poll);
        // What the tracker holds on to between polls.
        let kept = COUNTING.current_usage().saturating_sub(before);
        println!(
            "conformance: after poll {}, the tracker keeps {:.1} MB",
            k + 1,
            kept as f64 / MB
        );
    }
    let peak = COUNTING.peak_usage().saturating_sub(before);
    println!(
        "conformance, 1,000 shards × 1,000,000 chunks: the state is {:.0} MB; {POLLS} polls in \
         {:.1} s, peak {:.0} MB above the state (the poll handed in included); {:?}",
        state_bytes as f64 / MB,
        start.elapsed().as_secs_f64(),
        peak as f64 / MB,
        tracker.conformance().status,
    );
}
