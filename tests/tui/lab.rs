#![allow(clippy::unwrap_used)]
//! The lab's side-by-side screen: every candidate a column (shards with their share of the new
//! inserts, the strip with the hot chunk, the numbers, each query's targeting), advancing in
//! lockstep; ←/→ choose a candidate, Enter opens it in the full layout, `L` comes back; going
//! back in time starts again from the layout and gives the same state. A snapshot at 120×40;
//! every key of its help reachable by scrolling at 80×24.

use bson::Document;
use insta::assert_snapshot;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use shardtop::lab::example;
use shardtop::lab::run::ClusterSpec;
use shardtop::lab::trial::{Arrival, Trial};
use shardtop::model::KeyPattern;
use shardtop::source::lab::LabTimeline;
use shardtop::source::{SourceEvent, Timeline};
use shardtop::ui::screen::Screen;
use shardtop::ui::{Action, App};
use shardtop::view::ClockView;

const KEYS: [&str; 2] = [r#"{"placedAt": 1}"#, r#"{"customerId": "hashed"}"#];

pub(crate) fn timeline() -> LabTimeline {
    timeline_of(&KEYS)
}

/// The lab over `keys`, on 6,000 of the example's orders.
fn timeline_of(keys: &'static [&'static str]) -> LabTimeline {
    let docs: Vec<(Document, u64)> = example::orders_n(3, 6000)
        .map(|d| {
            let n = bson::to_vec(&d).unwrap().len() as u64;
            (d, n)
        })
        .collect();
    let new_trial = Box::new(|| {
        let keys: Vec<KeyPattern> = keys
            .iter()
            .map(|k| KeyPattern::parse_json(k).unwrap())
            .collect();
        let spec = ClusterSpec {
            shards: 3,
            chunk_size_mb: 1,
            server_version: shardtop::cluster::ServerVersion::DEFAULT,
            num_initial_chunks: Some(12),
            zones: Vec::new(),
            zone_ranges: Vec::new(),
        };
        let arrival = Arrival {
            from_empty: false,
            initial_docs: 3000,
            rate_per_sec: 100.0,
        };
        Trial::new(spec, arrival, &keys, &[])
    });
    LabTimeline::new(new_trial, docs, example::traffic()).unwrap()
}

pub(crate) fn feed(tl: &LabTimeline, app: &mut App) {
    let clock = ClockView {
        time_ms: tl.now_ms(),
        paused: true,
        speed: 4.0,
        end_ms: tl.end_ms(),
        virtual_time: true,
        wall_start_ms: None,
    };
    app.apply(SourceEvent::View(Box::new(tl.view(
        &app.request(),
        clock,
        None,
    ))));
}

pub(crate) fn screen(app: &App) -> String {
    let (w, h) = app.size;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| shardtop::ui::render(f, app)).unwrap();
    let buf = t.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect()
}

/// Whether `text` has a number cut by `…` (a digit, `%` or a unit's last letter right before it).
fn a_number_is_cut(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars
        .windows(2)
        .any(|w| w[1] == '…' && (w[0].is_ascii_digit() || w[0] == '%' || w[0] == ','))
}

#[test]
fn four_candidates_at_80x24_keep_every_number_whole() {
    const FOUR: [&str; 4] = [
        r#"{"_id": 1}"#,
        r#"{"city": 1}"#,
        r#"{"customerId": "hashed"}"#,
        r#"{"customerId": 1, "placedAt": 1}"#,
    ];
    let mut tl = timeline_of(&FOUR);
    tl.advance_to(10_000, &mut Vec::new()).unwrap();
    for (w, h) in [(80, 24), (120, 40)] {
        let mut app = App::new((w, h), false, 4.0, true);
        app.screen = Screen::Lab;
        feed(&tl, &mut app);
        let text = screen(&app);
        assert!(!a_number_is_cut(&text), "{text}");
        assert!(text.contains("100%") && text.contains("1,000"), "{text}");
        assert_snapshot!(format!("lab_four_candidates_{w}x{h}"), text);
    }
}

