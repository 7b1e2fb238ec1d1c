//! A diagnosis in words and in JSON — the one form every surface shows: the panes and `H` take
//! these lines, `explain` its `next` and `nextReason`, the summaries' `diagnosis` field this JSON.
//!
//! Owns: the words and the JSON. May not touch: how the answers are reached (`status`,
//! `lookahead`).

use serde_json::{Value, json};

use super::{Basis, Diagnosis, DrainEta, Eta, Next};

/// A time of the source's clock in seconds, as the summaries write `time` (virtual seconds, or
/// Unix seconds for a live source).
fn secs(ms: u64) -> Value {
    json!(ms as f64 / 1000.0)
}

impl Eta {
    /// `{at, basis, what, why}`.
    pub fn to_json(&self) -> Value {
        json!({
            "at": self.at_ms.map(secs),
            "basis": self.basis.as_str(),
            "what": self.what,
            "why": self.why,
        })
    }

    /// `drained at 12:04:10 (in 4 min 10 s, simulated)`, `balanced: unknown (stalled …)`; `at`
    /// writes a time of the source's clock, `now_ms` is the instant diagnosed.
    pub fn text(&self, now_ms: u64, at: &dyn Fn(u64) -> String) -> String {
        match (self.at_ms, self.basis) {
            (Some(t), basis) if basis != Basis::Unknown => format!(
                "{} at {} (in {}, {})",
                self.what,
                at(t),
                duration(t.saturating_sub(now_ms)),
                basis.as_str()
            ),
            _ => format!(
                "{}: no estimate ({})",
                self.what,
                self.why.as_deref().unwrap_or("unknown")
            ),
        }
    }
}

/// `45 s`, `4 min 10 s`, `2 h 05 min`.
pub fn duration(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => format!("{}.{} s", s, ms % 1000 / 100),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

impl Diagnosis {
    /// `{status, cause: {rule, message, plain, source, events}, next, nextReason, eta}` — the
    /// summaries' `diagnosis` field.
    pub fn to_json(&self) -> Value {
        let events: Vec<Value> = (self.cause.events.iter())
            .map(|e| json!({"at": secs(e.at_ms), "text": e.text}))
            .collect();
        json!({
            "status": self.status.as_str(),
            "cause": {
                "rule": self.cause.rule,
                "message": self.cause.message,
                "plain": self.cause.plain,
                "source": self.cause.source,
                "events": events,
                "clearsAt": self.cause.clears_at_ms.map(secs),
            },
            "next": self.next_json(),
            "nextReason": match &self.next {
                Next::Nothing(why) => json!(why),
                Next::Move(_) => Value::Null,
            },
            "eta": self.eta.to_json(),
        })
    }

    /// `{from, to, min, max, reason, at, fails}`, or `null`.
    pub fn next_json(&self) -> Value {
        match &self.next {
            Next::Move(m) => json!({
                "from": m.from, "to": m.to, "min": m.min, "max": m.max, "reason": m.reason,
                "at": secs(m.at_ms), "fails": m.fails,
            }),
            Next::Nothing(_) => Value::Null,
        }
    }

    /// The one line that says it: `draining: a draining shard still holds 4 of its chunks …`.
    pub fn status_line(&self) -> String {
        format!("{}: {}", self.status.as_str(), self.cause_text())
    }

    /// The cause in plain words, then in MongoDB's words when they say more.
    pub fn cause_text(&self) -> String {
        let mut text = self.cause.plain.clone();
        if self.cause.message != self.cause.rule && self.cause.message != self.cause.plain {
            text.push_str(&format!(" — {}", self.cause.message));
        }
        text
    }

    /// `next: shard0001 → shard0000 [{ ts: 1 }, { ts: 5 }) (drain) at 12:00:10`, or why none.
    pub fn next_text(&self, at: &dyn Fn(u64) -> String) -> String {
        match &self.next {
            Next::Move(m) => format!(
                "next: {} → {} {} ({}{}) at {}",
                m.from,
                m.to,
                m.range,
                m.reason,
                m.fails.map(|f| format!(", fails: {f}")).unwrap_or_default(),
                at(m.at_ms)
            ),
            Next::Nothing(why) => format!("next: nothing moves: {why}"),
        }
    }

    /// Every line of it, whole: status and cause, evidence, next move, estimate.
    pub fn lines(&self, at: &dyn Fn(u64) -> String) -> Vec<String> {
        let mut out = vec![format!("{}: {}", self.ns, self.status_line())];
        if let Some(src) = self.cause.source {
            out.push(format!("  rule: {} [{src}]", self.cause.rule));
        }
        for e in &self.cause.events {
            out.push(format!("  {} {}", at(e.at_ms), e.text));
        }
        if let Some(t) = self.cause.clears_at_ms {
            out.push(format!(
                "  the cause goes at {} (the range deleter runs)",
                at(t)
            ));
        }
        out.push(format!("  {}", self.next_text(at)));
        out.push(format!("  {}", self.eta.text(self.at_ms, at)));
        out
    }
}

impl DrainEta {
    /// `draining shard0001: 12 chunks left · drained at … (in …, simulated)`.
    pub fn text(&self, now_ms: u64, at: &dyn Fn(u64) -> String) -> String {
        if self.chunks_left == 0 {
            return format!(
                "draining {}: no chunk left (removeShard can complete)",
                self.shard
            );
        }
        format!(
            "draining {}: {} left · {}",
            self.shard,
            crate::units::count(self.chunks_left, "chunk"),
            self.eta.text(now_ms, at)
        )
    }

    pub fn to_json(&self) -> Value {
        json!({"shard": self.shard, "chunksLeft": self.chunks_left, "eta": self.eta.to_json()})
    }
}

impl super::Diagnoses {
    /// Puts each collection's diagnosis in a JSON summary (`collections[].diagnosis`; `null` for
    /// a collection that is not sharded) and the drains' estimates (`balancer.drainEstimates`);
    /// `namespaces` are the state's collections, in the summary's order.
    pub fn attach(&self, summary: &mut Value, namespaces: &[String]) {
        if let Some(colls) = summary["collections"].as_array_mut() {
            for (c, ns) in colls.iter_mut().zip(namespaces) {
                c["diagnosis"] = self.of(ns).map_or(Value::Null, Diagnosis::to_json);
            }
        }
        if summary["balancer"].is_object() {
            summary["balancer"]["drainEstimates"] =
                self.drains.iter().map(DrainEta::to_json).collect();
        }
    }
}
