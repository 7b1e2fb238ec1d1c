#![allow(clippy::unwrap_used)]
//! The settings a user changes, on screen: each built-in theme's styles (snapshots), NO_COLOR
//! over any theme, the shard list sorted and filtered, and on 1,000 shards the hot shard and the
//! draining one kept in sight.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_debug_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use shardtop::source::SourceEvent;
use shardtop::ui::palette::Palette;
use shardtop::ui::theme::Theme;
use shardtop::ui::{Action, App};
use shardtop::view::{ClusterView, ShardRow};

#[test]
fn each_built_in_theme_styles_the_screen_its_own_way() {
    let mut seen = Vec::new();
    for (name, palette) in Palette::BUILT_IN {
        let mut f = Fixture::new("ascending", 60_000, (80, 24));
        f.app.settings.theme = Theme {
            colors: true,
            palette: *palette,
        };
        let t = f.draw();
        let buffer = t.backend().buffer().clone();
        let hot = buffer
            .content()
            .iter()
            .find(|c| c.symbol() == "◀")
            .map(|c| c.fg)
            .unwrap();
        assert_eq!(hot, palette.hot, "{name}: the hot mark is the theme's");
        assert!(!seen.contains(&buffer), "{name} looks like another theme");
        seen.push(buffer.clone());
        assert_debug_snapshot!(format!("theme_{name}_80x24"), buffer);
    }
}

#[test]
fn no_color_wins_over_any_theme() {
    let mut f = Fixture::new("ascending", 60_000, (80, 24));
    f.app.settings.theme = Theme {
        colors: false,
        palette: Palette::HIGH_CONTRAST,
    };
    let t = f.draw();
    assert!(
        t.backend()
            .buffer()
            .content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
    assert!(
        format!("{}", t.backend()).contains("◀ HOT"),
        "the glyphs stay"
    );
}

fn screen(app: &App) -> String {
    let (w, h) = app.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| shardtop::ui::render(f, app)).unwrap();
    format!("{}", terminal.backend())
}

fn shards_pane(text: &str) -> Vec<String> {
    text.lines()
        .skip(3)
        .take_while(|l| !l.contains('╰'))
        .map(|l| {
            // The cursor's ▶ after the swatch reads as the space it replaces.
            l.replace('▶', " ")
                .chars()
                .skip(1)
                .take(40)
                .collect::<String>()
                .trim()
                .to_string()
        })
        .filter(|l| l.chars().nth(2).is_some() && l.contains(" shard"))
        .filter(|l| !l.contains("orphaned:"))
        .collect()
}

#[test]
fn the_shard_list_sorts_and_filters_and_says_so() {
    let mut f = Fixture::new("drain", 40_000, (100, 30));
    f.keys(&[Action::CycleShardSort]);
    let text = screen(&f.app);
    assert!(text.contains("· by data"), "{text}");
    let rows = shards_pane(&text);
    let bytes: Vec<u64> = f
        .app
        .view
        .as_ref()
        .unwrap()
        .shards
        .iter()
        .map(|s| s.bytes)
        .collect();
    let largest = bytes.iter().enumerate().max_by_key(|(_, b)| **b).unwrap().0;
    assert!(rows[0].contains(&format!("shard000{largest}")), "{rows:?}");
    f.keys(&[Action::StartSearch]);
    for c in "0003".chars() {
        f.keys(&[Action::SearchChar(c)]);
    }
    f.keys(&[Action::SearchDone]);
    let text = screen(&f.app);
    assert!(text.contains("· /0003"), "{text}");
    let rows = shards_pane(&text);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].contains("shard0003"), "{rows:?}");
    f.keys(&[Action::Escape]);
    assert!(f.app.shard_filter.is_empty());
    for _ in 0..4 {
        f.keys(&[Action::CycleShardSort]);
    }
    assert!(!screen(&f.app).contains("· by "), "back to by name");
}

#[test]
fn on_a_thousand_shards_the_hot_and_the_draining_shard_stay_in_sight() {
    let mut app = App::new((100, 30), false, 4.0, true);
    let shards = (0..1000)
        .map(|i| ShardRow {
            id: format!("shard{i:04}"),
            chunks: 10,
            bytes: 1 << 20,
            write_share: if i == 777 { 0.9 } else { 0.0001 },
            hot: i == 777,
            draining: i == 500,
            ..ShardRow::default()
        })
        .collect();
    app.apply(SourceEvent::View(Box::new(ClusterView {
        shards,
        ..ClusterView::default()
    })));
    let text = screen(&app);
    assert!(
        text.contains("shard0777") && text.contains("◀ HOT"),
        "{text}"
    );
    assert!(
        text.contains("shard0500") && text.contains("DRAIN"),
        "{text}"
    );
    assert!(
        text.contains("shard0000"),
        "the list still starts at the top:\n{text}"
    );
    assert!(text.contains("more (↓ with the focus here)"), "{text}");
}