#[test]
fn the_candidates_advance_side_by_side_and_one_opens_in_the_full_layout() {
    let mut tl = timeline();
    let mut log = Vec::new();
    tl.advance_to(10_000, &mut log).unwrap();
    let mut app = App::new((120, 40), false, 4.0, true);
    app.screen = Screen::Lab;
    feed(&tl, &mut app);
    let text = screen(&app);
    assert!(text.contains("documents 4,000 of 6,000"), "{text}");
    assert!(text.contains("{placedAt: 1}") && text.contains("{customerId: \"hashed\"}"));
    let lab = app.view.as_ref().unwrap().lab.clone().unwrap();
    // The ascending key takes every new insert on one shard; the hashed one spreads them.
    assert!(
        (lab.columns[0].max_share - 1.0).abs() < 1e-9,
        "{:?}",
        lab.columns[0]
    );
    assert!(lab.columns[1].max_share < 0.6, "{:?}", lab.columns[1]);
    assert_eq!(lab.columns[0].new_inserts, 1000);
    assert!(lab.columns[0].strip.iter().any(|(_, hot)| *hot));
    assert_eq!(lab.columns[1].targets[0].1, "one shard");
    assert_eq!(lab.columns[0].targets[0].1, "scatter-gather");
    assert_snapshot!("lab_side_by_side_120x40", text);

    // → then Enter: the hashed candidate in the full layout.
    app.update(Action::Right);
    app.update(Action::ZoomIn);
    assert_eq!(app.screen, Screen::Main);
    assert_eq!(app.request().collection, 1);
    feed(&tl, &mut app);
    let text = screen(&app);
    assert!(
        text.contains("Key space · lab.candidate {customerId: \"hashed\"}"),
        "{text}"
    );
    app.update(Action::ToggleLab);
    assert_eq!(app.screen, Screen::Lab);

    // Back in time: the same state again from the layout.
    let before = tl.view(&app.request(), ClockView::default(), None).lab;
    tl.seek(2_000, &mut Vec::new()).unwrap();
    tl.seek(10_000, &mut Vec::new()).unwrap();
    assert_eq!(
        tl.view(&app.request(), ClockView::default(), None).lab,
        before
    );
}

#[test]
fn the_help_of_the_side_by_side_screen_lists_its_own_keys() {
    let mut tl = timeline();
    tl.advance_to(2_000, &mut Vec::new()).unwrap();
    let mut app = App::new((80, 24), false, 4.0, true);
    app.screen = Screen::Lab;
    feed(&tl, &mut app);
    app.update(Action::ToggleHelp);
    let text = screen(&app);
    for what in [
        "choose the previous / next candidate",
        "open the chosen candidate in the full layout",
        "back to the full layout",
    ] {
        assert!(text.contains(what), "{what}:\n{text}");
    }
    assert!(text.contains("← h  → l") && text.contains("L "), "{text}");
    assert!(
        !text.contains("select a cell"),
        "not the main view's keys:\n{text}"
    );
    assert_snapshot!("lab_help_80x24", text);
}

#[test]
fn every_key_of_the_lab_s_help_is_reachable_by_scrolling_at_80x24() {
    let mut tl = timeline();
    tl.advance_to(2_000, &mut Vec::new()).unwrap();
    let mut app = App::new((80, 24), false, 4.0, true);
    app.screen = Screen::Lab;
    feed(&tl, &mut app);
    app.update(Action::ToggleHelp);
    let (mut seen, mut last) = (String::new(), String::new());
    for _ in 0..200 {
        let text = screen(&app);
        if text == last {
            break;
        }
        seen.push_str(&text);
        last = text;
        app.update(Action::Down);
    }
    assert_eq!(screen(&app), last, "the help reached its end");
    for (_, rows) in shardtop::ui::help_keys::help_of(Screen::Lab) {
        for (commands, what) in *rows {
            // A long row wraps under its words.
            for word in what.split(' ') {
                assert!(seen.contains(word), "{word:?} of {what:?} never shown");
            }
            for c in commands.iter().filter(|c| **c != "mouse") {
                let keys = app.settings.keys.keys_of(c);
                assert!(seen.contains(&keys), "{c}'s keys {keys:?}");
            }
        }
    }
}

#[test]
fn the_lab_screen_is_only_there_for_the_lab() {
    let mut app = App::new((120, 40), false, 4.0, true);
    app.update(Action::ToggleLab);
    assert_eq!(app.screen, Screen::Main);
}
