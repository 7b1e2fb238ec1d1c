//! The balancing window (`config.settings` `{_id: "balancer", activeWindow: {start, stop}}`) as
//! MongoDB applies it, and what a live source can tell of it: the balancer compares the window
//! with the config server's *local* time, and no read of `watch` reports that server's time zone.
//! The offset is inferred from the balancer rounds `config.actionlog` kept (a round is logged only
//! inside the window), and "open now" is stated only when every offset they allow agrees.
//!
//! Owns: that rule and that inference, as pure functions. May not touch: I/O, the wall clock (the
//! caller passes the times), the simulator's own window (`ActiveWindow::contains`, virtual time).

/// Seconds in a day.
const DAY: i64 = 86_400;

/// A round is logged when it ends (`balancer.cpp`: `logAction("balancer.round")` after its
/// migrations), so one that started inside the window may be written a little after `stop`.
pub const ROUND_SLACK_SECS: i64 = 15 * 60;

/// Real UTC offsets are whole quarter hours, from UTC−12:00 to UTC+14:00.
const OFFSETS: std::ops::RangeInclusive<i32> = -48..=56;

/// Whether `local_secs` (seconds after local midnight) is inside the window `[start, stop]`
/// (minutes after midnight), both ends included, wrapping midnight when `start > stop`.
// mongo `src/mongo/s/balancer_configuration.cpp` (`BalancerSettingsType::isTimeInBalancingWindow`:
// `now >= start && now <= stop`, or `now >= start || now <= stop` when the window wraps; `now` is
// `second_clock::local_time()` of the config server primary, where the balancer runs).
pub fn in_window(start_minute: u32, stop_minute: u32, local_secs: i64) -> bool {
    in_window_with_slack(start_minute, stop_minute, local_secs, 0)
}

fn in_window_with_slack(start_minute: u32, stop_minute: u32, local_secs: i64, slack: i64) -> bool {
    let t = local_secs.rem_euclid(DAY);
    let start = i64::from(start_minute) * 60;
    let stop = i64::from(stop_minute) * 60 + slack;
    if start < stop && stop < DAY {
        (start..=stop).contains(&t)
    } else {
        t >= start || t <= stop.rem_euclid(DAY)
    }
}

/// What a live source can say of the window now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowNow {
    /// Open now: `Some` only when every offset the rounds allow agrees.
    pub open: Option<bool>,
    /// The UTC offsets (minutes) of the config server's time zone that fit every round kept, as
    /// their smallest and largest; `None` with no rounds or none fitting.
    pub utc_offset_minutes: Option<(i32, i32)>,
    /// How many rounds the inference rests on.
    pub rounds: usize,
}

/// The window now, inferred from the times (ms since the epoch, UTC) of the balancer rounds
/// `config.actionlog` holds.
pub fn infer(start_minute: u32, stop_minute: u32, rounds_ms: &[u64], now_ms: u64) -> WindowNow {
    let secs = |ms: u64| (ms / 1000) as i64;
    let fits: Vec<i32> = OFFSETS
        .map(|q| q * 15)
        .filter(|&o| {
            !rounds_ms.is_empty()
                && rounds_ms.iter().all(|&t| {
                    in_window_with_slack(
                        start_minute,
                        stop_minute,
                        secs(t) + i64::from(o) * 60,
                        ROUND_SLACK_SECS,
                    )
                })
        })
        .collect();
    let open_for = |o: i32| in_window(start_minute, stop_minute, secs(now_ms) + i64::from(o) * 60);
    let open = match fits.first() {
        Some(&first) if fits.iter().all(|&o| open_for(o) == open_for(first)) => {
            Some(open_for(first))
        }
        _ => None,
    };
    WindowNow {
        open,
        utc_offset_minutes: fits.first().zip(fits.last()).map(|(a, b)| (*a, *b)),
        rounds: rounds_ms.len(),
    }
}

