//! Formatting for people: byte sizes as the panes, summaries and messages show them, and text cut
//! to a width at a word or field boundary.
//!
//! Owns: the formatting. Depends on nothing; every floor may use it.

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
    let at = head
        .rfind([' ', ','])
        .filter(|&i| i > max / 2)
        .unwrap_or(head.len());
    format!("{}…", head[..at].trim_end_matches([',', ' ']))
}

#[cfg(test)]
mod tests {
    use super::cut_at_words;

    #[test]
    fn cuts_fall_on_word_or_field_boundaries() {
        assert_eq!(cut_at_words("short", 10), "short");
        assert_eq!(cut_at_words("one two three four", 12), "one two…");
        assert_eq!(cut_at_words("a: 1, b: 2, c: 3", 13), "a: 1, b: 2…");
        assert_eq!(cut_at_words("abcdefghijkl", 6), "abcde…");
    }
}
