//! Finding and reading the configuration file, and what it and the global flags make of the
//! TUI's settings and the commands' defaults. A flag wins over the file; the file over the
//! built-in default; a non-empty `NO_COLOR` over both. Also the flags several commands share
//! (`--speed`, durations, `--interval`, `--heat`), checked the same way wherever they are given.
//!
//! Part of the toolbox: may import `terminal` and the floors; never a command module.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Failure;
use crate::config::{self, Config, Located};
use crate::source::live::HeatMode;
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
    let colors = super::terminal::colors_wanted(no_color) && config.colors;
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
        progress: config.progress,
        theme_auto: theme.is_none() && config.theme.is_none(),
    };
    Ok(Context { config, settings })
}

/// A flag's value, else the configuration's; a bad value from the file names where it is.
/// The configuration's `history`, in seconds (an hour when unset).
pub fn history_secs(config: &Config) -> Result<u64, Failure> {
    let secs = flag_or_config(None, config.history.as_ref(), |t: String| {
        let outside = || Failure::input(format!("history: {t:?} is outside 1m to 24h"));
        // Past a year `duration` refuses it: the history's own limit is the one to say.
        let d = duration_up_to(&t, MAX_DURATION_SECS, "").map_err(|f| {
            if f.message.ends_with("at most ") {
                outside()
            } else {
                f
            }
        })?;
        let secs = d.as_secs();
        if (60..=86_400).contains(&secs) {
            Ok(secs)
        } else {
            Err(outside())
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

fn speed(x: f64) -> Result<f64, Failure> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(Failure::input(
            "--speed: give a positive number (1 = real time)",
        ))
    }
}

/// `--speed`, else the configuration's, else 4.
pub fn speed_of(flag: Option<f64>, ctx: &Context) -> Result<f64, Failure> {
    Ok(flag_or_config(flag, ctx.config.speed.as_ref(), speed)?.unwrap_or(4.0))
}

/// `2s`, `500ms`, `1m`, or a number of seconds, up to a year.
pub fn duration(text: &str) -> Result<Duration, Failure> {
    duration_up_to(text, MAX_DURATION_SECS, "a year (8760h)")
}

/// [`duration`], at most `max` seconds (`max_text` in words).
fn duration_up_to(text: &str, max: f64, max_text: &str) -> Result<Duration, Failure> {
    let t = text.trim();
    let (number, unit) = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or((t, "s"), |i| (&t[..i], &t[i..]));
    let n: f64 = number
        .parse()
        .map_err(|_| Failure::input(format!("bad duration {text:?}: give e.g. 2s, 500ms, 1m")))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => {
            return Err(Failure::input(format!(
                "bad duration {text:?}: units are ms, s, m, h"
            )));
        }
    };
    if !(secs.is_finite() && secs > 0.0) {
        return Err(Failure::input(format!(
            "bad duration {text:?}: must be positive"
        )));
    }
    if secs > max {
        return Err(Failure::input(format!(
            "bad duration {text:?}: at most {max_text}"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// The longest duration taken (a year).
const MAX_DURATION_SECS: f64 = 365.0 * 86_400.0;

/// A polling interval (`--interval`): a [`duration`] from 100 ms to a day, as polling faster
/// loads the cluster and slower shows nothing.
pub fn interval(text: &str) -> Result<Duration, Failure> {
    let d = duration(text)?;
    if d < Duration::from_millis(100) || d > Duration::from_secs(86_400) {
        return Err(Failure::input(format!(
            "--interval {text:?}: give 100ms to 24h"
        )));
    }
    Ok(d)
}

/// `--interval`, else the configuration's, else 2 s.
pub fn interval_of(flag: Option<&String>, config: &Config) -> Result<Duration, Failure> {
    let d = flag_or_config(flag.cloned(), config.interval.as_ref(), |t| interval(&t))?;
    Ok(d.unwrap_or(Duration::from_secs(2)))
}

/// The heat mode asked for; `None` is `auto`.
fn check_heat(heat: &str) -> Result<Option<HeatMode>, Failure> {
    match heat {
        "auto" => Ok(None),
        "size" => Ok(Some(HeatMode::Size)),
        "off" => Ok(Some(HeatMode::Off)),
        "changestream" => Ok(Some(HeatMode::ChangeStream)),
        "sampled" => Ok(Some(HeatMode::Sampled)),
        other => Err(Failure::input(format!(
            "--heat {other:?}: one of auto, size, changestream, sampled, off"
        ))),
    }
}

/// `--heat`, else the configuration's; `None` is `auto`.
pub fn heat_of(flag: Option<String>, config: &Config) -> Result<Option<HeatMode>, Failure> {
    Ok(flag_or_config(flag, config.heat.as_ref(), |h| check_heat(&h))?.flatten())
}
