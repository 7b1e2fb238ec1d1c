#![allow(clippy::unwrap_used)]
//! Snapshots of the whole screen (TestBackend + insta) for several scenarios at fixed virtual
//! times and terminal sizes, one with styles, and the state reducer driven by key sequences.

use crate::common;

use common::ui_fixture::Fixture;
use insta::{assert_debug_snapshot, assert_snapshot};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::source::SourceControl;
use shardtop::ui::app::{Focus, Metric};
use shardtop::ui::{Action, App};

#[test]
fn ascending_at_80x24_shows_the_hot_shard() {
    let f = Fixture::new("ascending", 60_000, (80, 24));
    let t = f.draw();
    let text = format!("{}", t.backend());
    assert!(text.contains("◀ HOT"), "{text}");
    assert!(text.contains("100%"), "{text}");
    assert_snapshot!("ascending_60s_80x24", t.backend());
}

#[test]
fn ascending_at_160x48() {
    let f = Fixture::new("ascending", 120_000, (160, 48));
    assert_snapshot!("ascending_120s_160x48", f.draw().backend());
}

#[test]
fn hashed_at_time_zero_has_six_chunks_two_per_shard() {
    let f = Fixture::new("hashed", 0, (100, 30));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("· 6 chunks"), "{text}");
    assert_snapshot!("hashed_0s_100x30", text);
}

#[test]
fn low_cardinality_marks_jumbo_chunks() {
    let f = Fixture::new("low-cardinality", 600_000, (120, 32));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("jumbo"), "{text}");
    assert_snapshot!("low_cardinality_600s_120x32", text);
}

#[test]
fn zones_ip_draws_zone_bands_with_styles() {
    let f = Fixture::new("zones-ip", 30_000, (100, 30));
    let t = f.draw();
    let text = format!("{}", t.backend());
    assert!(text.contains("USPS") || text.contains("Apple"), "{text}");
    assert_snapshot!("zones_ip_30s_100x30", text);
    // Colours and modifiers: the hot chunk, zone bands, shard cells.
    assert_debug_snapshot!("zones_ip_30s_100x30_styles", t.backend().buffer());
}

#[test]
fn drain_shows_the_draining_badge() {
    let f = Fixture::new("drain", 40_000, (100, 30));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("DRAIN"), "{text}");
    assert_snapshot!("drain_40s_100x30", text);
}

#[test]
fn orphans_show_on_the_donor_until_the_range_deleter_runs() {
    let f = Fixture::new("orphans", 100_000, (120, 30));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("orphaned"), "{text}");
    assert_snapshot!("orphans_100s_120x30", text);
    let later = Fixture::new("orphans", 950_000, (120, 30));
    let text = format!("{}", later.draw().backend());
    assert!(!text.contains("until the range deleter runs"), "{text}");
}

#[test]
fn defragmentation_and_move_collection_are_named_in_the_key_space_title() {
    let f = Fixture::new("defragment", 45_000, (120, 30));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("defragmenting: moveAndMergeChunks"), "{text}");
    assert_snapshot!("defragment_45s_120x30", text);
    let f = Fixture::new("move-collection", 120_000, (120, 30));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("unshardCollection under way"), "{text}");
}

#[test]
fn a_too_small_terminal_says_so() {
    let f = Fixture::new("ascending", 0, (50, 12));
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("terminal too small: 50×12"), "{text}");
}

#[test]
fn help_lists_every_binding() {
    // Tall enough for every row of the main layout's help at once.
    let mut f = Fixture::new("ascending", 0, (100, 60));
    f.keys(&[Action::ToggleHelp]);
    let text = format!("{}", f.draw().backend());
    for (_, rows) in shardtop::ui::keymap::HELP {
        for (commands, what) in *rows {
            if commands.contains(&"lab") {
                continue; // shown only for `shardtop lab` (tests/e2e_lab.rs)
            }
            // A long row wraps under its words.
            for word in what.split(' ') {
                assert!(
                    text.contains(word),
                    "help lacks {word:?} of {what:?}:\n{text}"
                );
            }
        }
    }
    assert_snapshot!("help_100x48", text);
    f.keys(&[Action::Down]);
    assert!(
        f.app.help,
        "an arrow scrolls the help, it does not close it"
    );
    f.keys(&[Action::Escape]);
    assert!(!f.app.help, "Esc closes the help");
}

