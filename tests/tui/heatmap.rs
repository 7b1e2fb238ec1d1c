#![allow(clippy::unwrap_used)]
//! The key visualizer (`v`) on screen: ascending reads as one line climbing with the newest keys,
//! hashed as an even texture, multi-hotspot as several lines (snapshots at 80×24 and 160×48, one
//! with styles); the cursor, the time zoom and the key zoom; owners through time (a migration is
//! a change of owner in the band); `v` and Esc go back.

use crate::common;

use common::ui_fixture::Fixture;
use insta::{assert_debug_snapshot, assert_snapshot};
use shardtop::ui::Action;
use shardtop::ui::screen::Screen;

fn shown(name: &str, t_ms: u64, size: (u16, u16)) -> Fixture {
    let mut f = Fixture::new(name, t_ms, size);
    f.keys(&[Action::ToggleKeyVisualizer]);
    f
}

/// The key visualizer's frame the app holds.
fn heatmap(f: &Fixture) -> shardtop::view::key_visualizer::KeyVisualizerView {
    f.app.view.as_ref().unwrap().heatmap.clone().unwrap()
}

#[test]
fn ascending_hashed_and_multi_hotspot_read_at_a_glance() {
    for (name, t) in [
        ("ascending", 60_000),
        ("hashed", 40_000),
        ("multi-hotspot", 40_000),
    ] {
        for size in [(80, 24), (160, 48)] {
            let f = shown(name, t, size);
            let text = format!("{}", f.draw().backend());
            assert!(text.contains("Key visualizer"), "{text}");
            assert_snapshot!(format!("key_visualizer_{name}_{}x{}", size.0, size.1), text);
        }
    }
    let f = shown("ascending", 60_000, (80, 24));
    assert_debug_snapshot!(
        "key_visualizer_ascending_80x24_styles",
        f.draw().backend().buffer()
    );
}

#[test]
fn ascending_is_one_line_climbing_and_hashed_an_even_texture() {
    let f = shown("ascending", 60_000, (100, 30));
    let h = heatmap(&f);
    let mut hot_before = 0;
    for col in h.writes.iter().filter(|c| c.iter().sum::<u64>() > 0) {
        let hot = (0..col.len()).max_by_key(|&i| col[i]).unwrap();
        assert!(hot >= hot_before, "the line went down: {:?}", h.writes);
        hot_before = hot;
        assert!(col.iter().filter(|&&w| w > 0).count() <= 2, "{col:?}");
    }
    assert!(hot_before > h.ranges.len() / 2, "the line climbed");
    let f = shown("hashed", 40_000, (100, 30));
    let h = heatmap(&f);
    let busy: Vec<&Vec<u64>> = h
        .writes
        .iter()
        .filter(|c| c.iter().sum::<u64>() > 0)
        .collect();
    assert!(!busy.is_empty());
    let lit = busy[0].iter().filter(|&&w| w > 0).count();
    assert!(
        lit * 2 >= h.ranges.len(),
        "hashed writes light most ranges at once: {:?}",
        busy[0]
    );
}

#[test]
fn the_cursor_moves_zoom_changes_time_and_esc_goes_back() {
    let mut f = shown("ascending", 60_000, (100, 30));
    let before = heatmap(&f);
    assert_eq!(before.secs_per_col, 1);
    f.keys(&[Action::Up, Action::Up, Action::Left]);
    let h = heatmap(&f);
    assert!(
        h.cursor_text.contains("writes · on shard"),
        "{}",
        h.cursor_text
    );
    assert_ne!(h.cursor_text, before.cursor_text);
    f.keys(&[Action::TimeZoom(false)]);
    assert_eq!(heatmap(&f).secs_per_col, 2);
    f.keys(&[Action::Escape]);
    assert_eq!(f.app.screen, Screen::Main);
    assert!(f.app.view.as_ref().unwrap().heatmap.is_none());
    assert!(format!("{}", f.draw().backend()).contains("Key space"));
}

#[test]
fn zooming_into_a_range_shows_only_its_keys_and_zooming_out_goes_back() {
    let mut f = shown("ascending", 60_000, (100, 30));
    let whole = heatmap(&f);
    assert!(whole.zoomed.is_none());
    // The range written most: the line's top.
    let busy = (0..whole.ranges.len())
        .max_by_key(|&r| whole.writes.iter().map(|c| c[r]).sum::<u64>())
        .unwrap();
    f.app.heatmap.cursor.1 = busy;
    f.keys(&[Action::ZoomIn]);
    let zoomed = heatmap(&f);
    let (low, high) = (&whole.bounds[busy], &whole.bounds[busy + 1]);
    assert_eq!(zoomed.bounds.first(), Some(low));
    assert_eq!(zoomed.bounds.last(), Some(high));
    assert!(
        zoomed.ranges.len() > 1,
        "the range is cut again: {:?}",
        zoomed.ranges
    );
    assert!(zoomed.bounds.windows(2).all(|b| b[0] < b[1]));
    let sum = |h: &shardtop::view::key_visualizer::KeyVisualizerView| -> u64 {
        h.writes.iter().flatten().sum()
    };
    let in_range: u64 = whole.writes.iter().map(|c| c[busy]).sum();
    assert_eq!(
        sum(&zoomed),
        in_range,
        "the zoomed grid holds the range's writes"
    );
    assert!(
        zoomed
            .zoomed
            .as_deref()
            .unwrap()
            .starts_with("[{_id: ObjectId(")
    );
    assert!(format!("{}", f.draw().backend()).contains("zoomed into"));
    f.keys(&[Action::ZoomOut]);
    let back = heatmap(&f);
    assert_eq!(back.bounds, whole.bounds);
    f.keys(&[Action::ZoomIn, Action::ZoomReset]);
    assert!(heatmap(&f).zoomed.is_none());
}

#[test]
fn owners_through_time_change_where_the_balancer_moved_a_range() {
    // Ascending: the balancer moves the cold low chunks off the shard taking the inserts.
    let f = shown("ascending", 120_000, (100, 30));
    let h = heatmap(&f);
    assert_eq!(
        h.owners.len(),
        h.writes.len(),
        "an owner column per time column"
    );
    let changed = (0..h.ranges.len())
        .filter(|&r| h.owners.windows(2).any(|w| w[0][r] != w[1][r]))
        .count();
    assert!(changed > 0, "some range changed owner: {:?}", h.owners);
    let view = f.app.view.as_ref().unwrap();
    let now: Vec<usize> = h.owners.last().unwrap().clone();
    let shards: Vec<&str> = view.shards.iter().map(|s| s.id.as_str()).collect();
    assert!(now.iter().all(|&s| s < shards.len()));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("bands: owners at the cursor"), "{text}");
}
