//! The `config.settings` documents as the config server reads them: the balancer document's
//! mode and `activeWindow` (or the server's reason for rejecting it), the `chunksize` and the
//! `automerge` documents.
//!
//! Owns: that reading. May not touch: the other `config.*` documents (`config`), the model.

use bson::{Bson, Document};

use super::{ConfigError, flag};

/// What `config.settings` says about the balancer, the AutoMerger and the chunk size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsDocs {
    /// The `balancer` document's mode: `stopped: true` is `off` whatever `mode` says; `mode` is
    /// `full` when missing; a mode the server does not know is `off` (4.4 refused such a
    /// document, 7.1+ turns the balancer off).
    // 4.4 and 8.0 `s/balancer_configuration.cpp` (`BalancerSettingsType::fromBSON`).
    pub balancer_mode: crate::cluster::balancer::BalancerMode,
    /// `activeWindow: {start: "HH:MM", stop: "HH:MM"}`, in minutes after midnight.
    pub active_window: Option<(u32, u32)>,
    /// The config server's reason when it rejects the `activeWindow` (then it loads no balancer
    /// settings and skips every round).
    pub window_rejected: Option<String>,
    /// The `chunksize` document's `value`, in MB.
    pub chunk_size_mb: Option<u64>,
    /// The `automerge` document's `enabled` (7.0+; on when the document is missing).
    pub auto_merge: bool,
    /// The `balancer` document's `attemptToBalanceJumboChunks`.
    pub attempt_to_balance_jumbo_chunks: bool,
    /// Settings a server would not accept, each with the default used instead.
    pub notes: Vec<String>,
}

impl Default for SettingsDocs {
    fn default() -> Self {
        Self {
            balancer_mode: crate::cluster::balancer::BalancerMode::Full,
            active_window: None,
            window_rejected: None,
            chunk_size_mb: None,
            auto_merge: true,
            attempt_to_balance_jumbo_chunks: false,
            notes: Vec::new(),
        }
    }
}

/// The largest chunk size a server accepts, in MB.
const MAX_CHUNK_SIZE_MB: i64 = 1024;

/// The `chunksize` document's `value` as a server reads it: an integral number of MB from 1 to
/// 1024 (`src/mongo/s/balancer_configuration.cpp`, `ChunkSizeSettingsType::fromBSON` reads it
/// with `bsonExtractIntegerField` and `checkMaxChunkSizeValid` refuses 0, negative and over
/// 1024); anything else leaves the server on its default, and so does shardtop.
fn chunk_size_mb(value: Option<&Bson>) -> Result<u64, String> {
    let n = match value {
        Some(Bson::Int32(n)) => i64::from(*n),
        Some(Bson::Int64(n)) => *n,
        Some(Bson::Double(n)) if n.fract() == 0.0 && n.abs() < 1e15 => *n as i64,
        Some(v) => return Err(format!("{v} is not an integral number of MB")),
        None => return Err("it has no `value`".into()),
    };
    if (1..=MAX_CHUNK_SIZE_MB).contains(&n) {
        Ok(n as u64)
    } else {
        Err(format!("{n} MB is outside 1 to {MAX_CHUNK_SIZE_MB} MB"))
    }
}

