//! The balancer's observed keyframe fields: `completedFrom`, `drains` and `windowNow`.
//!
//! Owns: these fields' JSON, both ways. May not touch: the rest of the balancer's object
//! (`state_codec`).

use serde_json::{Value, json};

use super::{opt_str, opt_u64};
use crate::cluster::balancer::{BalancerState, MovedFrom};
use crate::cluster::balancing_window::WindowNow;
use crate::cluster::drain::{DrainSource, DrainStatus};
use crate::trace::json::{Res, array_at, bool_at, str_at, strings_at, u64_at};

/// Adds the balancer's observed fields to its keyframe object `out`.
pub(in crate::trace::state_codec) fn encode_balancer(b: &BalancerState, out: &mut Value) {
    if let Some(from) = b.completed_from {
        out["completedFrom"] = json!(from.as_str());
    }
    if !b.drains.is_empty() {
        out["drains"] = b
            .drains
            .iter()
            .map(|d| {
                json!({
                    "shard": d.shard, "source": d.source.as_str(), "state": d.state,
                    "chunks": d.chunks, "jumboChunks": d.jumbo_chunks, "dbsToMove": d.dbs_to_move,
                    "collectionsToMove": d.collections_to_move, "truncated": d.truncated,
                    "etaSecs": d.eta_secs, "rateOverSecs": d.rate_over_secs,
                })
            })
            .collect();
    }
    if let Some(w) = &b.window_now {
        out["windowNow"] = json!({
            "open": w.open,
            "utcOffsetMinutes": w.utc_offset_minutes.map(|(min, max)| json!({"min": min, "max": max})),
            "rounds": w.rounds,
        });
    }
}

/// Reads the balancer's observed fields into `state` (absent: none).
pub(in crate::trace::state_codec) fn decode_balancer(
    b: &Value,
    p: &str,
    state: &mut BalancerState,
) -> Res<()> {
    if let Some(from) = b.get("completedFrom") {
        let text = from.as_str().unwrap_or_default();
        state.completed_from = Some(MovedFrom::parse(text).ok_or_else(|| {
            format!("field `{p}completedFrom`: expected \"changelog\" or \"actionlog\"")
        })?);
    }
    if b.get("drains").is_some() {
        for (i, d) in array_at(b, "drains", p)?.iter().enumerate() {
            let dp = format!("{p}drains[{i}].");
            let source = match str_at(d, "source", &dp)? {
                "shardDrainingStatus" => DrainSource::Reported,
                "derived" => DrainSource::Derived,
                other => return Err(format!("field `{dp}source`: unknown source {other:?}")),
            };
            state.drains.push(DrainStatus {
                shard: str_at(d, "shard", &dp)?.to_string(),
                source,
                state: opt_str(d, "state", &dp)?,
                chunks: u64_at(d, "chunks", &dp)?,
                jumbo_chunks: u64_at(d, "jumboChunks", &dp)?,
                dbs_to_move: strings_at(d, "dbsToMove", &dp)?,
                collections_to_move: strings_at(d, "collectionsToMove", &dp)?,
                truncated: bool_at(d, "truncated", &dp)?,
                eta_secs: opt_u64(d, "etaSecs", &dp)?,
                rate_over_secs: u64_at(d, "rateOverSecs", &dp)?,
            });
        }
    }
    if let Some(w) = b.get("windowNow") {
        let wp = format!("{p}windowNow.");
        let open = match w.get("open") {
            None | Some(Value::Null) => None,
            Some(o) => Some(
                o.as_bool()
                    .ok_or_else(|| format!("field `{wp}open`: expected true, false or null"))?,
            ),
        };
        let offset = |o: &Value, name: &str| -> Res<i32> {
            o.get(name)
                .and_then(Value::as_i64)
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| format!("field `{wp}utcOffsetMinutes.{name}`: expected minutes"))
        };
        let utc_offset_minutes = match w.get("utcOffsetMinutes") {
            None | Some(Value::Null) => None,
            Some(o) => Some((offset(o, "min")?, offset(o, "max")?)),
        };
        state.window_now = Some(WindowNow {
            open,
            utc_offset_minutes,
            rounds: u64_at(w, "rounds", &wp)? as usize,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cluster, round_trip};
    use super::*;
    use crate::trace::state_codec::{decode, encode};

    #[test]
    fn drains_round_trip() {
        let mut c = cluster();
        let drains = vec![
            DrainStatus {
                shard: "shard02".into(),
                source: DrainSource::Reported,
                state: Some("ongoing".into()),
                chunks: 12,
                jumbo_chunks: 1,
                dbs_to_move: vec!["shop".into()],
                collections_to_move: vec!["shop.logs".into()],
                truncated: true,
                eta_secs: Some(600),
                rate_over_secs: 30,
            },
            DrainStatus {
                shard: "shard03".into(),
                source: DrainSource::Derived,
                state: None,
                chunks: 0,
                jumbo_chunks: 0,
                dbs_to_move: Vec::new(),
                collections_to_move: Vec::new(),
                truncated: false,
                eta_secs: None,
                rate_over_secs: 0,
            },
        ];
        c.balancer.drains = drains.clone();
        assert_eq!(round_trip(&c).balancer.drains, drains);
    }

    #[test]
    fn window_now_round_trips() {
        let mut c = cluster();
        for w in [
            WindowNow {
                open: Some(true),
                utc_offset_minutes: Some((-300, -240)),
                rounds: 7,
            },
            WindowNow {
                open: None,
                utc_offset_minutes: None,
                rounds: 0,
            },
        ] {
            c.balancer.window_now = Some(w.clone());
            assert_eq!(round_trip(&c).balancer.window_now, Some(w));
        }
    }

    #[test]
    fn completed_from_round_trips() {
        let mut c = cluster();
        assert_eq!(round_trip(&c).balancer.completed_from, None);
        for from in [MovedFrom::Changelog, MovedFrom::Actionlog] {
            c.balancer.completed_from = Some(from);
            assert_eq!(round_trip(&c).balancer.completed_from, Some(from));
        }
        let mut line = encode(&c);
        line["keyframe"]["balancer"]["completedFrom"] = json!("guess");
        let e = decode(&line).expect_err("refused");
        assert!(e.contains("keyframe.balancer.completedFrom"), "{e}");
    }
}
