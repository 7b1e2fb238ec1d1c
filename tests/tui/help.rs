#![allow(clippy::unwrap_used)]
//! The help overlay: every key of every screen reachable by scrolling at 80×24, the keys that
//! scroll, filter and close it (and only those: any other key does nothing), the lab's
//! side-by-side screen listing its own keys, and snapshots at 80×24.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::ui::help_keys::{SCREENS, help_of};
use shardtop::ui::screen::Screen;
use shardtop::ui::{Action, InputMode};

/// The help's text, scrolled from its top to its end one line at a time: every line it showed.
fn scroll_through(f: &mut Fixture) -> String {
    let mut seen = String::new();
    let mut last = String::new();
    for _ in 0..200 {
        let text = format!("{}", f.draw().backend());
        if text == last {
            return seen;
        }
        seen.push_str(&text);
        last = text;
        f.keys(&[Action::Down]);
    }
    panic!("the help never reached its end");
}

#[test]
fn every_key_of_every_screen_is_reachable_by_scrolling_at_80x24() {
    for screen in SCREENS {
        if screen == Screen::Lab {
            continue; // the lab's screen needs the lab's source: tests/tui/lab.rs
        }
        let mut f = Fixture::new("ascending", 30_000, (80, 24));
        f.app.screen = screen;
        f.refresh();
        f.keys(&[Action::ToggleHelp]);
        let first = format!("{}", f.draw().backend());
        let seen = scroll_through(&mut f);
        for (_, rows) in help_of(screen) {
            for (commands, what) in *rows {
                if commands.contains(&"lab") {
                    continue; // shown only for `shardtop lab`
                }
                // A long row wraps under its words.
                for word in what.split(' ') {
                    assert!(
                        seen.contains(word),
                        "{screen:?}: the help never shows {word:?} of {what:?}:\n{first}"
                    );
                }
                for c in commands.iter().filter(|c| **c != "mouse") {
                    let keys = f.app.settings.keys.keys_of(c);
                    assert!(seen.contains(&keys), "{screen:?}: {c}'s keys {keys:?}");
                }
            }
        }
    }
}

#[test]
fn the_help_scrolls_pages_and_says_how_it_closes() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.keys(&[Action::ToggleHelp]);
    let top = format!("{}", f.draw().backend());
    assert!(!top.contains("any key"), "{top}");
    assert!(top.contains("? Esc q close"), "{top}");
    assert!(
        top.contains("j k PgUp PgDn scroll") || top.contains("↑↓"),
        "{top}"
    );
    assert_snapshot!("help_top_80x24", top);
    f.keys(&[
        Action::Page(false),
        Action::Page(false),
        Action::Page(false),
    ]);
    let end = format!("{}", f.draw().backend());
    assert!(
        end.contains("zone bands below"),
        "the legend ends it:\n{end}"
    );
    assert_snapshot!("help_end_80x24", end);
    f.keys(&[Action::Page(true), Action::Page(true), Action::Page(true)]);
    assert_eq!(
        format!("{}", f.draw().backend()),
        top,
        "PgUp goes back to the top"
    );
}

#[test]
fn only_help_esc_and_quit_close_it_and_ctrl_c_still_quits() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    for close in [Action::ToggleHelp, Action::Escape, Action::Quit] {
        f.keys(&[Action::ToggleHelp]);
        for other in [Action::ToggleMetric, Action::Left, Action::ZoomIn] {
            let effects = f.app.update(other);
            assert!(f.app.help, "{other:?} leaves the help open");
            assert!(!effects.quit && effects.controls.is_empty(), "{other:?}");
        }
        let effects = f.app.update(close);
        assert!(!f.app.help, "{close:?} closes the help");
        assert!(!effects.quit, "{close:?} in the help does not quit");
    }
    f.keys(&[Action::ToggleHelp]);
    assert!(
        f.app.update(Action::Interrupt).quit,
        "Ctrl-C quits from the help"
    );
}

#[test]
fn slash_filters_the_help() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.keys(&[Action::ToggleHelp, Action::StartSearch]);
    assert_eq!(f.app.input, InputMode::HelpFilter);
    for c in "zone".chars() {
        f.keys(&[Action::SearchChar(c)]);
    }
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("zone bands on / off"), "{text}");
    assert!(text.contains("filter by shard name or zone"), "{text}");
    assert!(!text.contains("next / previous pane"), "{text}");
    assert!(text.contains("filter: zone"), "{text}");
    // Enter keeps the filter; q then closes the help (it is no longer typed).
    f.keys(&[Action::SearchDone]);
    assert!(format!("{}", f.draw().backend()).contains("filter “zone”"));
    f.keys(&[Action::Quit]);
    assert!(!f.app.help);
    f.keys(&[Action::ToggleHelp]);
    assert!(
        f.app.help_view.filter.is_empty(),
        "the help opens unfiltered"
    );
    f.keys(&[
        Action::StartSearch,
        Action::SearchChar('q'),
        Action::SearchChar('x'),
    ]);
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("no key matches “qx”"), "{text}");
}

#[test]
fn the_key_visualizer_and_history_list_their_own_keys() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.keys(&[Action::ToggleKeyVisualizer, Action::ToggleHelp]);
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("Keys of the key visualizer"), "{text}");
    assert!(
        text.contains("zoom into the key range under the cursor"),
        "{text}"
    );
    assert!(!text.contains("next / previous pane"), "{text}");
    assert_snapshot!("help_key_visualizer_80x24", text);
}