/// C's `sscanf("%d")`: blanks, a sign, digits; the rest of `text` after them.
fn scan_int(text: &str) -> Option<(i64, &str)> {
    let t = text.trim_start();
    let digits_from = usize::from(t.starts_with(['+', '-']));
    let end = digits_from
        + t[digits_from..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(t.len() - digits_from);
    let n = t[..end].parse::<i64>().ok()?;
    Some((n, &t[end..]))
}

/// A time of day as the config server reads one (`toPointInTime` of
/// `src/mongo/s/balancer_configuration.cpp`): `sscanf("%d:%d")`, refused when `hh / 24` or
/// `mm / 60` is not 0 (so `24:00` is refused); the minutes after midnight. A negative hour or
/// minute, which C's division lets through, is read as the time of day it lands on.
fn minutes(text: &str) -> Option<u32> {
    let (h, rest) = scan_int(text)?;
    let (m, _) = scan_int(rest.strip_prefix(':')?)?;
    (h / 24 == 0 && m / 60 == 0).then(|| (h * 60 + m).rem_euclid(24 * 60) as u32)
}

/// The `activeWindow` as the config server reads it: the window, or its reason for rejecting
/// it (`getSettingsFromBSON` of `src/mongo/s/balancer_configuration.cpp`; the IDL requires
/// `start` and `stop` as strings).
fn active_window(w: &Bson) -> Result<(u32, u32), String> {
    let Bson::Document(w) = w else {
        return Err(format!(
            "BSON field 'BalancerSettings.activeWindow' is the wrong type '{}', expected type 'object'",
            crate::model::shell_text::bson_type_name(w)
        ));
    };
    let bound = |k: &str| match w.get(k) {
        Some(Bson::String(s)) => Ok(s.as_str()),
        None => Err(format!(
            "BSON field 'BalancerSettings.activeWindow.{k}' is missing but a required field"
        )),
        Some(v) => Err(format!(
            "BSON field 'BalancerSettings.activeWindow.{k}' is the wrong type '{}', expected type 'string'",
            crate::model::shell_text::bson_type_name(v)
        )),
    };
    let (start, stop) = (bound("start")?, bound("stop")?);
    let format = || r#"activeWindow format is { start: "hh:mm" , stop: "hh:mm" }"#.to_string();
    let (a, b) = (
        minutes(start).ok_or_else(format)?,
        minutes(stop).ok_or_else(format)?,
    );
    if a == b {
        return Err("start and stop times must be different".into());
    }
    Ok((a, b))
}

fn balancer_mode(doc: &Document) -> crate::cluster::balancer::BalancerMode {
    use crate::cluster::balancer::BalancerMode;
    if flag(doc, "stopped") {
        return BalancerMode::Off;
    }
    match doc.get("mode") {
        None | Some(Bson::Null) => BalancerMode::Full,
        Some(Bson::String(m)) => BalancerMode::parse(m).unwrap_or(BalancerMode::Off),
        Some(_) => BalancerMode::Off,
    }
}

impl SettingsDocs {
    /// What the settings say; a setting a server would not accept is left at its default with
    /// a note (never an error: a cluster runs with it, so the view must too).
    pub fn parse(docs: &[Document]) -> Result<Self, ConfigError> {
        let mut out = Self::default();
        for doc in docs {
            match doc.get_str("_id") {
                Ok("balancer") => {
                    out.balancer_mode = balancer_mode(doc);
                    out.attempt_to_balance_jumbo_chunks = flag(doc, "attemptToBalanceJumboChunks");
                    match doc.get("activeWindow").map(active_window) {
                        Some(Ok(w)) => out.active_window = Some(w),
                        Some(Err(why)) => out.window_rejected = Some(why),
                        None => {}
                    }
                }
                Ok("automerge") => match doc.get("enabled") {
                    Some(Bson::Boolean(on)) => out.auto_merge = *on,
                    other => out.notes.push(format!(
                        "config.settings automerge: enabled {} is not a boolean: shown as on (the default)",
                        other.map_or_else(|| "missing".to_string(), ToString::to_string)
                    )),
                },
                Ok("chunksize") => match chunk_size_mb(doc.get("value")) {
                    Ok(mb) => out.chunk_size_mb = Some(mb),
                    Err(why) => out.notes.push(format!(
                        "config.settings chunksize: {why}; the server ignores it and so does shardtop: the default chunk size is used"
                    )),
                },
                _ => {}
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use bson::doc;

    type Case = (Bson, Result<(u32, u32), &'static str>);

    fn window(w: Bson) -> (Option<(u32, u32)>, Option<String>) {
        let s = SettingsDocs::parse(&[doc! {"_id": "balancer", "activeWindow": w}]).unwrap();
        (s.active_window, s.window_rejected)
    }

    /// As `toPointInTime` and `getSettingsFromBSON` read it: any hour of 24 or more, a minute
    /// of 60 or more, start equal to stop, a missing or non-string bound are rejected.
    #[test]
    fn the_window_is_read_or_rejected_as_the_config_server_does() {
        let format = r#"activeWindow format is { start: "hh:mm" , stop: "hh:mm" }"#;
        let cases: [Case; 8] = [
            (
                doc! {"start": "23:00", "stop": "6:00"}.into(),
                Ok((1380, 360)),
            ),
            (
                doc! {"start": " 7:5", "stop": "08:00xyz"}.into(),
                Ok((425, 480)),
            ),
            (doc! {"start": "00:00", "stop": "24:00"}.into(), Err(format)),
            (doc! {"start": "10:60", "stop": "11:00"}.into(), Err(format)),
            (doc! {"start": "23", "stop": "6:00"}.into(), Err(format)),
            (
                doc! {"start": "02:00", "stop": "2:00"}.into(),
                Err("start and stop times must be different"),
            ),
            (
                doc! {"start": "02:00"}.into(),
                Err(
                    "BSON field 'BalancerSettings.activeWindow.stop' is missing but a required field",
                ),
            ),
            (
                doc! {"start": 23_i64, "stop": "6:00"}.into(),
                Err(
                    "BSON field 'BalancerSettings.activeWindow.start' is the wrong type 'long', expected type 'string'",
                ),
            ),
        ];
        for (w, want) in cases {
            let got = window(w.clone());
            match want {
                Ok(minutes) => assert_eq!(got, (Some(minutes), None), "{w}"),
                Err(why) => assert_eq!(got, (None, Some(why.to_string())), "{w}"),
            }
        }
    }
}
