//! The first line of a trace: what it is, who recorded it, and the cluster it starts from.

use serde_json::{Value, json};

use super::json::{Res, array_at, field, str_at, u64_at};

/// The format name in every trace header.
pub const FORMAT: &str = "shardtop-trace";
/// The format version this build writes; readers refuse another major version and ignore
/// unknown fields and event kinds of a newer minor version.
/// 1.1 adds the `config.changelog` / `config.actionlog` entries of live recordings, the
/// balancer's `activeWindow` in keyframes, and what a live poll observed that the view shows
/// (drains, the window now, inconsistencies, invalid sizes, resharding progress, a 6.0.0–6.0.2
/// server's `serverVersionBefore603`).
pub const VERSION: (u64, u64) = (1, 1);

/// A trace header.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// The program that wrote the trace (`shardtop 0.1.0`).
    pub recorder: String,
    /// `sim:ascending` or `mongodb://host` (never a password).
    pub source: String,
    pub server_version: String,
    /// Wall-clock seconds since the Unix epoch of trace time 0.
    pub start_epoch_seconds: u64,
    /// Virtual (or real) milliseconds between keyframes.
    pub keyframe_interval_ms: u64,
    pub shards: Vec<String>,
    /// Namespaces and their shard keys.
    pub collections: Vec<(String, Value)>,
    /// The simulator's scenario and seed, when the source is the simulator.
    pub scenario: Option<(String, u64)>,
}

impl Header {
    /// A live recording (a trace without a simulator's scenario): the wall-clock milliseconds
    /// since the epoch of its time 0. Its times are wall-clock time, and it has no write signal
    /// (`record` reads no heat): writes are unknown, not zero.
    pub fn live_start_ms(&self) -> Option<u64> {
        self.scenario
            .is_none()
            .then(|| self.start_epoch_seconds.saturating_mul(1000))
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "format": FORMAT,
            "version": format!("{}.{}", VERSION.0, VERSION.1),
            "recorder": self.recorder,
            "source": self.source,
            "serverVersion": self.server_version,
            "startEpochSeconds": self.start_epoch_seconds,
            "keyframeIntervalMs": self.keyframe_interval_ms,
            "shards": self.shards,
            "collections": self.collections.iter().map(|(ns, key)| json!({"ns": ns, "key": key})).collect::<Vec<_>>(),
        });
        if let Some((scenario, seed)) = &self.scenario {
            v["scenario"] = json!(scenario);
            v["seed"] = json!(seed);
        }
        v
    }

    /// Reads a header line; refuses other formats and unknown major versions.
    pub fn from_json(v: &Value) -> Res<Self> {
        if v.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(format!(
                "not a shardtop trace (the first line has no \"format\": \"{FORMAT}\")"
            ));
        }
        let version = str_at(v, "version", "")?;
        let major: u64 = version
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .ok_or_else(|| format!("field `version`: {version:?} is not major.minor"))?;
        if major != VERSION.0 {
            return Err(format!(
                "trace format version {version} is not supported: this shardtop reads version {}.x (upgrade shardtop to read it)",
                VERSION.0
            ));
        }
        let collections = array_at(v, "collections", "")?
            .iter()
            .enumerate()
            .map(|(i, c)| {
                Ok((
                    str_at(c, "ns", &format!("collections[{i}]."))?.to_string(),
                    field(c, "key", &format!("collections[{i}]."))?.clone(),
                ))
            })
            .collect::<Res<_>>()?;
        let scenario = match (
            v.get("scenario").and_then(Value::as_str),
            v.get("seed").and_then(Value::as_u64),
        ) {
            (Some(s), Some(seed)) => Some((s.to_string(), seed)),
            _ => None,
        };
        Ok(Self {
            recorder: str_at(v, "recorder", "")?.into(),
            source: str_at(v, "source", "")?.into(),
            server_version: str_at(v, "serverVersion", "")?.into(),
            start_epoch_seconds: u64_at(v, "startEpochSeconds", "")?,
            keyframe_interval_ms: u64_at(v, "keyframeIntervalMs", "")?,
            shards: super::json::strings_at(v, "shards", "")?,
            collections,
            scenario,
        })
    }
}
