#![allow(clippy::unwrap_used)]
//! The command palette (`:`): every command of the screen shown with its keys, filtered as one
//! types, ↑/↓ and Enter run the chosen one, Esc closes; only what acts on the screen and the
//! source is listed. `y` copies the selected cell's bounds (the effect the runtime sends with
//! OSC 52). The tab's progress follows a drain. Snapshots at 80×24.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::source::SourceEvent;
use shardtop::ui::screen::Screen;
use shardtop::ui::tab_progress::TabProgress;
use shardtop::ui::{Action, InputMode};

fn typed(f: &mut Fixture, text: &str) {
    let actions: Vec<Action> = text.chars().map(Action::SearchChar).collect();
    f.keys(&actions);
}

fn names(f: &Fixture) -> Vec<&'static str> {
    f.app.palette_entries().iter().map(|e| e.command).collect()
}

#[test]
fn the_palette_lists_the_screen_s_commands_with_their_keys() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.keys(&[Action::OpenPalette]);
    assert_eq!(f.app.input, InputMode::Palette);
    let all = names(&f);
    for c in [
        "quit", "help", "faster", "zoom-in", "copy", "history", "search",
    ] {
        assert!(all.contains(&c), "{c} missing from {all:?}");
    }
    // Itself and the lab's screen (only `shardtop lab` has it) are not listed.
    assert!(
        !all.contains(&"palette") && !all.contains(&"lab"),
        "{all:?}"
    );
    let text = format!("{}", f.draw().backend());
    assert!(
        text.contains("Commands") && text.contains("q            quit"),
        "{text}"
    );
    assert_snapshot!("palette_80x24", text);
}

#[test]
fn typing_filters_best_match_first_and_enter_runs_the_chosen_command() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.keys(&[Action::OpenPalette]);
    typed(&mut f, "heat");
    let first = names(&f);
    assert_eq!(first.first(), Some(&"heat"), "{first:?}");
    assert_snapshot!("palette_filtered_80x24", format!("{}", f.draw().backend()));
    assert!(f.app.heat);
    f.keys(&[Action::SearchDone]);
    assert!(!f.app.heat, "Enter ran `heat`");
    assert!(f.app.palette.is_none());
    assert_eq!(f.app.input, InputMode::Commands);

    // ↓ chooses the next row; scattered letters match after substrings.
    f.keys(&[Action::OpenPalette]);
    typed(&mut f, "zoom");
    let zooms = names(&f);
    assert!(zooms.len() >= 3, "{zooms:?}");
    f.keys(&[Action::Down, Action::Down, Action::Up]);
    let chosen = zooms[1];
    f.keys(&[Action::SearchDone]);
    assert_eq!(chosen, "zoom-out");
    f.keys(&[Action::OpenPalette]);
    typed(&mut f, "xyzzy");
    assert!(names(&f).is_empty());
    let text = format!("{}", f.draw().backend());
    assert!(text.contains("no command matches “xyzzy”"), "{text}");
    // Enter on nothing closes; Esc closes without running anything.
    f.keys(&[Action::SearchDone]);
    assert!(f.app.palette.is_none());
    f.keys(&[Action::OpenPalette, Action::SearchChar('q'), Action::Escape]);
    assert!(f.app.palette.is_none());
    assert_eq!(f.app.input, InputMode::Commands);
}

#[test]
fn the_palette_runs_quit_and_help_like_their_keys_and_ctrl_c_quits_from_it() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.keys(&[Action::OpenPalette]);
    typed(&mut f, "help");
    f.keys(&[Action::SearchDone]);
    assert!(f.app.help, "Enter on `help` opened the help");
    f.keys(&[Action::Escape]);
    f.keys(&[Action::OpenPalette]);
    typed(&mut f, "quit");
    assert!(f.app.update(Action::SearchDone).quit);
    f.keys(&[Action::OpenPalette]);
    assert!(f.app.update(Action::Interrupt).quit);
}

