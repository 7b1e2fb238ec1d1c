#![allow(clippy::unwrap_used)]
//! The event log after the action: idle balancer rounds as one counted line, one line per
//! migration (its start completed by its commit), the namespace once. Snapshot at 80×24 and
//! 120×40 at 15 minutes of the ascending demo.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::ui::Action;

#[test]
fn after_fifteen_minutes_the_log_is_not_idle_rounds() {
    let mut f = Fixture::new("ascending", 900_000, (120, 40));
    f.keys(&[Action::FocusPrev]);
    let text = format!("{}", f.draw().backend());
    let events: Vec<&str> = text.lines().skip_while(|l| !l.contains("Events")).collect();
    let idle = events.iter().filter(|l| l.contains("idle ×")).count();
    assert!(idle >= 1, "{text}");
    for pair in events.windows(2) {
        assert!(
            !(pair[0].contains("0 candidates, 0 moved")
                && pair[1].contains("0 candidates, 0 moved")),
            "two idle lines in a row:\n{text}"
        );
    }
    assert!(
        !text.contains("moveChunk.commit"),
        "a commit joins its start:\n{text}"
    );
    for l in events.iter().filter(|l| l.contains("moveChunk ")) {
        assert_eq!(l.matches("app.events").count(), 1, "{l}");
    }
    assert_snapshot!("events_ascending_15m_120x40", text);
    let f = Fixture::new("ascending", 900_000, (80, 24));
    assert_snapshot!(
        "events_ascending_15m_80x24",
        format!("{}", f.draw().backend())
    );
}
