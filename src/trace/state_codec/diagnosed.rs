//! The keyframe fields a diagnosis reads (format 1.2): `outcomes`, each collection's recent
//! migration outcomes (`cluster::balancer::outcomes`), so a replay that starts at a keyframe knows the
//! failures before it as the source did; and the balancer's `compliance`, a live cluster's own
//! `balancerCollectionStatus` answers. Written only when there are some; absent reads as none,
//! so older traces read as before.
//!
//! Owns: these fields' JSON, both ways. May not touch: the rest of a keyframe (`state_codec`).

use serde_json::{Value, json};

use crate::cluster::Cluster;
use crate::cluster::balancer::BalancerState;
use crate::cluster::balancer::outcomes::{Outcome, OutcomeError};
use crate::trace::json::{Res, array_at, str_at, u64_at};

/// Adds `outcomes` to the keyframe object `out` (absent when there are none).
pub(super) fn encode(c: &Cluster, out: &mut Value) {
    let list: Vec<Value> = (c.balancer.outcomes.iter())
        .flat_map(|(ns, kept)| kept.iter().map(move |o| (ns, o)))
        .map(|(ns, o)| {
            let mut v = json!({
                "ns": ns, "atMs": o.at_ms, "from": o.from, "to": o.to, "range": o.range,
            });
            if let Some(e) = &o.error {
                v["error"] = json!({"code": e.code, "codeName": e.code_name, "errmsg": e.message});
            }
            v
        })
        .collect();
    if !list.is_empty() {
        out["outcomes"] = Value::Array(list);
    }
}

/// A keyframe's `outcomes` into `cluster` (absent: none); `p` is the keyframe's path.
pub(super) fn decode(frame: &Value, p: &str, cluster: &mut Cluster) -> Res<()> {
    if frame.get("outcomes").is_none() {
        return Ok(());
    }
    for (i, o) in array_at(frame, "outcomes", p)?.iter().enumerate() {
        let op = format!("{p}outcomes[{i}].");
        let error = match o.get("error") {
            None | Some(Value::Null) => None,
            Some(e) => Some(error(e, &format!("{op}error."))?),
        };
        let outcome = Outcome {
            at_ms: u64_at(o, "atMs", &op)?,
            from: str_at(o, "from", &op)?.to_string(),
            to: str_at(o, "to", &op)?.to_string(),
            range: str_at(o, "range", &op)?.to_string(),
            error,
        };
        cluster
            .balancer
            .outcomes
            .push(str_at(o, "ns", &op)?, outcome);
    }
    Ok(())
}

/// Adds `compliance` to the keyframe's balancer object `out` (absent when none was asked).
pub(super) fn encode_compliance(b: &BalancerState, out: &mut Value) {
    if !b.compliance.is_empty() {
        out["compliance"] = (b.compliance.iter())
            .map(|(ns, v)| json!({"ns": ns, "violation": v}))
            .collect();
    }
}

/// The balancer's `compliance` (absent: none asked); `p` is the keyframe's path.
pub(super) fn decode_compliance(b: &Value, p: &str, state: &mut BalancerState) -> Res<()> {
    if b.get("compliance").is_none() {
        return Ok(());
    }
    for (i, c) in array_at(b, "compliance", p)?.iter().enumerate() {
        let cp = format!("{p}compliance[{i}].");
        let violation = match c.get("violation") {
            None | Some(Value::Null) => None,
            Some(_) => Some(str_at(c, "violation", &cp)?.to_string()),
        };
        state
            .compliance
            .insert(str_at(c, "ns", &cp)?.to_string(), violation);
    }
    Ok(())
}

fn error(e: &Value, p: &str) -> Res<OutcomeError> {
    let code = match e.get("code") {
        None | Some(Value::Null) => None,
        Some(c) => Some(
            c.as_i64()
                .and_then(|c| i32::try_from(c).ok())
                .ok_or_else(|| format!("field `{p}code`: expected a 32-bit integer or null"))?,
        ),
    };
    let code_name = match e.get("codeName") {
        None | Some(Value::Null) => None,
        Some(_) => Some(str_at(e, "codeName", p)?.to_string()),
    };
    Ok(OutcomeError {
        code,
        code_name,
        message: str_at(e, "errmsg", p)?.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_round_trip_and_a_bad_code_names_its_path() {
        use crate::trace::state_codec::observed::tests::cluster;
        let mut c = cluster();
        c.balancer.outcomes.push(
            "db.c",
            Outcome {
                at_ms: 5_000,
                from: "s0".into(),
                to: "s1".into(),
                range: "[1, 2)".into(),
                error: Some(OutcomeError {
                    code: Some(96),
                    code_name: Some("OperationFailed".into()),
                    message: "Data transfer error".into(),
                }),
            },
        );
        let line = crate::trace::state_codec::encode(&c);
        let back = crate::trace::state_codec::decode(&line).expect("decodes");
        assert_eq!(back.balancer.outcomes, c.balancer.outcomes);
        let mut out = json!({});
        encode(&c, &mut out);
        let mut back = cluster();
        out["outcomes"][0]["error"]["code"] = json!("x");
        let e = decode(&out, "keyframe.", &mut back).expect_err("refused");
        assert!(e.contains("keyframe.outcomes[0].error.code"), "{e}");
    }
}
