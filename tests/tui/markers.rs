//! Colours and markers that never mislead (issue 48): `▲` never hides `◆` nor `J` (a query over
//! three chunks shows three diamonds, the hot one among them), zone bands in the zones' own
//! colours with a legend naming each zone, and the query's summary kept while a chunk is
//! selected. The palettes' contrast and distinctness are unit tests of `ui::palette`.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use ratatui::style::Color;
use shardtop::ui::app::Focus;
use shardtop::ui::panes::keyspace_marks::marks;
use shardtop::ui::theme::Theme;
use shardtop::ui::{Action, App};
use shardtop::view::{Cell, CollectionView};

fn cell(targeted: bool, hot: bool, jumbo: bool) -> Cell {
    Cell {
        count: 1,
        targeted,
        hot,
        jumbo,
        writes: u64::from(hot) * 100,
        ..Cell::default()
    }
}

fn row(c: &CollectionView, width: usize) -> String {
    let app = App::new((80, 24), false, 1.0, true);
    let line = marks(c, width, &app, Theme::new(false));
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn the_hot_mark_never_hides_a_query_target_nor_a_jumbo_chunk() {
    let c = CollectionView {
        cells: vec![
            cell(true, false, false),
            cell(true, true, false),
            cell(true, false, false),
            cell(false, true, true),
        ],
        ..CollectionView::default()
    };
    // One column a cell: the first mark of each, ◆ before ▲, J before ▲.
    assert_eq!(row(&c, 4), "◆◆◆J");
    // Room for two: both marks of the hot cells.
    let wide = row(&c, 8);
    assert_eq!(wide.matches('◆').count(), 3, "{wide:?}");
    assert_eq!(wide.matches('▲').count(), 2, "{wide:?}");
    assert_eq!(wide.matches('J').count(), 1, "{wide:?}");
    // The hot cell too narrow for ▲: its ◆ is drawn in the hot colour.
    let app = App::new((80, 24), false, 1.0, true);
    let theme = Theme::new(true);
    let line = marks(&c, 4, &app, theme);
    let second = line
        .spans
        .iter()
        .filter(|s| s.content == "◆")
        .nth(1)
        .unwrap();
    assert_eq!(second.style.fg, theme.hot().fg);
}

#[test]
fn zone_bands_have_their_own_colours_and_a_legend_naming_each_zone() {
    for size in [(80, 24), (120, 40)] {
        let f = Fixture::new("zones-ip", 30_000, size);
        let t = f.draw();
        let text = format!("{}", t.backend());
        let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
        let bottom = text
            .lines()
            .skip_while(|l| !l.contains("Key space"))
            .find(|l| l.contains('╰'))
            .unwrap();
        assert!(bottom.contains(" zones "), "{bottom}");
        for name in &c.zone_names {
            assert!(bottom.contains(&format!("━ {name}")), "{name}: {bottom}");
        }
        // No band is drawn in a shard's colour.
        let theme = f.app.settings.theme;
        let shard_colours: Vec<Option<Color>> = (0..8).map(|i| theme.shard(i).fg).collect();
        let buffer = t.backend().buffer();
        for cell in buffer.content().iter().filter(|x| x.symbol() == "├") {
            assert!(!shard_colours.contains(&Some(cell.fg)), "{:?}", cell.fg);
        }
        assert_snapshot!(format!("zones_ip_legend_{}x{}", size.0, size.1), text);
    }
}

#[test]
fn the_query_summary_stays_while_a_chunk_is_selected() {
    for size in [(80, 24), (120, 40)] {
        let mut f = Fixture::new("hashed", 0, size);
        f.keys(&[Action::StartQuery]);
        let keys: Vec<Action> = "{username: 'bob'}"
            .chars()
            .map(Action::SearchChar)
            .collect();
        f.keys(&keys);
        f.keys(&[Action::SearchDone, Action::Right]);
        assert_eq!(f.app.focus, Focus::KeySpace);
        let text = format!("{}", f.draw().backend());
        assert!(text.contains("◆ {username: 'bob'} → "), "{text}");
        assert!(text.contains("chunk "), "the selection: {text}");
        assert_snapshot!(format!("query_kept_selected_{}x{}", size.0, size.1), text);
    }
}
