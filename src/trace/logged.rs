//! Entries of a live cluster's `config.changelog` and `config.actionlog` kept in a trace
//! (version 1.1): what the live view's event log showed, recorded as the poller read them. They
//! do not change the state (each poll's keyframe does); a replay shows them in its event log and
//! jumps between their migrations.
//!
//! Owns: the `config.changelog` / `config.actionlog` event lines. May not touch: the live
//! client, rendering (the source turns an entry into a log line).

use serde_json::{Value, json};

use super::json::{Res, f64_at, field, ms_of_seconds, seconds, str_at};
use super::reader::Notable;

/// Which log of the config server an entry comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogCollection {
    /// `config.changelog`: splits, merges, migrations and their outcome.
    Changelog,
    /// `config.actionlog`: balancer rounds.
    Actionlog,
}

impl LogCollection {
    /// The `what` of its trace lines: the namespace it was read from.
    pub fn what(self) -> &'static str {
        match self {
            Self::Changelog => "config.changelog",
            Self::Actionlog => "config.actionlog",
        }
    }

    fn of(what: &str) -> Option<Self> {
        match what {
            "config.changelog" => Some(Self::Changelog),
            "config.actionlog" => Some(Self::Actionlog),
            _ => None,
        }
    }
}

/// One recorded entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Logged {
    /// Trace time of the line.
    pub at_ms: u64,
    pub collection: LogCollection,
    /// The entry as the server wrote it, in canonical Extended JSON (`what`, `ns`, `time`,
    /// `details`; the client's address and server name are left out).
    pub entry: Value,
}

impl Logged {
    /// The entry's own `what` (`moveChunk.commit`, `balancer.round`, …).
    pub fn what(&self) -> &str {
        self.entry.get("what").and_then(Value::as_str).unwrap_or("")
    }

    /// What kind of notable event it is, for jumping between them.
    pub fn notable(&self) -> Option<Notable> {
        match self.what() {
            "moveChunk.start" | "moveChunk.commit" => Some(Notable::Migration),
            "moveChunk.error" | "split.error" => Some(Notable::Error),
            _ => None,
        }
    }

    /// Its trace line.
    pub fn encode(&self) -> Value {
        json!({"t": seconds(self.at_ms), "what": self.collection.what(), "entry": self.entry})
    }
}

/// Fields of an entry a trace leaves out: where the client and the server were.
const LEFT_OUT: [&str; 3] = ["_id", "clientAddr", "server"];

/// The recorded form of an entry (canonical Extended JSON, without `LEFT_OUT`).
pub fn entry_of(doc: &bson::Document) -> Value {
    let mut d = doc.clone();
    for k in LEFT_OUT {
        d.remove(k);
    }
    bson::Bson::Document(d).into_canonical_extjson()
}

/// Reads a `config.changelog` / `config.actionlog` line; `None` for any other `what`.
pub fn decode(v: &Value) -> Res<Option<Logged>> {
    let Some(collection) = v
        .get("what")
        .and_then(Value::as_str)
        .and_then(LogCollection::of)
    else {
        return Ok(None);
    };
    let entry = field(v, "entry", "")?;
    if !entry.is_object() {
        return Err("field `entry`: expected an object (the log entry)".into());
    }
    str_at(entry, "what", "entry.")?;
    Ok(Some(Logged {
        at_ms: ms_of_seconds(f64_at(v, "t", "")?),
        collection,
        entry: entry.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_round_trips_without_addresses() -> Res<()> {
        let doc = bson::doc! {
            "_id": "x", "server": "cfg1:27019", "clientAddr": "10.0.0.1:5555",
            "time": bson::DateTime::from_millis(1_700_000_000_123), "what": "moveChunk.commit",
            "ns": "app.users", "details": {"min": {"x": 1_i64}, "max": {"x": 5_i64}, "from": "s0", "to": "s1"},
        };
        let l = Logged {
            at_ms: 1_500,
            collection: LogCollection::Changelog,
            entry: entry_of(&doc),
        };
        let line = l.encode();
        assert_eq!(line["what"], "config.changelog");
        assert!(line["entry"].get("clientAddr").is_none());
        assert!(line["entry"].get("server").is_none());
        let back = decode(&line)?.ok_or("not an entry")?;
        assert_eq!(back, l);
        assert_eq!(back.notable(), Some(Notable::Migration));
        let d = bson::Bson::try_from(back.entry).map_err(|e| e.to_string())?;
        let time = d
            .as_document()
            .and_then(|d| d.get_datetime("time").ok())
            .map(|t| t.timestamp_millis());
        assert_eq!(time, Some(1_700_000_000_123));
        Ok(())
    }

    #[test]
    fn other_lines_are_not_entries_and_bad_entries_name_the_field() {
        assert_eq!(decode(&json!({"t": 1.0, "what": "split"})), Ok(None));
        let e = decode(&json!({"t": 1.0, "what": "config.actionlog"}));
        assert!(matches!(&e, Err(m) if m.contains("`entry`")), "{e:?}");
        let e = decode(&json!({"t": 1.0, "what": "config.actionlog", "entry": {}}));
        assert!(matches!(&e, Err(m) if m.contains("`entry.what`")), "{e:?}");
    }
}
