//! The configuration file (TOML): theme and custom themes, key bindings, and defaults for the
//! command line's `--interval`, `--heat`, `--server-version`, `--speed`, the frame rate,
//! colours and the terminal's progress indicator. Parses text into checked settings; an unknown key or a bad value is an error naming
//! the file, the line and the key. Where the file is and reading it belong to `commands`; this
//! module does no I/O.

mod template;

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

pub use template::template;

use crate::ui::keymap::KeyMap;
use crate::ui::palette::{ColorValue, Palette};

/// A setting and where the file gives it, for messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Located<T> {
    pub value: T,
    /// `FILE, line N, key `k``.
    pub at: String,
}

/// The checked settings of one file (the defaults where the file says nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub theme: Option<Located<String>>,
    pub colors: bool,
    /// Drains' and reshardings' progress in the terminal's tab (OSC 9;4).
    pub progress: bool,
    pub fps: u32,
    pub speed: Option<Located<f64>>,
    pub server_version: Option<Located<String>>,
    /// How much of the past the views over time keep (a duration).
    pub history: Option<Located<String>>,
    pub interval: Option<Located<String>>,
    pub heat: Option<Located<String>>,
    pub keys: KeyMap,
    /// Custom themes by name.
    pub themes: BTreeMap<String, Palette>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            theme: None,
            colors: true,
            progress: true,
            fps: crate::ui::DEFAULT_FPS,
            speed: None,
            server_version: None,
            history: None,
            interval: None,
            heat: None,
            keys: KeyMap::default(),
            themes: BTreeMap::new(),
        }
    }
}

/// A bad configuration file, in words (the caller exits 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    theme: Option<Spanned<String>>,
    colors: Option<bool>,
    progress: Option<bool>,
    fps: Option<Spanned<i64>>,
    speed: Option<Spanned<f64>>,
    server_version: Option<Spanned<String>>,
    history: Option<Spanned<String>>,
    watch: Option<RawWatch>,
    #[serde(default)]
    keys: BTreeMap<String, Spanned<KeyList>>,
    #[serde(default)]
    themes: BTreeMap<String, Spanned<BTreeMap<String, Spanned<ColorList>>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWatch {
    interval: Option<Spanned<String>>,
    heat: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum KeyList {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ColorList {
    One(String),
    Many(Vec<String>),
}

/// The frame rates allowed.
pub const FPS_RANGE: std::ops::RangeInclusive<i64> = 1..=120;

/// Parses the text of the file `file` (named in messages).
pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
    let at = |span: std::ops::Range<usize>, key: &str| {
        format!("{file}, line {}, key `{key}`", line_of(text, span.start))
    };
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or_else(String::new, |s| {
            // An unknown key's message names it already.
            let key = key_at(text, s.start)
                .filter(|_| !e.message().starts_with("unknown field"))
                .map_or_else(String::new, |k| format!(", key `{k}`"));
            format!(", line {}{key}", line_of(text, s.start))
        });
        ConfigError(format!("{file}{line}: {}", plain_message(e.message())))
    })?;
    let mut config = Config {
        colors: raw.colors.unwrap_or(true),
        progress: raw.progress.unwrap_or(true),
        ..Config::default()
    };
    if let Some(fps) = raw.fps {
        if !FPS_RANGE.contains(fps.get_ref()) {
            return Err(ConfigError(format!(
                "{}: {} is outside 1..=120 frames per second",
                at(fps.span(), "fps"),
                fps.get_ref()
            )));
        }
        config.fps = *fps.get_ref() as u32;
    }
    let located = |s: Spanned<String>, key: &str| Located {
        at: at(s.span(), key),
        value: s.into_inner(),
    };
    config.theme = raw.theme.map(|s| located(s, "theme"));
    config.server_version = raw.server_version.map(|s| located(s, "server-version"));
    config.history = raw.history.map(|s| located(s, "history"));
    config.speed = raw.speed.map(|s| Located {
        at: at(s.span(), "speed"),
        value: s.into_inner(),
    });
    if let Some(w) = raw.watch {
        config.interval = w.interval.map(|s| located(s, "watch.interval"));
        config.heat = w.heat.map(|s| located(s, "watch.heat"));
    }
    config.keys = keys(raw.keys, &at)?;
    for (name, table) in raw.themes {
        let span = table.span();
        let palette =
            custom_theme(&name, table.get_ref(), &|s, k| at(s, k)).map_err(ConfigError)?;
        if Palette::built_in(&name).is_some() {
            return Err(ConfigError(format!(
                "{}: `{name}` is a built-in theme; give yours another name",
                at(span, &format!("themes.{name}"))
            )));
        }
        config.themes.insert(name, palette);
    }
    if let Some(t) = &config.theme {
        theme_by_name(&t.value, &config.themes)
            .map_err(|e| ConfigError(format!("{}: {e}", t.at)))?;
    }
    Ok(config)
}

