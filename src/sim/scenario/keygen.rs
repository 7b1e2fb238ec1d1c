//! Key generators of workloads: how the values of a document's fields are drawn — ascending
//! ObjectIds and dates, sequences, uniform numbers, UUIDs, random and alphabetical usernames,
//! weighted finite sets and mixtures.

use serde::Deserialize;

use crate::model::KeyValue;
use crate::model::extjson;
use crate::sim::rng::Rng;

/// Virtual time 0 is 2026-01-01T00:00:00Z.
pub const EPOCH_SECONDS: u64 = 1_767_225_600;

/// How a field's values are generated (scenario files use these names).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum GenSpec {
    /// Ascending ObjectIds: the virtual time in seconds, a fixed per-run machine part, a counter.
    ObjectId {},
    /// Ascending dates: the virtual time, in milliseconds.
    Date {},
    /// 1, 2, 3, … (an imported autoincrement id).
    Sequence {
        #[serde(default = "one")]
        start: i64,
    },
    /// A double uniform in `[min, max)`.
    Uniform { min: f64, max: f64 },
    /// An integer uniform in `[min, max]`.
    UniformInt { min: i64, max: i64 },
    /// A random UUID (BinData subtype 4).
    Uuid {},
    /// A random lowercase username of the given length.
    RandomString {
        #[serde(default = "eight")]
        length: usize,
    },
    /// Lowercase usernames in alphabetical order.
    Alphabetical {
        #[serde(default = "eight")]
        length: usize,
    },
    /// A random IPv4 address as a zero-padded string (`"056.012.001.200"`).
    IpAddress {},
    /// One of `values` (Extended JSON), chosen with the given weights (equal if absent).
    Choice {
        values: Vec<serde_json::Value>,
        #[serde(default)]
        weights: Vec<f64>,
    },
    /// One value, always.
    Const(serde_json::Value),
    /// One of several generators, chosen with weights.
    Mix(Vec<Weighted>),
    /// Each value of `gen` repeated `times` times in a row (e.g. the GridFS chunks of one file).
    Repeat {
        times: u64,
        #[serde(rename = "gen")]
        generator: Box<GenSpec>,
    },
}

/// A generator and its weight in a [`GenSpec::Mix`].
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Weighted {
    pub weight: f64,
    #[serde(rename = "gen")]
    pub generator: GenSpec,
}

fn one() -> i64 {
    1
}

fn eight() -> usize {
    8
}

/// A running generator.
#[derive(Clone, Debug)]
pub enum KeyGen {
    ObjectId {
        machine: [u8; 5],
        counter: u32,
    },
    Date,
    Sequence {
        next: i64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    UniformInt {
        min: i64,
        max: i64,
    },
    Uuid,
    RandomString {
        length: usize,
    },
    Alphabetical {
        length: usize,
        next: u64,
    },
    IpAddress,
    Choice {
        values: Vec<KeyValue>,
        cumulative: Vec<f64>,
    },
    Const(KeyValue),
    Mix {
        parts: Vec<KeyGen>,
        cumulative: Vec<f64>,
    },
    Repeat {
        times: u64,
        left: u64,
        current: Option<KeyValue>,
        inner: Box<KeyGen>,
    },
}

impl KeyGen {
    /// Builds a generator; `Err` names the problem (the caller adds the field path).
    pub fn build(spec: &GenSpec, rng: &mut Rng) -> Result<Self, String> {
        Ok(match spec {
            GenSpec::ObjectId {} => {
                let r = rng.next_u64().to_le_bytes();
                Self::ObjectId {
                    machine: [r[0], r[1], r[2], r[3], r[4]],
                    counter: (rng.next_u64() & 0xFF_FFFF) as u32,
                }
            }
            GenSpec::Date {} => Self::Date,
            GenSpec::Sequence { start } => Self::Sequence { next: *start },
            GenSpec::Uniform { min, max } if min < max => Self::Uniform {
                min: *min,
                max: *max,
            },
            GenSpec::Uniform { .. } => return Err("uniform: min must be below max".into()),
            GenSpec::UniformInt { min, max } if min <= max => Self::UniformInt {
                min: *min,
                max: *max,
            },
            GenSpec::UniformInt { .. } => return Err("uniformInt: min must not exceed max".into()),
            GenSpec::Uuid {} => Self::Uuid,
            GenSpec::RandomString { length } => Self::RandomString {
                length: (*length).clamp(1, 64),
            },
            GenSpec::Alphabetical { length } => Self::Alphabetical {
                length: (*length).clamp(1, 13),
                next: 0,
            },
            GenSpec::IpAddress {} => Self::IpAddress,
            GenSpec::Choice { values, weights } => {
                if values.is_empty() {
                    return Err("choice: values must not be empty".into());
                }
                let parsed = values
                    .iter()
                    .map(|v| extjson::from_json(v.clone()).map_err(|e| format!("choice: {e}")))
                    .collect::<Result<Vec<_>, _>>()?;
                let cumulative = cumulative_weights(weights, values.len())?;
                Self::Choice {
                    values: parsed,
                    cumulative,
                }
            }
            GenSpec::Const(v) => {
                Self::Const(extjson::from_json(v.clone()).map_err(|e| format!("const: {e}"))?)
            }
            GenSpec::Repeat { times, generator } => {
                if *times == 0 {
                    return Err("repeat: times must be at least 1".into());
                }
                Self::Repeat {
                    times: *times,
                    left: 0,
                    current: None,
                    inner: Box::new(Self::build(generator, rng)?),
                }
            }
            GenSpec::Mix(parts) => {
                if parts.is_empty() {
                    return Err("mix: give at least one generator".into());
                }
                let weights: Vec<f64> = parts.iter().map(|p| p.weight).collect();
                let cumulative = cumulative_weights(&weights, parts.len())?;
                let parts = parts
                    .iter()
                    .map(|p| Self::build(&p.generator, rng))
                    .collect::<Result<_, _>>()?;
                Self::Mix { parts, cumulative }
            }
        })
    }