#[test]
fn the_palette_is_context_aware_per_screen_and_source() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.app.screen = Screen::History;
    f.refresh();
    f.keys(&[Action::OpenPalette]);
    let history = names(&f);
    assert!(history.contains(&"time-zoom-in"), "{history:?}");
    assert!(!history.contains(&"sort-shards"), "{history:?}");
    assert!(!history.contains(&"copy"), "{history:?}");
    assert_snapshot!("palette_history_80x24", format!("{}", f.draw().backend()));
    f.keys(&[Action::Escape]);

    // A live cluster has no speed, step or seek.
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    let mut view = f.app.view.clone().unwrap();
    view.clock.virtual_time = false;
    view.clock.wall_start_ms = None;
    f.app.apply(SourceEvent::View(Box::new(view)));
    f.app.update(Action::OpenPalette);
    let live = names(&f);
    assert!(
        live.contains(&"pause") && live.contains(&"explain"),
        "{live:?}"
    );
    for c in ["faster", "step-forward", "seek-back", "next-migration"] {
        assert!(!live.contains(&c), "{c} listed live: {live:?}");
    }
}

#[test]
fn colon_is_a_character_while_a_footer_field_is_typed() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    f.keys(&[Action::StartQuery, Action::SearchChar(':')]);
    assert!(f.app.palette.is_none());
    assert_eq!(f.app.query_text, ":");
    // ↑/↓ (passed while typing, for the palette's list) do nothing to the screen here.
    let (start, span, scroll) = (f.app.start, f.app.span, f.app.log_scroll);
    f.keys(&[Action::Up, Action::Down]);
    assert_eq!(
        (f.app.start, f.app.span, f.app.log_scroll),
        (start, span, scroll)
    );
}

#[test]
fn y_copies_the_selected_cell_s_bounds_or_says_what_to_select() {
    let mut f = Fixture::new("ascending", 30_000, (80, 24));
    let effects = f.app.update(Action::Copy);
    assert_eq!(effects.clipboard, None);
    let notice = f.app.notice.clone().unwrap();
    assert!(notice.starts_with("nothing to copy"), "{notice}");
    f.keys(&[Action::FocusNext, Action::FocusNext]);
    let sel = f
        .app
        .view
        .as_ref()
        .and_then(|v| v.collection.as_ref())
        .and_then(|c| c.selection.clone())
        .unwrap();
    let effects = f.app.update(Action::Copy);
    let text = effects.clipboard.unwrap();
    assert_eq!(text, format!("{{min: {}, max: {}}}", sel.min, sel.max));
    assert!(text.starts_with("{min: {"), "{text}");
    let notice = f.app.notice.clone().unwrap();
    assert!(
        notice.contains("(OSC 52)") && notice.contains(&text),
        "{notice}"
    );
    // Through the palette too.
    f.keys(&[Action::OpenPalette]);
    typed(&mut f, "copy");
    assert!(f.app.update(Action::SearchDone).clipboard.is_some());
}

#[test]
fn a_drain_s_share_done_is_the_tab_s_progress_on_every_screen() {
    let f = Fixture::new("drain", 40_000, (100, 30));
    let under_way = f.app.view.as_ref().unwrap().under_way.clone();
    assert_eq!(under_way.len(), 1, "{under_way:?}");
    let done = under_way[0].unwrap();
    assert!(done > 0.0 && done < 1.0, "{done}");
    assert_eq!(
        f.app.tab_progress(),
        TabProgress::Percent((done * 100.0).floor() as u8)
    );
    let mut f = Fixture::new("drain", 40_000, (100, 30));
    f.app.settings.progress = false;
    assert_eq!(f.app.tab_progress(), TabProgress::Off);
    let quiet = Fixture::new("ascending", 30_000, (80, 24));
    assert_eq!(quiet.app.tab_progress(), TabProgress::Off);
}