fn keys(
    raw: BTreeMap<String, Spanned<KeyList>>,
    at: &dyn Fn(std::ops::Range<usize>, &str) -> String,
) -> Result<KeyMap, ConfigError> {
    let mut spans = BTreeMap::new();
    let changes: Vec<(String, Vec<String>)> = raw
        .into_iter()
        .map(|(name, keys)| {
            spans.insert(name.clone(), keys.span());
            let list = match keys.into_inner() {
                KeyList::One(k) => vec![k],
                KeyList::Many(ks) => ks,
            };
            (name, list)
        })
        .collect();
    KeyMap::with(&changes).map_err(|e| {
        let span = spans.get(&e.command).cloned().unwrap_or(0..0);
        ConfigError(format!(
            "{}: {}",
            at(span, &format!("keys.{}", e.command)),
            e.message
        ))
    })
}

fn custom_theme(
    name: &str,
    table: &BTreeMap<String, Spanned<ColorList>>,
    at: &dyn Fn(std::ops::Range<usize>, &str) -> String,
) -> Result<Palette, String> {
    let mut palette = Palette::DARK;
    if let Some(base) = table.get("base") {
        let key = format!("themes.{name}.base");
        palette = match base.get_ref() {
            ColorList::One(b) => Palette::built_in(b).ok_or_else(|| {
                format!(
                    "{}: {b:?} is not a built-in theme ({})",
                    at(base.span(), &key),
                    built_in_names()
                )
            })?,
            ColorList::Many(_) => {
                return Err(format!("{}: give one theme name", at(base.span(), &key)));
            }
        };
    }
    for (color, value) in table.iter().filter(|(k, _)| *k != "base") {
        let v = match value.get_ref() {
            ColorList::One(c) => ColorValue::One(c.clone()),
            ColorList::Many(cs) => ColorValue::List(cs.clone()),
        };
        palette.set(color, &v).map_err(|e| {
            format!(
                "{}: {e}",
                at(value.span(), &format!("themes.{name}.{color}"))
            )
        })?;
    }
    Ok(palette)
}

/// The built-in theme names, for messages.
pub fn built_in_names() -> String {
    Palette::BUILT_IN
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A theme by name: a built-in one or one of the file's.
pub fn theme_by_name(name: &str, custom: &BTreeMap<String, Palette>) -> Result<Palette, String> {
    Palette::built_in(name)
        .or_else(|| custom.get(name).copied())
        .ok_or_else(|| {
            let mine: Vec<&str> = custom.keys().map(String::as_str).collect();
            let mine = if mine.is_empty() {
                " (or a [themes.NAME] of the configuration file)".to_string()
            } else {
                format!(", or the configuration's {}", mine.join(", "))
            };
            format!("unknown theme {name:?}: one of {}{mine}", built_in_names())
        })
}

/// The parser's message in the file's words: an untagged list (a colour, a key) says what it
/// takes instead of naming a Rust type.
fn plain_message(message: &str) -> String {
    let m = message.trim_end();
    if m.contains("untagged enum ColorList") {
        "not a colour: give a name (red, light-blue, dark-gray…), \"#rrggbb\" or an index \"0\" to \"255\", in quotes, or a list of them".into()
    } else if m.contains("untagged enum KeyList") {
        "not a key: give a key in quotes (\"q\", \"Ctrl-c\"), or a list of them".into()
    } else {
        m.replace("expected f64", "expected a number")
            .replace("expected i64", "expected a whole number")
    }
}

/// The dotted key whose value is at byte `offset`: the `key = ` of that line, under the latest
/// `[table]` header above it.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let before = &text[..offset.min(text.len())];
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let line = line.split('\n').next().unwrap_or("");
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    if key.is_empty() || key.starts_with('#') || key.starts_with('[') {
        return None;
    }
    let table = before[..start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    })
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests;
