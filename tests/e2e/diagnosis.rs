//! The diagnosis on the real binary's screen: a drain that stalls on the recipient's orphans
//! says so in the header and the balancer pane — the rule, the cause in plain words, and no
//! estimate while it lasts (issue 44's new-user drain, in the simulator's `drain-orphans`).

use crate::common;

use std::time::Duration;

use common::tmux::{START, Tmux};

#[test]
fn a_stalled_drain_shows_its_cause_and_no_estimate() {
    let t = Tmux::start("demo drain-orphans --speed 16", 120, 48);
    t.wait_for("sim:drain-orphans", START);
    t.wait_for("stalled (rangeDeletionPending)", Duration::from_secs(60));
    // Paused there (the stall lasts until the range deleter runs, 15 minutes in).
    t.keys("Space");
    let screen = t.wait_for("❚❚ paused", Duration::from_secs(20));
    assert!(screen.contains("· stalled"), "the header: {screen}");
    assert!(
        screen.contains("stalled (rangeDeletionPending)"),
        "{screen}"
    );
    assert!(screen.contains("drained: no estimate"), "{screen}");
    assert!(
        screen.contains("range deleter"),
        "the cause in plain words: {screen}"
    );
    t.keys("q");
    t.wait_for("EXIT=0", Duration::from_secs(20));
}