/// `UTC+05:30`, `UTC−08:00`, `UTC`.
pub fn offset_text(minutes: i32) -> String {
    if minutes == 0 {
        return "UTC".to_string();
    }
    let sign = if minutes < 0 { '−' } else { '+' };
    let m = minutes.unsigned_abs();
    format!("UTC{sign}{:02}:{:02}", m / 60, m % 60)
}

impl WindowNow {
    /// `open now`, `closed now` or `open or closed: unknown`, with what it rests on.
    pub fn text(&self) -> String {
        let state = match self.open {
            Some(true) => "open now",
            Some(false) => "closed now",
            None => "open or closed now: unknown",
        };
        match (self.utc_offset_minutes, self.rounds) {
            (_, 0) => format!(
                "{state} (the config server's time zone is not readable and no balancer round is logged)"
            ),
            (None, n) => format!(
                "{state} (the {n} balancer rounds logged fit no time zone: the window may have changed)"
            ),
            (Some((a, b)), n) if a == b => {
                format!(
                    "{state} (inferred: server time is {} from {n} balancer rounds)",
                    offset_text(a)
                )
            }
            (Some((a, b)), n) => format!(
                "{state} (inferred: server time between {} and {} from {n} balancer rounds)",
                offset_text(a),
                offset_text(b)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: u64 = 3_600_000;

    #[test]
    fn both_ends_are_inside_and_a_window_may_wrap_midnight() {
        // 02:00–06:00
        assert!(in_window(120, 360, 2 * 3600));
        assert!(in_window(120, 360, 6 * 3600), "stop itself is inside");
        assert!(!in_window(120, 360, 6 * 3600 + 1));
        assert!(!in_window(120, 360, 3600));
        // 23:00–01:00
        assert!(in_window(1380, 60, 23 * 3600 + 5));
        assert!(in_window(1380, 60, 30 * 60));
        assert!(!in_window(1380, 60, 12 * 3600));
    }

    #[test]
    fn rounds_pin_the_offset_and_say_open_or_closed() {
        // Window 02:00–03:00 server time; rounds logged at 00:00–01:00 UTC: the server is two
        // hours ahead of UTC, give or take the round slack.
        let rounds: Vec<u64> = (0..12).map(|k| 10 * 24 * H + k * 5 * 60_000).collect();
        let w = infer(120, 180, &rounds, 10 * 24 * H + 30 * 60_000);
        assert_eq!(w.open, Some(true));
        let (a, b) = w.utc_offset_minutes.expect("fits");
        assert!(a <= 120 && 120 <= b && b - a <= 75, "{a}..{b}");
        assert!(w.text().starts_with("open now (inferred"), "{}", w.text());
        // Twelve hours later it is closed whichever offset fits.
        let later = infer(120, 180, &rounds, 10 * 24 * H + 12 * H);
        assert_eq!(later.open, Some(false));
    }

    #[test]
    fn without_rounds_nothing_is_claimed() {
        let w = infer(120, 360, &[], 5 * H);
        assert_eq!(w.open, None);
        assert_eq!(w.utc_offset_minutes, None);
        assert!(w.text().contains("not readable"), "{}", w.text());
        // Rounds at every hour of a day fit no window of four hours.
        let rounds: Vec<u64> = (0..24).map(|h| h * H).collect();
        let w = infer(120, 360, &rounds, 5 * H);
        assert_eq!((w.open, w.utc_offset_minutes), (None, None));
        assert!(w.text().contains("fit no time zone"), "{}", w.text());
    }

    #[test]
    fn a_wide_range_of_offsets_that_disagree_says_unknown() {
        // One round at 04:00 UTC fits a window of 00:00–12:00 for offsets −4:00..+8:00 (+slack);
        // at 10:00 UTC it is open for some of them and closed for others.
        let w = infer(0, 720, &[4 * H], 10 * H);
        assert_eq!(w.open, None);
        assert_eq!(offset_text(-330), "UTC−05:30");
        assert_eq!(offset_text(0), "UTC");
    }
}
