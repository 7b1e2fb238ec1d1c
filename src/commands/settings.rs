//! Finding and reading the configuration file, and what it and the global flags make of the
//! TUI's settings and the commands' defaults. A flag wins over the file; the file over the
//! built-in default; a non-empty `NO_COLOR` over both.

use std::path::{Path, PathBuf};

use super::Failure;
use crate::config::{self, Config, Located};
use crate::ui::Settings;
use crate::ui::theme::Theme;

/// The configuration and the TUI settings of one run.
pub struct Context {
    pub config: Config,
    pub settings: Settings,
}

/// A configuration file is a few kilobytes; past this it is not one.
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Where the configuration is: `--config`, else `SHARDTOP_CONFIG` (both must exist), else the
/// XDG place (read when it exists).
fn location(flag: Option<&Path>) -> Option<(PathBuf, bool)> {
    if let Some(p) = flag {
        return Some((p.to_path_buf(), true));
    }
    if let Some(p) = std::env::var_os("SHARDTOP_CONFIG").filter(|v| !v.is_empty()) {
        return Some((PathBuf::from(p), true));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some((base.join("shardtop").join("config.toml"), false))
}

/// Reads the configuration (the defaults when there is none).
pub fn read_config(flag: Option<&Path>) -> Result<Config, Failure> {
    let Some((path, explicit)) = location(flag) else {
        return Ok(Config::default());
    };
    let shown = path.display().to_string();
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {
            return Ok(Config::default());
        }
        Err(e) => return Err(Failure::input(format!("configuration {shown}: {e}"))),
    };
    if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
        return Err(Failure::input(format!(
            "configuration {shown}: not a configuration file (a TOML file of at most 1 MiB)"
        )));
    }
    let bytes =
        std::fs::read(&path).map_err(|e| Failure::input(format!("configuration {shown}: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::input(format!("configuration {shown}: not UTF-8 text")))?;
    config::parse(&text, &shown).map_err(|e| Failure::input(e.0))
}

/// The configuration, and the TUI settings from it and the global flags.
pub fn load(flag: Option<&Path>, theme: Option<&str>, no_color: bool) -> Result<Context, Failure> {
    let config = read_config(flag)?;
    let colors = super::tui::colors_wanted(no_color) && config.colors;
    let palette = match (theme, &config.theme) {
        (Some(name), _) => config::theme_by_name(name, &config.themes)
            .map_err(|e| Failure::input(format!("--theme: {e}")))?,
        (None, Some(t)) => config::theme_by_name(&t.value, &config.themes)
            .map_err(|e| Failure::input(format!("{}: {e}", t.at)))?,
        (None, None) => crate::ui::palette::Palette::DARK,
    };
    let settings = Settings {
        theme: Theme { colors, palette },
        keys: config.keys.clone(),
        fps: config.fps,
    };
    Ok(Context { config, settings })
}

/// A flag's value, else the configuration's; a bad value from the file names where it is.
/// The configuration's `history`, in seconds (an hour when unset).
pub fn history_secs(config: &Config) -> Result<u64, Failure> {
    let secs = flag_or_config(None, config.history.as_ref(), |t: String| {
        let d = super::watch::duration(&t)?;
        let secs = d.as_secs();
        if (60..=86_400).contains(&secs) {
            Ok(secs)
        } else {
            Err(Failure::input(format!(
                "history: {t:?} is outside 1m to 24h"
            )))
        }
    })?;
    Ok(secs.unwrap_or(crate::source::past::KEEP_SECS))
}

pub fn flag_or_config<T: Clone, U>(
    flag: Option<T>,
    file: Option<&Located<T>>,
    check: impl Fn(T) -> Result<U, Failure>,
) -> Result<Option<U>, Failure> {
    match (flag, file) {
        (Some(v), _) => check(v).map(Some),
        (None, Some(l)) => check(l.value.clone()).map(Some).map_err(|f| {
            let message = f
                .message
                .split_once(": ")
                .map_or(f.message.as_str(), |(_, m)| m);
            Failure::input(format!("{}: {message}", l.at))
        }),
        (None, None) => Ok(None),
    }
}
