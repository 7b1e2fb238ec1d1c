//! The server parameters a sharding lab changes, through `getParameter` and `setParameter`:
//! resharding's minimum duration and critical-section timeout, the range deleter's
//! `orphanCleanupDelaySecs` (for migrations from then on), the AutoMerger's interval and
//! throttle, and `cursorTimeoutMillis` (how long an unread cursor lives). A real cluster holds them on the config server; `serve` is the whole cluster, so it
//! takes them on its one endpoint, so that a class can shorten a five-minute resharding.
// 8.0 `db/s/resharding/resharding_server_parameters.idl`,
// `db/s/balancer/auto_merger_policy` (`autoMergerIntervalSecs`, `autoMergerThrottlingMS`).

use bson::{Bson, Document, doc};

use crate::cluster::MongoError;
use crate::serve::reply::{Answer, ok};
use crate::serve::state::State;

type Get = fn(&State) -> u64;
type Set = fn(&mut State, u64);

/// Each parameter: its name, how it is read and set.
const PARAMETERS: &[(&str, Get, Set)] = &[
    (
        "reshardingMinimumOperationDurationMillis",
        |s| {
            s.sim
                .cluster
                .settings
                .resharding
                .minimum_operation_duration_ms
        },
        |s, v| {
            s.sim
                .cluster
                .settings
                .resharding
                .minimum_operation_duration_ms = v;
        },
    ),
    (
        "reshardingCriticalSectionTimeoutMillis",
        |s| {
            s.sim
                .cluster
                .settings
                .resharding
                .critical_section_timeout_ms
        },
        |s, v| {
            s.sim
                .cluster
                .settings
                .resharding
                .critical_section_timeout_ms = v;
        },
    ),
    (
        // `db/transaction/transaction_participant.idl` (at least 1; mongod aborts a transaction
        // open longer, `db/periodic_runner_job_abort_expired_transactions.cpp`).
        "transactionLifetimeLimitSeconds",
        |s| s.sessions.lifetime_secs,
        |s, v| s.sessions.lifetime_secs = v,
    ),
    (
        "autoMergerIntervalSecs",
        |s| s.sim.auto_merger.interval_secs,
        |s, v| s.sim.auto_merger.interval_secs = v,
    ),
    (
        "orphanCleanupDelaySecs",
        |s| {
            s.sim
                .cluster
                .settings
                .orphan_cleanup_delay_secs
                .unwrap_or_else(|| s.sim.cluster.version.orphan_cleanup_delay_secs())
        },
        |s, v| s.sim.cluster.settings.orphan_cleanup_delay_secs = Some(v),
    ),
    (
        "balancerMigrationsThrottlingMs",
        |s| {
            s.sim
                .cluster
                .settings
                .balancer_migrations_throttling_ms
                .unwrap_or(1_000)
        },
        |s, v| s.sim.cluster.settings.balancer_migrations_throttling_ms = Some(v),
    ),
    (
        "cursorTimeoutMillis",
        |s| s.cursors.timeout_ms(),
        |s, v| s.cursors.set_timeout_ms(v),
    ),
    (
        "autoMergerThrottlingMS",
        |s| s.sim.auto_merger.throttling_ms,
        |s, v| s.sim.auto_merger.throttling_ms = v,
    ),
];

fn find(name: &str) -> Option<&'static (&'static str, Get, Set)> {
    PARAMETERS.iter().find(|(n, _, _)| *n == name)
}

fn int(n: u64) -> Bson {
    crate::serve::reply::number(n)
}

/// The parameters `getParameter` asks for among `names`, or `None` when it asks for none of them.
pub fn get(state: &State, names: &[&String]) -> Option<Document> {
    let known: Vec<_> = names.iter().filter_map(|n| find(n)).collect();
    if known.is_empty() {
        return None;
    }
    let mut reply = Document::new();
    for (name, get, _) in known {
        reply.insert(*name, int(get(state)));
    }
    Some(ok(reply))
}

/// Every parameter, for `getParameter: "*"`.
pub fn all(state: &State, reply: &mut Document) {
    for (name, get, _) in PARAMETERS {
        reply.insert(*name, int(get(state)));
    }
}

/// `setParameter: 1, <name>: <value>`: sets one parameter and answers its old value (`was`).
pub fn set(state: &mut State, cmd: &Document) -> Result<Document, MongoError> {
    let mut fields = cmd
        .iter()
        .filter(|(k, _)| *k != "setParameter" && !k.starts_with('$') && *k != "lsid");
    let Some((name, value)) = fields.next() else {
        return Err(MongoError::invalid_options(
            "no option found to set, use help:true to see options",
        ));
    };
    if fields.next().is_some() {
        return Err(MongoError::invalid_options(
            "setParameter sets one parameter at a time in shardtop serve",
        ));
    }
    let Some((_, get, set)) = find(name) else {
        return Err(MongoError::invalid_options(format!(
            "attempted to set unrecognized parameter [{name}], use help:true to see options"
        )));
    };
    let v = match value {
        Bson::Int32(n) if *n >= 0 => *n as u64,
        Bson::Int64(n) if *n >= 0 => *n as u64,
        Bson::Double(d) if *d >= 0.0 && d.fract() == 0.0 && *d < 1e15 => *d as u64,
        _ => {
            return Err(MongoError::bad_value(format!(
                "Invalid value for parameter {name}: a non-negative whole number is expected"
            )));
        }
    };
    if name == "transactionLifetimeLimitSeconds" && v < 1 {
        // `transaction_participant.idl`: `validator: { gte: 1 }`.
        return Err(MongoError::bad_value(format!(
            "Invalid value for parameter {name}: at least 1 is expected"
        )));
    }
    let was = get(state);
    set(state, v);
    Ok(ok(doc! { "was": int(was) }))
}

/// `getParameter`: `featureCompatibilityVersion` (the simulated release line); others are not
/// simulated.
pub fn get_parameter(state: &State, cmd: &Document) -> Answer {
    let v = state.sim.cluster.version;
    let all = matches!(cmd.get("getParameter"), Some(Bson::String(s)) if s == "*");
    if all || cmd.contains_key("featureCompatibilityVersion") {
        let mut reply = doc! {
            "featureCompatibilityVersion": { "version": format!("{}.{}", v.major, v.minor) },
        };
        if all {
            self::all(state, &mut reply);
        }
        return Ok(ok(reply));
    }
    let asked: Vec<&String> = cmd
        .keys()
        .filter(|k| *k != "getParameter" && !k.starts_with('$') && *k != "lsid")
        .collect();
    if let Some(reply) = get(state, &asked) {
        return Ok(reply);
    }
    Err(MongoError::invalid_options(format!(
        "no option found to get: {}",
        asked.first().map_or("", |s| s.as_str())
    )))
}