#[test]
fn no_color_screens_carry_the_same_marks() {
    let mut f = Fixture::new("ascending", 60_000, (80, 24));
    f.app.settings.theme.colors = false;
    let t = f.draw();
    let buffer = t.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset)
    );
    let text = format!("{}", t.backend());
    assert!(text.contains("◀ HOT") && text.contains('▲'), "{text}");
}

#[test]
fn selecting_and_zooming_shows_one_chunk() {
    let mut f = Fixture::new("ascending", 120_000, (100, 30));
    let chunks = f
        .app
        .view
        .as_ref()
        .unwrap()
        .collection
        .as_ref()
        .unwrap()
        .chunks;
    assert!(
        chunks > 3,
        "the ascending scenario has split by now ({chunks} chunks)"
    );
    f.keys(&[Action::FocusNext, Action::FocusNext]);
    assert_eq!(f.app.focus, Focus::KeySpace);
    let hot = f.app.cursor;
    let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
    assert!(
        c.cells[hot].hot,
        "the selection starts at the hot chunk: {:?}",
        c.hot
    );
    let sel = c.selection.unwrap();
    assert_eq!(sel.count, 1);
    assert!(
        sel.max.contains("MaxKey"),
        "the ascending hot chunk ends at MaxKey: {sel:?}"
    );
    // Zoom in twice: the window halves each time, around the selection.
    let sent = f.keys(&[Action::ZoomIn, Action::ZoomIn]);
    assert!((f.app.span - 0.25).abs() < 1e-9);
    assert!(
        sent.iter()
            .any(|c| matches!(c, SourceControl::View(r) if (r.span - 0.25).abs() < 1e-9))
    );
    let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
    assert!(
        c.window_first + c.window_len == chunks,
        "zoomed around the last chunk"
    );
    assert!(
        c.cells[f.app.cursor].hot,
        "the selection stays on the hot chunk"
    );
    assert_snapshot!("ascending_zoomed_100x30", format!("{}", f.draw().backend()));
    f.keys(&[Action::ZoomReset]);
    assert!((f.app.span - 1.0).abs() < 1e-9 && f.app.start == 0.0);
}

#[test]
fn keys_drive_the_clock_through_source_commands() {
    let mut f = Fixture::new("ascending", 0, (80, 24));
    assert_eq!(
        f.keys(&[Action::TogglePause]),
        vec![SourceControl::SetPaused(false)]
    );
    assert_eq!(
        f.keys(&[Action::Faster]),
        vec![SourceControl::SetSpeed(8.0)]
    );
    assert_eq!(
        f.keys(&[Action::Slower, Action::Slower]),
        vec![SourceControl::SetSpeed(4.0), SourceControl::SetSpeed(2.0)]
    );
    assert_eq!(
        f.keys(&[Action::Step(false)]),
        vec![SourceControl::Step(-1000)]
    );
    assert_eq!(
        f.keys(&[Action::Seek(true)]),
        vec![SourceControl::SeekBy(10_000)]
    );
    assert_eq!(
        f.keys(&[Action::Migration(true)]),
        vec![SourceControl::Migration { forward: true }]
    );
    assert!(f.app.paused);
    // `r`: back to the start, playing.
    assert_eq!(f.keys(&[Action::Restart]), vec![SourceControl::Restart]);
    assert!(!f.app.paused);
}

