//! Conformance: whether a cluster does what its release line's balancer rules say, as a source
//! found it over its polls (`source::conformance` runs the rules one round ahead of each poll) —
//! the status, why it is unknown, and each finding with the rule involved and, where one is
//! known, the MongoDB issue that may explain it. Shown in the balancer pane and as the JSON
//! summary's `conformance`.
//!
//! Owns: the shape of the verdict, its JSON and its words. May not touch: the rules (the
//! simulator's), the comparison (the source's), I/O.

use serde_json::{Value, json};

/// The verdict over the polls seen so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Status {
    /// Nothing to compare now: one poll only, the balancer off or outside its window, a round
    /// in flight, or reads the rules need refused (`reason` says which).
    #[default]
    Unknown,
    /// The cluster did what the rules said (or nothing long enough to tell otherwise).
    Conforms,
    /// At least one finding.
    Diverges,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unknown => "unknown",
            Self::Conforms => "conforms",
            Self::Diverges => "diverges",
        }
    }
}

/// What the cluster did against the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The rules picked a migration at every poll for `for_secs`; none started.
    Withheld,
    /// Chunks moved while the rules picked no migration from their donor.
    Unexpected,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Withheld => "withheld",
            Self::Unexpected => "unexpected",
        }
    }
}

/// One finding on one collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub ns: String,
    pub kind: Kind,
    /// The rule involved, in MongoDB's words: the migration reason the rules gave
    /// (`chunksImbalance`, `zoneViolation`, `drain`), or `none` when the rules picked nothing.
    pub rule: String,
    /// The donor shard: of the expected migrations (withheld), or of the moves (unexpected).
    pub shard: String,
    /// How long it has lasted (withheld) or the span the moves fell in (unexpected), seconds.
    pub for_secs: u64,
    /// How many moves the rules would not have made (unexpected; 0 for withheld).
    pub moves: u64,
    /// A MongoDB issue that may explain it, a guess labelled as one (`possibly SERVER-…`).
    pub issue: Option<String>,
}

impl Finding {
    /// The finding in words, as the balancer pane says it.
    pub fn text(&self) -> String {
        let mins = self.for_secs / 60;
        let span = if mins > 0 {
            format!("{mins} min")
        } else {
            format!("{} s", self.for_secs)
        };
        let what = match self.kind {
            Kind::Withheld => format!(
                "{}: expected migrations from {} for {span} ({}), saw none",
                self.ns, self.shard, self.rule
            ),
            Kind::Unexpected => format!(
                "{}: moved {} from {} in {span} the rules would not",
                self.ns,
                crate::units::count(self.moves, "chunk"),
                self.shard
            ),
        };
        match &self.issue {
            Some(i) => format!("{what}; {i}"),
            None => what,
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "ns": self.ns, "kind": self.kind.as_str(), "rule": self.rule, "shard": self.shard,
            "forSecs": self.for_secs, "moves": self.moves, "issue": self.issue,
            "text": self.text(),
        })
    }
}

/// The verdict a source gives.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conformance {
    pub status: Status,
    /// Why the status is unknown (`None` otherwise).
    pub reason: Option<String>,
    /// The polls compared so far.
    pub polls: u64,
    pub findings: Vec<Finding>,
}

impl Conformance {
    /// Unknown, for `reason`.
    pub fn unknown(reason: impl Into<String>, polls: u64) -> Self {
        Self {
            status: Status::Unknown,
            reason: Some(reason.into()),
            polls,
            findings: Vec::new(),
        }
    }

    /// `{status, reason, polls, findings: [{ns, kind, rule, shard, forSecs, moves, issue, text}]}`.
    pub fn to_json(&self) -> Value {
        json!({
            "status": self.status.as_str(),
            "reason": self.reason,
            "polls": self.polls,
            "findings": self.findings.iter().map(Finding::to_json).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_says_the_rule_the_shard_and_the_issue() {
        let f = Finding {
            ns: "db.c".into(),
            kind: Kind::Withheld,
            rule: "chunksImbalance".into(),
            shard: "shard02".into(),
            for_secs: 600,
            moves: 0,
            issue: Some("possibly SERVER-115962".into()),
        };
        assert_eq!(
            f.text(),
            "db.c: expected migrations from shard02 for 10 min (chunksImbalance), saw none; \
             possibly SERVER-115962"
        );
        let c = Conformance {
            status: Status::Diverges,
            reason: None,
            polls: 70,
            findings: vec![f],
        };
        let j = c.to_json();
        assert_eq!(j["status"], "diverges");
        assert_eq!(j["findings"][0]["kind"], "withheld");
        assert_eq!(j["findings"][0]["forSecs"], 600);
        let u = Conformance::unknown("the balancer is off", 3).to_json();
        assert_eq!(u["status"], "unknown");
        assert_eq!(u["reason"], "the balancer is off");
    }
}