    /// The next value at virtual time `now_ms`.
    pub fn next(&mut self, rng: &mut Rng, now_ms: u64) -> KeyValue {
        match self {
            Self::ObjectId { machine, counter } => {
                *counter = (*counter + 1) & 0xFF_FFFF;
                let secs = (EPOCH_SECONDS + now_ms / 1000) as u32;
                let mut oid = [0u8; 12];
                oid[..4].copy_from_slice(&secs.to_be_bytes());
                oid[4..9].copy_from_slice(machine);
                oid[9..].copy_from_slice(&counter.to_be_bytes()[1..]);
                KeyValue::ObjectId(oid)
            }
            Self::Date => KeyValue::DateTime((EPOCH_SECONDS * 1000 + now_ms) as i64),
            Self::Sequence { next } => {
                let v = *next;
                *next += 1;
                KeyValue::Int64(v)
            }
            Self::Uniform { min, max } => KeyValue::Double(*min + rng.next_f64() * (*max - *min)),
            Self::UniformInt { min, max } => KeyValue::Int64(rng.range_i64(*min, *max)),
            Self::Uuid => {
                let mut bytes = [0u8; 16];
                bytes[..8].copy_from_slice(&rng.next_u64().to_le_bytes());
                bytes[8..].copy_from_slice(&rng.next_u64().to_le_bytes());
                bytes[6] = (bytes[6] & 0x0F) | 0x40;
                bytes[8] = (bytes[8] & 0x3F) | 0x80;
                KeyValue::Binary(Box::new(crate::model::value::Binary {
                    subtype: 4,
                    bytes: bytes.into(),
                }))
            }
            Self::RandomString { length } => {
                let s: String = (0..*length)
                    .map(|_| (b'a' + rng.range_u64(0, 25) as u8) as char)
                    .collect();
                KeyValue::string(s)
            }
            Self::Alphabetical { length, next } => {
                let s = base26(*next, *length);
                *next += 1;
                KeyValue::string(s)
            }
            Self::IpAddress => {
                let octets: Vec<String> = (0..4)
                    .map(|_| format!("{:03}", rng.range_u64(0, 255)))
                    .collect();
                KeyValue::string(octets.join("."))
            }
            Self::Choice { values, cumulative } => values[pick(cumulative, rng)].clone(),
            Self::Const(v) => v.clone(),
            Self::Repeat {
                times,
                left,
                current,
                inner,
            } => {
                if *left == 0 || current.is_none() {
                    *current = Some(inner.next(rng, now_ms));
                    *left = *times;
                }
                *left -= 1;
                current.clone().unwrap_or(KeyValue::Null)
            }
            Self::Mix { parts, cumulative } => {
                let i = pick(cumulative, rng);
                parts[i].next(rng, now_ms)
            }
        }
    }
}

fn cumulative_weights(weights: &[f64], n: usize) -> Result<Vec<f64>, String> {
    let weights: Vec<f64> = if weights.is_empty() {
        vec![1.0; n]
    } else {
        weights.to_vec()
    };
    if weights.len() != n {
        return Err(format!("{} weights for {n} values", weights.len()));
    }
    if weights.iter().any(|w| !w.is_finite() || *w < 0.0) || weights.iter().sum::<f64>() <= 0.0 {
        return Err("weights must be non-negative with a positive sum".into());
    }
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    Ok(weights
        .iter()
        .map(|w| {
            acc += w / total;
            acc
        })
        .collect())
}

fn pick(cumulative: &[f64], rng: &mut Rng) -> usize {
    let x = rng.next_f64();
    cumulative
        .partition_point(|&c| c <= x)
        .min(cumulative.len() - 1)
}

/// `n` written in base 26 with letters, left-padded with 'a' to `length`.
fn base26(mut n: u64, length: usize) -> String {
    let mut out = vec![b'a'; length];
    for slot in out.iter_mut().rev() {
        *slot = b'a' + (n % 26) as u8;
        n /= 26;
    }
    String::from_utf8(out).unwrap_or_default()
}