#[test]
fn focus_filter_search_and_toggles() {
    let mut f = Fixture::new("ascending", 100_000, (80, 24));
    assert_eq!(f.app.focus, Focus::Shards);
    f.keys(&[Action::FocusPrev]);
    assert_eq!(f.app.focus, Focus::Events);
    f.keys(&[Action::CycleLogFilter, Action::CycleLogFilter]);
    assert!(
        f.app
            .visible_log()
            .all(|l| l.kind == shardtop::view::LogKind::Migration)
    );
    assert!(f.app.visible_log().count() > 0);
    // ↑ moves the cursor back over the lines shown (the log scrolls at the pane's top).
    let len = f.app.visible_log().count();
    assert!(len >= 3, "{len}");
    f.keys(&[Action::Up, Action::Up]);
    let visible: Vec<_> = f.app.visible_log().cloned().collect();
    let selected = shardtop::ui::panes::events::selected(&f.app).unwrap();
    assert_eq!(selected, &visible[len - 3]);
    f.keys(&[Action::Down]);
    let selected = shardtop::ui::panes::events::selected(&f.app).unwrap();
    assert_eq!(selected, &visible[len - 2]);
    f.keys(&[
        Action::Escape,
        Action::StartSearch,
        Action::SearchChar('#'),
        Action::SearchChar('2'),
        Action::SearchDone,
    ]);
    assert_eq!(f.app.search, "#2");
    assert!(!f.app.input.typing());
    assert!(f.app.visible_log().all(|l| l.text.contains("#2")));
    f.keys(&[
        Action::ToggleMetric,
        Action::ToggleZones,
        Action::ToggleHeat,
    ]);
    assert_eq!(f.app.metric, Metric::Data);
    assert!(!f.app.zones && !f.app.heat);
    assert!(f.app.update(Action::Quit).quit);
}

type DrawPane<'a> = dyn Fn(&mut ratatui::Frame, &App) + 'a;

