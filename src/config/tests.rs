use super::*;
use crate::ui::action::Action;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn err(text: &str) -> String {
    parse(text, "c.toml").expect_err("an error").0
}

/// The template with every `# key = value` line and `# [table]` header uncommented.
fn uncommented() -> String {
    template()
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest)
                if rest.starts_with("[themes")
                    || rest.split_once(" = ").is_some_and(|(k, _)| {
                        k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    }) =>
            {
                rest.to_string()
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_template_reads_as_the_defaults_commented_or_not() {
    assert_eq!(
        parse(&template(), "t").expect("template"),
        Config::default()
    );
    let text = uncommented();
    assert!(text.contains("\nquit = [\"q\"]"), "{text}");
    let c = parse(&text, "t").expect("uncommented template");
    assert_eq!(c.keys, KeyMap::default());
    assert_eq!(c.fps, 30);
    assert!(c.colors);
    assert_eq!(c.theme.map(|t| t.value).as_deref(), Some("dark"));
    assert_eq!(c.interval.map(|t| t.value).as_deref(), Some("2s"));
    assert_eq!(c.heat.map(|t| t.value).as_deref(), Some("auto"));
    assert_eq!(c.themes.get("mine"), Some(&Palette::DARK));
    assert_eq!(c.speed.map(|s| s.value), Some(4.0));
}

#[test]
fn an_empty_file_is_the_defaults() {
    assert_eq!(parse("", "t").expect("empty"), Config::default());
}

#[test]
fn settings_are_read_with_where_they_came_from() {
    let c = parse(
        "fps = 10\ncolors = false\n[watch]\ninterval = \"5s\"\n",
        "c.toml",
    )
    .expect("valid");
    assert_eq!(c.fps, 10);
    assert!(!c.colors);
    let i = c.interval.expect("interval");
    assert_eq!(i.value, "5s");
    assert_eq!(i.at, "c.toml, line 4, key `watch.interval`");
}

#[test]
fn a_rebound_key_drives_the_reducer_s_action() {
    let c = parse("[keys]\nquit = \"x\"\nhelp = [\"F1\", \"?\"]\n", "t").expect("valid");
    let x = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
    assert_eq!(c.keys.map(&x, false), Some(Action::Quit));
    let f1 = KeyEvent::new(KeyCode::F(1), KeyModifiers::NONE);
    assert_eq!(c.keys.map(&f1, false), Some(Action::ToggleHelp));
    let mut app = crate::ui::App::new((100, 30), false, 4.0, false);
    app.settings.keys = c.keys.clone();
    let effects = app
        .settings
        .keys
        .map(&x, false)
        .map(|action| app.update(action));
    assert!(effects.is_some_and(|e| e.quit));
}

#[test]
fn every_error_names_the_file_the_line_and_the_key() {
    assert_eq!(
        err("fps = 30\ncolour = true\n"),
        "c.toml, line 2: unknown field `colour`, expected one of `theme`, `colors`, `progress`, `fps`, `speed`, `server-version`, `history`, `watch`, `keys`, `themes`"
    );
    assert_eq!(
        err("\n\nfps = 500\n"),
        "c.toml, line 3, key `fps`: 500 is outside 1..=120 frames per second"
    );
    let e = err("[keys]\nquit = \"m\"\n");
    assert!(
        e.starts_with("c.toml, line 2, key `keys.quit`: key m is bound to both"),
        "{e}"
    );
    let e = err("[keys]\nquitt = \"x\"\n");
    assert!(
        e.starts_with("c.toml, line 2, key `keys.quitt`: unknown command `quitt`"),
        "{e}"
    );
    let e = err("[keys]\nquit = \"Hyper-x\"\n");
    assert!(
        e.contains("line 2, key `keys.quit`: \"Hyper-x\" is not a key"),
        "{e}"
    );
    let e = err("theme = \"solarized\"\n");
    assert!(
        e.starts_with("c.toml, line 1, key `theme`: unknown theme \"solarized\": one of dark, light, high-contrast, okabe-ito"),
        "{e}"
    );
    let e = err("[themes.mine]\nbase = \"dark\"\nhot = \"nope\"\n");
    assert!(
        e.starts_with("c.toml, line 3, key `themes.mine.hot`: \"nope\" is not a colour"),
        "{e}"
    );
    let e = err("[themes.mine]\nhott = \"red\"\n");
    assert!(
        e.contains("line 2, key `themes.mine.hott`: unknown colour `hott`"),
        "{e}"
    );
    let e = err("[themes.mine]\nbase = \"sepia\"\n");
    assert!(e.contains("line 2, key `themes.mine.base`"), "{e}");
    let e = err("[themes.dark]\nhot = \"red\"\n");
    assert!(e.contains("`dark` is a built-in theme"), "{e}");
    let e = err("[watch]\nintervall = \"2s\"\n");
    assert!(
        e.starts_with("c.toml, line 2: unknown field `intervall`"),
        "{e}"
    );
    let e = err("fps = \"fast\"\n");
    assert!(
        e.starts_with("c.toml, line 1, key `fps`: invalid type"),
        "{e}"
    );
    let e = err("fps = 3\nfps = 4\n");
    assert!(
        e.starts_with("c.toml, line 2, key `fps`: duplicate key"),
        "{e}"
    );
    let e = err("theme = \n");
    assert!(e.starts_with("c.toml, line 1, key `theme`:"), "{e}");
}

#[test]
fn a_custom_theme_changes_its_base_by_name() {
    let c = parse(
        "theme = \"mine\"\n[themes.mine]\nbase = \"light\"\nhot = \"#ff00ff\"\nshards = [\"red\", \"blue\"]\n",
        "t",
    )
    .expect("valid");
    let p = c.themes["mine"];
    assert_eq!(p.hot, ratatui::style::Color::Rgb(255, 0, 255));
    assert_eq!(p.shards[3], ratatui::style::Color::Blue);
    assert_eq!(p.ok, Palette::LIGHT.ok);
}

#[test]
fn a_value_of_the_wrong_type_names_its_key_and_what_it_takes() {
    let e = err("speed = \"fast\"\n");
    assert!(
        e.starts_with(
            "c.toml, line 1, key `speed`: invalid type: string \"fast\", expected a number"
        ),
        "{e}"
    );
    let e = err("[themes.mine]\nhot = 300\n");
    assert!(
        e.starts_with("c.toml, line 2, key `themes.mine.hot`: not a colour: give a name"),
        "{e}"
    );
    assert!(!e.contains("untagged") && !e.contains("ColorList"), "{e}");
    let e = err("[keys]\nquit = 7\n");
    assert!(
        e.starts_with("c.toml, line 2, key `keys.quit`: not a key"),
        "{e}"
    );
}

#[test]
fn the_tab_progress_is_on_unless_turned_off() {
    assert!(parse("", "t").expect("empty").progress);
    assert!(!parse("progress = false\n", "t").expect("valid").progress);
    let e = parse("progress = \"no\"\n", "t").expect_err("not a boolean");
    assert!(e.0.starts_with("t, line 1"), "{}", e.0);
}
