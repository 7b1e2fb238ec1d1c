#![allow(clippy::unwrap_used)]
//! The key visualizer (`v`) on screen: ascending reads as one line climbing with the newest keys,
//! hashed as an even texture, multi-hotspot as several lines (snapshots at 80×24 and 160×48, one
//! with styles); the cursor and the time zoom; `v` and Esc go back.

mod common;

use common::ui_fixture::Fixture;
use insta::{assert_debug_snapshot, assert_snapshot};
use shardtop::ui::Action;

fn shown(name: &str, t_ms: u64, size: (u16, u16)) -> Fixture {
    let mut f = Fixture::new(name, t_ms, size);
    f.keys(&[Action::ToggleKeyVisualizer]);
    f
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
    let h = f.app.view.as_ref().unwrap().heatmap.clone().unwrap();
    let mut hot_before = 0;
    for col in h.writes.iter().filter(|c| c.iter().sum::<u64>() > 0) {
        let hot = (0..col.len()).max_by_key(|&i| col[i]).unwrap();
        assert!(hot >= hot_before, "the line went down: {:?}", h.writes);
        hot_before = hot;
        assert!(col.iter().filter(|&&w| w > 0).count() <= 2, "{col:?}");
    }
    assert!(hot_before > h.ranges.len() / 2, "the line climbed");
    let f = shown("hashed", 40_000, (100, 30));
    let h = f.app.view.as_ref().unwrap().heatmap.clone().unwrap();
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
    let before = f.app.view.as_ref().unwrap().heatmap.clone().unwrap();
    assert_eq!(before.secs_per_col, 1);
    f.keys(&[Action::Up, Action::Up, Action::Left]);
    let h = f.app.view.as_ref().unwrap().heatmap.clone().unwrap();
    assert!(
        h.cursor_text.contains("writes · now on shard"),
        "{}",
        h.cursor_text
    );
    assert_ne!(h.cursor_text, before.cursor_text);
    f.keys(&[Action::ZoomOut]);
    assert_eq!(
        f.app
            .view
            .as_ref()
            .unwrap()
            .heatmap
            .as_ref()
            .unwrap()
            .secs_per_col,
        2
    );
    f.keys(&[Action::Escape]);
    assert!(!f.app.key_visualizer);
    assert!(f.app.view.as_ref().unwrap().heatmap.is_none());
    assert!(format!("{}", f.draw().backend()).contains("Key space"));
}