/// Each pane alone, filling the terminal, at 80×24 and 160×48.
#[test]
fn each_pane_at_80x24_and_160x48() {
    use shardtop::ui::panes::{balancer, events, footer, header, keyspace, shards};
    use shardtop::ui::theme::Theme;
    for (w, h) in [(80u16, 24u16), (160, 48)] {
        let f = Fixture::new("zones-ip", 60_000, (w, h));
        let theme = Theme::new(true);
        let panes: [(&str, &DrawPane<'_>); 6] = [
            ("header", &|fr, app| {
                header::render(fr, fr.area(), app, theme);
            }),
            ("shards", &|fr, app| {
                shards::render(fr, fr.area(), app, theme, true);
            }),
            ("balancer", &|fr, app| {
                balancer::render(fr, fr.area(), app, theme, false);
            }),
            ("keyspace", &|fr, app| {
                keyspace::render(fr, fr.area(), app, theme, false);
            }),
            ("events", &|fr, app| {
                events::render(fr, fr.area(), app, theme, false);
            }),
            ("footer", &|fr, app| {
                footer::render(fr, fr.area(), app, theme);
            }),
        ];
        for (name, draw) in panes {
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            t.draw(|fr| draw(fr, &f.app)).unwrap();
            assert_snapshot!(format!("pane_{name}_{w}x{h}"), t.backend());
        }
    }
}

#[test]
fn clicks_focus_panes_and_select_strip_cells() {
    let mut f = Fixture::new("ascending", 120_000, (100, 30));
    let areas = shardtop::ui::panes::layout(ratatui::layout::Rect::new(0, 0, 100, 30), 3).unwrap();
    let events = areas.events.unwrap();
    f.keys(&[Action::Click(events.x + 3, events.y + 2)]);
    assert_eq!(f.app.focus, Focus::Events);
    f.keys(&[Action::Wheel(true, events.x + 3, events.y + 2)]);
    assert_eq!(f.app.log_scroll, 1, "the wheel scrolls the pane under it");
    let cells = f
        .app
        .view
        .as_ref()
        .unwrap()
        .collection
        .as_ref()
        .unwrap()
        .cells
        .len();
    let strip_y = areas.keyspace.y + 2;
    f.keys(&[Action::Click(
        areas.keyspace.x + areas.keyspace.width - 2,
        strip_y,
    )]);
    assert_eq!(f.app.focus, Focus::KeySpace);
    assert_eq!(
        f.app.cursor,
        cells - 1,
        "the last column selects the last cell"
    );
    f.keys(&[Action::Click(areas.keyspace.x + 1, strip_y)]);
    assert_eq!(f.app.cursor, 0);
}

#[test]
fn a_typed_query_shows_its_targeting() {
    let mut f = Fixture::new("hashed", 60_000, (100, 30));
    let mut keys = vec![Action::StartQuery];
    keys.extend(r#"{"username": "alice"}"#.chars().map(Action::SearchChar));
    keys.push(Action::SearchDone);
    let sent = f.keys(&keys);
    assert!(sent.iter().any(|c| matches!(c, SourceControl::View(r) if r.query.as_deref() == Some(r#"{"username": "alice"}"#))));
    let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
    match c.query.unwrap() {
        shardtop::view::QueryView::Targeted {
            stage,
            shards,
            chunks,
            ..
        } => {
            assert_eq!(stage, "SINGLE_SHARD");
            assert_eq!((shards.len(), chunks), (1, 1));
        }
        other @ shardtop::view::QueryView::Invalid { .. } => panic!("{other:?}"),
    }
    assert_eq!(c.cells.iter().filter(|x| x.targeted).count(), 1);
    let text = format!("{}", f.draw().backend());
    assert!(
        text.contains("SINGLE_SHARD") && text.contains('◆'),
        "{text}"
    );
    assert_snapshot!("hashed_query_100x30", text);
    // A range on a hashed key is a broadcast.
    f.keys(&[Action::Escape, Action::StartQuery]);
    let mut keys: Vec<Action> =
        r#"{"username": {"$gt": "m"}}"#.chars().map(Action::SearchChar).collect();
    keys.push(Action::SearchDone);
    f.keys(&keys);
    let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
    assert!(matches!(
        c.query,
        Some(shardtop::view::QueryView::Targeted {
            stage: "SHARD_MERGE",
            ..
        })
    ));
    // Bad JSON says so; Esc clears.
    f.keys(&[
        Action::Escape,
        Action::StartQuery,
        Action::SearchChar('{'),
        Action::SearchDone,
    ]);
    let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
    assert!(matches!(
        c.query,
        Some(shardtop::view::QueryView::Invalid { .. })
    ));
    f.keys(&[Action::Escape]);
    assert!(f.app.query.is_none());
}

#[test]
fn the_explain_panel_replaces_the_event_log() {
    let mut f = Fixture::new("drain", 40_000, (120, 32));
    f.keys(&[Action::ToggleExplain]);
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("Explain"), "{text}");
    assert!(text.contains("next:"), "{text}");
    assert!(!text.contains(" Events "), "{text}");
    assert_snapshot!("drain_40s_120x32_explain", text);
    // On the selected cell of the key space: the chunk is the key's.
    f.keys(&[Action::FocusPrev, Action::Right]);
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("(key)"), "{text}");
    f.keys(&[Action::ToggleExplain]);
    let text = format!("{}", f.draw().backend());
    assert!(text.contains(" Events "), "{text}");
}

#[test]
fn the_query_prompt_reads_mongosh_syntax_and_reopens_on_its_text_selected() {
    let mut f = Fixture::new("hashed", 60_000, (100, 30));
    let mut keys = vec![Action::StartQuery];
    keys.extend("{username: 'alice'}".chars().map(Action::SearchChar));
    keys.push(Action::SearchDone);
    f.keys(&keys);
    let c = f.app.view.as_ref().unwrap().collection.clone().unwrap();
    assert!(
        matches!(
            c.query,
            Some(shardtop::view::QueryView::Targeted {
                stage: "SINGLE_SHARD",
                ..
            })
        ),
        "{:?}",
        c.query
    );
    // `t` again: the old text, selected; a typed character replaces it instead of being appended.
    f.keys(&[Action::StartQuery]);
    assert!(f.app.query_selected);
    let text = format!("{}", f.draw().backend());
    assert!(
        text.contains("{username: 'alice'}") && text.contains("typing replaces"),
        "{text}"
    );
    let mut keys: Vec<Action> = "{username: 'bob'}"
        .chars()
        .map(Action::SearchChar)
        .collect();
    keys.push(Action::SearchDone);
    f.keys(&keys);
    assert_eq!(f.app.query.as_deref(), Some("{username: 'bob'}"));
    // Reopened and Enter: the same filter is kept; reopened and Backspace: all of it goes.
    f.keys(&[Action::StartQuery, Action::SearchDone]);
    assert_eq!(f.app.query.as_deref(), Some("{username: 'bob'}"));
    f.keys(&[Action::StartQuery, Action::SearchBackspace]);
    assert_eq!(f.app.query_text, "");
    assert!(!f.app.query_selected);
}
