#![allow(clippy::unwrap_used)]
//! The main screen, the key visualizer, the history and the lab's side-by-side screen at
//! 80×24, 120×40 and 200×60 (issue 35's three sizes, insta snapshots), and the cut rules: the
//! least important text goes first and a number is never cut (a number a cut ends on is the
//! whole number the widest screen shows); the header keeps "balancer on" at 80 columns; the
//! balancer's recent list keeps a failed migration's destination and reason at 120; a title or
//! a note too long for its pane is cut at a word, the orphans' and the cursor's numbers first.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::source::Timeline;
use shardtop::ui::screen::Screen;
use shardtop::ui::{Action, App};

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

/// The runs of digits in `text` (a number with its decimal point and grouping commas counts
/// as one), each with whether a cut ellipsis follows it at once.
fn numbers(text: &str) -> Vec<(String, bool)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() || (i > 0 && chars[i - 1].is_alphanumeric()) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (matches!(chars[i], '.' | ',')
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            i += 1;
        }
        let n: String = chars[start..i].iter().collect();
        out.push((n, chars.get(i) == Some(&'…')));
    }
    out
}

/// The numbers a cut ends on in `small` that the widest screen `wide` never shows whole.
fn cut_numbers(small: &str, wide: &str) -> Vec<String> {
    let whole: std::collections::HashSet<String> =
        numbers(wide).into_iter().map(|(n, _)| n).collect();
    (numbers(small).into_iter())
        .filter(|(n, cut)| *cut && !whole.contains(n))
        .map(|(n, _)| n)
        .collect()
}

/// A screen at the three sizes, snapshotted as `NAME_WxH`, and checked: no number cut.
fn at_every_size(name: &str, draw: impl Fn((u16, u16)) -> String) -> Vec<String> {
    let texts: Vec<String> = SIZES.iter().map(|&s| draw(s)).collect();
    let wide = texts.last().unwrap();
    for (text, (w, h)) in texts.iter().zip(SIZES) {
        let cut = cut_numbers(text, wide);
        assert!(
            cut.is_empty(),
            "{name} {w}×{h}: numbers cut {cut:?}:\n{text}"
        );
        assert_snapshot!(format!("{name}_{w}x{h}"), text);
    }
    texts
}

fn fixture_screen(name: &str, t_ms: u64, keys: &[Action], size: (u16, u16)) -> String {
    let mut f = Fixture::new(name, t_ms, size);
    f.keys(keys);
    format!("{}", f.draw().backend())
}

#[test]
fn the_main_screen_at_three_sizes() {
    let texts = at_every_size("main_ascending_60s", |s| {
        fixture_screen("ascending", 60_000, &[], s)
    });
    let header = texts[0].lines().next().unwrap();
    assert!(header.contains("balancer on"), "80 columns: {header}");
    // The orphans' numbers before their explanation: whole at every size.
    for text in &texts {
        assert!(text.contains("orphaned: shard0000 2.0 MiB (2096"), "{text}");
    }
    // A failed migration in the balancer's recent list: destination and reason.
    let texts = at_every_size("main_low_cardinality_600s", |s| {
        fixture_screen("low-cardinality", 600_000, &[], s)
    });
    assert!(texts[0].lines().next().unwrap().contains("balancer on"));
    for text in &texts[1..] {
        let failed = (text.lines()).find(|l| l.contains("✗")).unwrap();
        assert!(failed.contains("→ shC: ChunkTooBig"), "{text}");
    }
}

#[test]
fn the_key_visualizer_at_three_sizes() {
    let texts = at_every_size("key_visualizer_ascending_60s", |s| {
        fixture_screen("ascending", 60_000, &[Action::ToggleKeyVisualizer], s)
    });
    for text in &texts {
        assert!(text.contains("Key visualizer"), "{text}");
        assert!(text.contains("balancer on"), "{text}");
        // The cursor's writes and shard before its (long) range.
        let cursor = (text.lines()).find(|l| l.contains("│cursor ")).unwrap();
        assert!(cursor.contains(" writes · on shard"), "{cursor}");
    }
}

#[test]
fn the_history_at_three_sizes() {
    let texts = at_every_size("history_drain_40s", |s| {
        fixture_screen("drain", 40_000, &[Action::ToggleHistory], s)
    });
    for text in &texts {
        assert!(text.contains("draining shard0003"), "{text}");
    }
}

#[test]
fn the_lab_at_three_sizes() {
    let texts = at_every_size("lab_side_by_side_10s", |s| {
        let mut tl = super::lab::timeline();
        tl.advance_to(10_000, &mut Vec::new()).unwrap();
        let mut app = App::new(s, false, 4.0, true);
        app.screen = Screen::Lab;
        super::lab::feed(&tl, &mut app);
        super::lab::screen(&app)
    });
    for text in &texts {
        // Each candidate's key whole, its closing brace too.
        for key in ["{placedAt: 1}", "{customerId: \"hashed\"}"] {
            assert!(text.contains(key), "{key}:\n{text}");
        }
    }
}

#[test]
fn a_number_cut_is_found() {
    assert_eq!(cut_numbers("share 3… of", "share 37% of"), ["3"]);
    assert!(cut_numbers("3784 docs…", "3784 docs, 1.0 MiB").is_empty());
    assert!(cut_numbers("shard0001…", "shard0001 x").is_empty());
    assert_eq!(cut_numbers("1.0 MiB, 12…", "12,345 docs"), ["12"]);
}
