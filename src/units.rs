//! Formatting for people: byte sizes as the panes, summaries and messages show them, and text cut
//! to a width at a word or field boundary.
//!
//! Owns: the formatting. Depends on nothing; every floor may use it.

pub mod printable;

/// A count and its noun, singular for one: `1 chunk`, `2 chunks`, `0 candidates` (`noun` is the
/// singular; the plural adds an `s`).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `n` with its thousands grouped: `16777216` as `16,777,216`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1.5 MiB`-style sizes.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Cuts `text` to at most `max` characters at a word or field boundary, with `…`.
pub fn cut_at_words(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max.saturating_sub(1)).collect();
    let mut at = head
        .rfind([' ', ','])
        .filter(|&i| i > max / 2)
        .unwrap_or(head.len());
    // A number whose unit would be cut off goes with it ("1.0…" of "1.0 MiB" says nothing true).
    let kept = head[..at].trim_end_matches([',', ' ']);
    let number = kept.rsplit(' ').next().is_some_and(|w| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    });
    let unit_follows = text[kept.len()..]
        .trim_start_matches(' ')
        .starts_with(char::is_alphabetic);
    if number && unit_follows {
        at = kept.rfind(' ').filter(|&i| i > max / 2).unwrap_or(at);
    }
    format!("{}…", head[..at].trim_end_matches([',', ' ']))
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word is cut), at
/// most `max_lines` of them; what does not fit ends the last line with `…`.
pub fn wrap_words(text: &str, width: usize, max_lines: usize) -> Vec<String> {
    let width = width.max(2);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let (now, extra) = (line.chars().count(), word.chars().count());
        if now > 0 && now + 1 + extra > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > width {
            let head: String = line.chars().take(width).collect();
            line = line.chars().skip(width).collect();
            lines.push(head);
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    if lines.len() > max_lines.max(1) {
        lines.truncate(max_lines.max(1));
        if let Some(last) = lines.last_mut() {
            let head: String = last.chars().take(width - 1).collect();
            *last = format!("{}…", head.trim_end());
        }
    }
    lines
}

/// Names cut to at most `width` characters each, every one still distinct: a name that fits is
/// shown whole; a longer one as its head, `…`, and its tail, keeping as much of the head as
/// leaves all the cut names distinct (`mongos-01-shard-rs-0007` → `mongos-0…-0007` at 14).
/// `None` when no cut of that width keeps them distinct (a wider column is needed).
pub fn cut_names(names: &[&str], width: usize) -> Option<Vec<String>> {
    let chars: Vec<Vec<char>> = names.iter().map(|n| n.chars().collect()).collect();
    if chars.iter().all(|c| c.len() <= width) {
        return distinct(names.iter().map(|n| (*n).to_string()).collect());
    }
    if width < 2 {
        return None;
    }
    (0..width).rev().find_map(|head| {
        let tail = width - 1 - head;
        let cut = chars
            .iter()
            .map(|c| {
                if c.len() <= width {
                    c.iter().collect()
                } else {
                    let mut s: String = c[..head].iter().collect();
                    s.push('…');
                    s.extend(&c[c.len() - tail..]);
                    s
                }
            })
            .collect();
        distinct(cut)
    })
}

fn distinct(names: Vec<String>) -> Option<Vec<String>> {
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .all(|n| seen.insert(n.as_str()))
        .then_some(())?;
    Some(names)
}

/// The narrowest width from `min` at which [`cut_names`] keeps the names distinct (at most the
/// longest name's length, where every name is whole), with the cut names.
pub fn shortest_unique(names: &[&str], min: usize) -> (usize, Vec<String>) {
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for width in min..longest {
        if let Some(cut) = cut_names(names, width) {
            return (width, cut);
        }
    }
    (
        longest.max(min),
        names.iter().map(|n| (*n).to_string()).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::{cut_at_words, wrap_words};

    #[test]
    fn wrapped_lines_keep_every_word_within_the_width() {
        let text =
            "config.chunks of test.authors: `onCurrentShardSince` of 2 chunks is before 2009";
        let lines = wrap_words(text, 24, 10);
        assert!(lines.iter().all(|l| l.chars().count() <= 24), "{lines:?}");
        assert_eq!(lines.join(" "), text);
        assert_eq!(wrap_words("short", 20, 3), ["short"]);
        // A word longer than the width is cut across lines.
        assert_eq!(wrap_words("abcdefgh", 3, 5), ["abc", "def", "gh"]);
        // Too many lines: the last says more was cut.
        let cut = wrap_words("one two three four five six", 9, 2);
        assert_eq!(cut, ["one two", "three…"]);
    }

    #[test]
    fn cuts_fall_on_word_or_field_boundaries() {
        assert_eq!(cut_at_words("short", 10), "short");
        assert_eq!(cut_at_words("one two three four", 12), "one two…");
        assert_eq!(cut_at_words("a: 1, b: 2, c: 3", 13), "a: 1, b: 2…");
        assert_eq!(cut_at_words("abcdefghijkl", 6), "abcde…");
        assert_eq!(
            cut_at_words("sh1 → sh2 3784 docs, 1.0 MiB in 3 s", 27),
            "sh1 → sh2 3784 docs…",
            "a number is not cut from its unit"
        );
    }
}

#[cfg(test)]
mod count_tests {
    #[test]
    fn one_is_singular() {
        assert_eq!(super::count(1_u64, "chunk"), "1 chunk");
        assert_eq!(super::count(0_u64, "candidate"), "0 candidates");
        assert_eq!(super::count(2_u32, "migration"), "2 migrations");
    }

    #[test]
    fn wall_clock_times_carry_their_date() {
        assert_eq!(super::date_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(
            super::date_time(1_796_638_690_000),
            "2026-12-07 10:18:10 UTC"
        );
        assert_eq!(super::date_time(951_782_400_000), "2000-02-29 00:00:00 UTC");
    }
}

/// A wall-clock time (milliseconds since the epoch) with its date, ISO-8601-like, in UTC:
/// `2026-12-07 14:03:09 UTC`.
pub fn date_time(ms: u64) -> String {
    let s = ms / 1000;
    let (y, m, d) = civil_from_days((s / 86_400) as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        (s / 3600) % 24,
        (s / 60) % 60,
        s % 60
    )
}

/// The proleptic Gregorian date `(year, month, day)` of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A time of a source's clock for people: virtual time as `12.3s`, `4m05s`, `2h03m`; a Unix
/// clock (milliseconds since the epoch) as the wall-clock time `14:03:09 UTC`.
pub fn clock_time(ms: u64, unix: bool) -> String {
    let s = ms / 1000;
    if unix {
        format!(
            "{:02}:{:02}:{:02} UTC",
            (s / 3600) % 24,
            (s / 60) % 60,
            s % 60
        )
    } else if s < 60 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if s < 3600 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    }
}
