//! The one answer to an on-call engineer's questions about each collection — is it balanced, why
//! not, what moves next, when is it done — computed once per state by the simulator's own rules
//! and read by every surface (the panes, `H`, `W`, the explain panel, `explain`, `whatif`, the
//! JSON summaries). Nothing above this floor decides any of these answers again.
//!
//! - `status`: `balanced` exactly as `balancerCollectionStatus`'s `balancerCompliant` means it
//!   (the simulator's `balancer_compliance`), or `balancing`, `draining`, `stalled`, `blocked`,
//!   `disabled`, `unknown`;
//! - `cause`: the rule and its evidence, the events it rests on with their whole text;
//! - `next`: the migration the next balancer round starts, found by playing the state to that
//!   round (`lookahead`);
//! - `eta`: when it is balanced (or its drains done) and on what basis.
//!
//! Owns: these answers, their words and their JSON. May not touch: the rules themselves (it only
//! runs the simulator), I/O, the wall clock, the terminal. Builds on `sim`, `cluster`, `model`,
//! `units`; `view`, `source` and `commands` read it.

mod causes;
mod lookahead;
mod report;
mod status;

pub use causes::{Classified, classify};
pub use lookahead::{Future, LOOKAHEAD_MS, look_ahead};
pub use status::{Input, SourceKind, diagnose};

/// A collection's state, in one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// `balancerCompliant`: no defragmentation, no zone split or violation, no draining shard
    /// holding its chunks, no imbalance, nothing of it in flight.
    Balanced,
    /// Not compliant, and the balancer moves its chunks.
    Balancing,
    /// A draining shard still holds its chunks, and the balancer moves them.
    Draining,
    /// Its migrations fail again and again: no progress until the cause goes.
    Stalled,
    /// Not compliant, and the balancer cannot move what it would (a jumbo chunk, a zone with no
    /// shard to take it, the window closed).
    Blocked,
    /// Not compliant, and balancing is switched off (the balancer stopped, `noBalance`,
    /// `permitMigrations: false`).
    Disabled,
    /// What the answer needs could not be read.
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Balanced => "balanced",
            Self::Balancing => "balancing",
            Self::Draining => "draining",
            Self::Stalled => "stalled",
            Self::Blocked => "blocked",
            Self::Disabled => "disabled",
            Self::Unknown => "unknown",
        }
    }
}

/// An event a cause rests on: when, and its whole text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    pub at_ms: u64,
    pub text: String,
}

/// Why the status is what it is: the rule (MongoDB's word where it has one), the message in
/// MongoDB's words, the same in plain words, and the events it rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    pub rule: &'static str,
    pub message: String,
    pub plain: String,
    pub events: Vec<Evidence>,
    /// The MongoDB source file the rule follows, when it is one of MongoDB's.
    pub source: Option<&'static str>,
    /// When the cause goes by itself, where the state says it (the recipient's range deleter
    /// runs then); `None`: not known.
    pub clears_at_ms: Option<u64>,
}

impl Cause {
    pub fn new(rule: &'static str, message: impl Into<String>, plain: impl Into<String>) -> Self {
        Self {
            rule,
            message: message.into(),
            plain: plain.into(),
            events: Vec::new(),
            source: None,
            clears_at_ms: None,
        }
    }
}

/// The migration the next balancer round starts on the collection.
#[derive(Clone, Debug, PartialEq)]
pub struct NextMove {
    /// When that round starts (the source's clock).
    pub at_ms: u64,
    pub from: String,
    pub to: String,
    /// The chunk's bounds as canonical Extended JSON, and as the screen writes them.
    pub min: serde_json::Value,
    pub max: serde_json::Value,
    pub range: String,
    /// MongoDB's reason word (`chunksImbalance`, `zoneViolation`, `drain`, …).
    pub reason: &'static str,
    /// It fails as it starts, with this error name (ChunkTooBig).
    pub fails: Option<&'static str>,
    /// The chunk's lower bound, as the routing table keys it.
    pub min_key: crate::model::ShardKey,
}

impl Next {
    /// The answer as the explanation takes it.
    pub fn told(&self) -> crate::sim::balancer::explain::Told {
        use crate::sim::balancer::explain::Told;
        match self {
            Self::Move(m) => Told::Move {
                min: m.min_key.clone(),
                from: m.from.clone(),
                to: m.to.clone(),
                reason: match m.fails {
                    Some(code) => format!("{} (fails: {code})", m.reason),
                    None => m.reason.to_string(),
                },
            },
            Self::Nothing(why) => Told::Nothing(why.clone()),
        }
    }
}

/// What the next round does for the collection: a migration, or why none.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    Move(Box<NextMove>),
    Nothing(String),
}

/// What an estimate rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// The rate observed on the source.
    Measured,
    /// A run of the simulator from this state.
    Simulated,
    /// No estimate (`why` says why).
    Unknown,
}

impl Basis {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Measured => "measured",
            Self::Simulated => "simulated",
            Self::Unknown => "unknown",
        }
    }
}

/// When the collection is done: balanced, or — while a shard drains — its chunks off the draining
/// shards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eta {
    /// The source's clock (`None`: not known).
    pub at_ms: Option<u64>,
    pub basis: Basis,
    /// What is estimated (`balanced`, `drained`), and why there is no estimate when there is none.
    pub what: &'static str,
    pub why: Option<String>,
}

impl Eta {
    pub fn unknown(what: &'static str, why: impl Into<String>) -> Self {
        Self {
            at_ms: None,
            basis: Basis::Unknown,
            what,
            why: Some(why.into()),
        }
    }
}

/// One collection's diagnosis at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosis {
    pub ns: String,
    /// The instant of the state diagnosed (the source's clock).
    pub at_ms: u64,
    pub status: Status,
    pub cause: Cause,
    pub next: Next,
    pub eta: Eta,
}

/// A draining shard: when it holds no chunk of any collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrainEta {
    pub shard: String,
    pub chunks_left: u64,
    pub eta: Eta,
}

/// Every sharded collection's diagnosis (the others have none), and the drains.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diagnoses {
    pub at_ms: u64,
    pub collections: Vec<Diagnosis>,
    pub drains: Vec<DrainEta>,
    /// A source whose clock is Unix time (live, captures): times are shown as wall-clock times.
    pub unix_clock: bool,
}

impl Diagnoses {
    /// The same answers with every time moved by `ms` (a live recording's trace time as the
    /// wall-clock time it was recorded at).
    pub fn shifted(mut self, ms: u64) -> Self {
        self.at_ms += ms;
        for d in &mut self.collections {
            d.at_ms += ms;
            if let Next::Move(m) = &mut d.next {
                m.at_ms += ms;
            }
            d.eta.at_ms = d.eta.at_ms.map(|t| t + ms);
            for e in &mut d.cause.events {
                e.at_ms += ms;
            }
            d.cause.clears_at_ms = d.cause.clears_at_ms.map(|t| t + ms);
        }
        for d in &mut self.drains {
            d.eta.at_ms = d.eta.at_ms.map(|t| t + ms);
        }
        self
    }

    /// The diagnosis of `ns`, if it is a sharded collection of the state.
    pub fn of(&self, ns: &str) -> Option<&Diagnosis> {
        self.collections.iter().find(|d| d.ns == ns)
    }
}
