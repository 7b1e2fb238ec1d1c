//! Nothing cut at 80×24 (issue 48): the what-if prompt's error, the explain panel's chunk and the
//! orphans' note are wrapped or shortened at whole words, never cut mid-word nor mid-number; the
//! same screens at 120×40.

use crate::common;

use common::ui_fixture::Fixture;
use insta::assert_snapshot;
use shardtop::ui::Action;

fn text(f: &Fixture) -> String {
    format!("{}", f.draw().backend())
}

/// Every word of `what` is on the screen whole (a wrapped text breaks between words only).
fn all_words_shown(screen: &str, what: &str) {
    for word in what.split(' ').filter(|w| !w.is_empty()) {
        assert!(
            screen.contains(word),
            "{word:?} of {what:?} is not shown:\n{screen}"
        );
    }
}

#[test]
fn the_what_if_error_is_shown_whole() {
    for size in [(80, 24), (120, 40)] {
        let mut f = Fixture::new("ascending", 60_000, size);
        f.keys(&[Action::ToggleWhatIf]);
        let keys: Vec<Action> = "--drain shard9 --add-shards 2"
            .chars()
            .map(Action::SearchChar)
            .collect();
        f.keys(&keys);
        f.keys(&[Action::SearchDone]);
        let error = f
            .app
            .whatif
            .error
            .clone()
            .expect("an unknown shard is refused");
        let screen = text(&f);
        all_words_shown(&screen, &error);
        assert_snapshot!(format!("whatif_error_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn the_explain_panel_names_its_chunk_whole() {
    for size in [(80, 24), (120, 40)] {
        let mut f = Fixture::new("drain", 40_000, size);
        f.keys(&[Action::ToggleExplain]);
        let screen = text(&f);
        let panel = f.app.view.as_ref().unwrap().explain.clone().unwrap();
        all_words_shown(&screen, &panel.chunk);
        assert_snapshot!(format!("explain_drain_{}x{}", size.0, size.1), screen);
    }
}

#[test]
fn the_orphans_note_is_whole_or_its_numbers_alone() {
    for size in [(80, 24), (120, 40)] {
        let f = Fixture::new("drain", 40_000, size);
        let screen = text(&f);
        let note: Vec<&str> = screen
            .lines()
            .skip_while(|l| !l.contains("orphaned:"))
            .take(2)
            .collect();
        assert!(!note.is_empty(), "{screen}");
        assert!(!note[0].contains('…'), "{note:?}");
        assert!(note[0].contains("docs)"), "the numbers whole: {note:?}");
        assert_snapshot!(format!("orphans_drain_{}x{}", size.0, size.1), screen);
    }
}
