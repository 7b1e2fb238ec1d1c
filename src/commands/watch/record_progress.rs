//! `shardtop record`'s progress line on standard error: polls, events and bytes so far, redrawn
//! in place at most once a second, only when standard error is a terminal — as `curl`, `wget`
//! and `dd status=progress` draw their meters, so that a recording run from cron or CI leaves no
//! carriage-return noise in its log (the summary line on standard output says it all at the end).
//!
//! Part of the `record` command; imports the live floor's `Progress` and `units`; never
//! another command.

use std::time::{Duration, Instant};

use crate::live::record::Progress;
use crate::units::{count, human_bytes};

/// The progress line, throttled.
pub struct Meter {
    /// Whether standard error is a terminal (else nothing is drawn).
    terminal: bool,
    /// `--duration`, said as the goal.
    limit: Option<Duration>,
    last: Option<Instant>,
    drawn: bool,
}

impl Meter {
    /// `terminal`: standard error is one (the caller has checked it, and may have drawn a
    /// "connecting…" line already, which the first progress line replaces).
    pub fn new(terminal: bool, limit: Option<Duration>) -> Self {
        Self {
            terminal,
            limit,
            last: None,
            drawn: terminal,
        }
    }

    /// Draws `p` unless a line was drawn less than a second ago.
    pub fn show(&mut self, p: &Progress) {
        if !self.terminal
            || self
                .last
                .is_some_and(|t| t.elapsed() < Duration::from_secs(1))
        {
            return;
        }
        self.last = Some(Instant::now());
        self.drawn = true;
        let line = crate::units::printable::printable(&line(p, self.limit)).into_owned();
        eprint!("\rshardtop: recording: {line}\x1b[K");
    }

    /// Whether a line is on the screen, to clear before the summary or an error.
    pub fn on_screen(&self) -> bool {
        self.drawn
    }
}

/// "12 s / 60 s · 6 polls (1 failed) · 14 events · 38.2 KiB".
pub fn line(p: &Progress, limit: Option<Duration>) -> String {
    let secs = p.elapsed_ms / 1000;
    let mut out = match limit {
        Some(l) => format!("{secs} s / {} s", l.as_secs()),
        None => format!("{secs} s (Ctrl-C stops)"),
    };
    out.push_str(&format!(" · {}", count(p.polls, "poll")));
    if p.failed_polls > 0 {
        out.push_str(&format!(" ({} failed)", p.failed_polls));
    }
    out.push_str(&format!(" · {}", count(p.events, "event")));
    if let Some(b) = p.bytes {
        out.push_str(&format!(" · {}", human_bytes(b)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_polls_events_and_bytes() {
        let p = Progress {
            elapsed_ms: 12_400,
            polls: 6,
            failed_polls: 1,
            events: 1,
            bytes: Some(2048),
        };
        let text = line(&p, Some(Duration::from_secs(60)));
        assert!(
            text.starts_with("12 s / 60 s · 6 polls (1 failed) · 1 event · "),
            "{text}"
        );
        assert!(text.ends_with("2.0 KiB"), "{text}");
        let p = Progress {
            polls: 1,
            bytes: None,
            ..p
        };
        assert_eq!(
            line(&p, None),
            "12 s (Ctrl-C stops) · 1 poll (1 failed) · 1 event"
        );
    }

    #[test]
    fn nothing_is_drawn_off_a_terminal() {
        let mut m = Meter::new(false, None);
        m.show(&Progress::default());
        assert!(!m.on_screen());
    }
}
