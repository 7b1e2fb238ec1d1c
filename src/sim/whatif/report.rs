//! A what-if's prediction in JSON (`{source, forkedAt, assumptions, collections: [...]}`, each
//! `…At` in seconds of the source's own clock) and in words for people.
//!
//! Owns: the form of a [`Prediction`]. May not touch: the run (`whatif.rs`), I/O.

use serde_json::{Value, json};

use super::{Blocker, Prediction};
use crate::units::{count, grouped, human_bytes};

/// What a what-if's output says beside the prediction: the source and what was measured or
/// assumed of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    pub source: String,
    /// The source's clock is the wall clock (Unix seconds), not virtual seconds.
    pub unix_clock: bool,
    /// `(what, "measured" | "assumed", how)`.
    pub assumptions: Vec<(String, &'static str, String)>,
}

fn secs(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

fn at(ms: Option<u64>) -> Value {
    ms.map_or(Value::Null, |m| json!(secs(m)))
}

impl Prediction {
    /// The JSON of the contract: `{source, forkedAt, assumptions, collections: [...]}`.
    pub fn to_json(&self, ctx: &Context) -> Value {
        let c = &self.collection;
        let drained: serde_json::Map<String, Value> = (c.drained_at_ms.iter())
            .map(|(s, t)| (s.clone(), at(*t)))
            .collect();
        let reshard = c.reshard.as_ref().map_or(Value::Null, |r| {
            json!({
                "key": r.key,
                "simulated": r.simulated,
                "docs": r.docs,
                "bytes": r.bytes,
                "storageNeededBytes": r.bytes,
                "cloneMillis": r.clone_ms,
                "minimumDurationMillis": r.minimum_duration_ms,
                "committedAt": at(r.committed_at_ms),
                "error": r.error,
            })
        });
        json!({
            "source": ctx.source,
            "clock": if ctx.unix_clock { "unixSeconds" } else { "virtualSeconds" },
            "forkedAt": secs(self.forked_at_ms),
            "until": secs(self.until_ms),
            "endedAt": secs(self.ended_ms),
            "assumptions": ctx.assumptions.iter().map(|(what, how, note)| json!({
                "what": what, "how": how, "note": note,
            })).collect::<Vec<_>>(),
            "addedShards": self.added,
            "refused": self.refused,
            "drains": self.drains.iter().map(|d| json!({
                "shard": d.shard,
                "drainedAt": at(d.drained_at_ms),
                "dbsToMove": d.dbs_to_move,
            })).collect::<Vec<_>>(),
            "collections": [{
                "ns": c.ns,
                "balancedAt": at(c.balanced_at_ms),
                "notBalancedWhy": c.not_balanced_why,
                "lastMigrationAt": at(c.last_migration_at_ms),
                "drainedAt": drained,
                "migrations": c.migrations,
                "failedMigrations": c.failed,
                "bytesMoved": c.bytes_moved,
                "blockers": c.blockers.iter().map(blocker_json).collect::<Vec<_>>(),
                "reshard": reshard,
                "shards": c.shards.iter().map(|s| json!({
                    "shard": s.shard,
                    "added": s.added,
                    "draining": s.draining,
                    "chunks": s.chunks,
                    "jumbo": s.jumbo,
                    "docs": s.docs,
                    "bytes": s.bytes,
                })).collect::<Vec<_>>(),
            }],
        })
    }

    /// The prediction in words.
    pub fn to_text(&self, ctx: &Context) -> String {
        let when = |ms: u64| {
            let after = fmt_duration(ms.saturating_sub(self.forked_at_ms));
            if ctx.unix_clock {
                format!("{}, {after} after the fork", crate::units::date_time(ms))
            } else {
                format!("{:.1} s, {after} after the fork", secs(ms))
            }
        };
        let c = &self.collection;
        let mut s = format!(
            "what if — {} — {} forked at {}\n",
            c.ns,
            ctx.source,
            if ctx.unix_clock {
                crate::units::date_time(self.forked_at_ms)
            } else {
                format!("{:.1} s", secs(self.forked_at_ms))
            }
        );
        if !self.added.is_empty() {
            s.push_str(&format!("  added: {}\n", self.added.join(", ")));
        }
        for r in &self.refused {
            s.push_str(&format!("  refused: {r}\n"));
        }
        match c.balanced_at_ms {
            Some(t) => s.push_str(&format!("  balanced at        {}\n", when(t))),
            None => s.push_str(&format!(
                "  balanced at        not reached ({})\n",
                c.not_balanced_why.as_deref().unwrap_or("unknown")
            )),
        }
        match c.last_migration_at_ms {
            Some(t) => s.push_str(&format!("  last migration at  {}\n", when(t))),
            None => s.push_str("  last migration at  none\n"),
        }
        for d in &self.drains {
            match d.drained_at_ms {
                Some(t) => s.push_str(&format!("  {} drained at {}\n", d.shard, when(t))),
                None => match &self.collection.not_balanced_why {
                    Some(why) if why.starts_with("stalled") => {
                        s.push_str(&format!("  {} drained: no estimate ({why})\n", d.shard));
                    }
                    _ => s.push_str(&format!("  {} drained: not by the end\n", d.shard)),
                },
            }
            if !d.dbs_to_move.is_empty() {
                s.push_str(&format!(
                    "    then movePrimary of {} before removeShard completes\n",
                    d.dbs_to_move.join(", ")
                ));
            }
        }
        s.push_str(&format!(
            "  moved              {} ({}){}\n",
            count(c.migrations, "migration"),
            human_bytes(c.bytes_moved),
            if c.failed > 0 {
                format!(", {} failed", grouped(c.failed))
            } else {
                String::new()
            }
        ));
        if let Some(r) = &c.reshard {
            s.push_str(&format!(
                "  reshard to {}: {} of data ({}) to store again on the recipients; cloning {} (minimum {}){}\n",
                r.key,
                human_bytes(r.bytes),
                count(r.docs, "document"),
                fmt_duration(r.clone_ms),
                fmt_duration(r.minimum_duration_ms),
                match (r.committed_at_ms, &r.error) {
                    (Some(t), _) => format!("; committed at {}", when(t)),
                    (None, Some(e)) => format!("; {e}"),
                    (None, None) => "; not committed by the end".into(),
                }
            ));
        }
        for b in &c.blockers {
            s.push_str(&format!(
                "  blocker: {} — {} ({}×)\n",
                b.what, b.detail, b.times
            ));
        }
        end_state(&mut s, &c.shards);
        for (what, how, note) in &ctx.assumptions {
            s.push_str(&format!("  {how}: {what} — {note}\n"));
        }
        s
    }
}

/// The end state, one line per shard.
fn end_state(s: &mut String, shards: &[super::ShardEnd]) {
    s.push_str("  end state:\n");
    for sh in shards {
        let mark = match (sh.added, sh.draining) {
            (true, _) => " (added)",
            (_, true) => " (draining)",
            _ => "",
        };
        s.push_str(&format!(
            "    {:<12} {:>8} {:<6} {:>10}{}{mark}\n",
            sh.shard,
            grouped(sh.chunks),
            if sh.chunks == 1 { "chunk" } else { "chunks" },
            human_bytes(sh.bytes),
            if sh.jumbo > 0 {
                format!(", {} jumbo", grouped(sh.jumbo))
            } else {
                String::new()
            }
        ));
    }
}

fn blocker_json(b: &Blocker) -> Value {
    json!({"what": b.what, "detail": b.detail, "firstAt": secs(b.first_at_ms), "times": b.times})
}

/// `1 h 02 m`, `3 m 05 s`, `12.5 s`.
fn fmt_duration(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{} h {:02} m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{} m {:02} s", s / 60, s % 60)
    } else {
        format!("{:.1} s", secs(ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(fmt_duration(12_500), "12.5 s");
        assert_eq!(fmt_duration(185_000), "3 m 05 s");
        assert_eq!(fmt_duration(3_720_000), "1 h 02 m");
    }
}
