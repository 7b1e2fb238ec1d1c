//! `shardtop watch URI --check`: every read `watch` makes, whether this user may make it (from
//! `connectionStatus` with `showPrivileges`), the built-in roles that grant it, and a custom role
//! with exactly the missing actions. Exit 0 when the view can run, 1 otherwise.
//!
//! May import the toolbox (`terminal`, `settings`) and the floors; never another command module.

use std::io::Write;
use std::time::Duration;

use bson::{Bson, Document, doc};

use super::settings::{Context, heat_of, interval_of};
use super::terminal::runtime;
use super::{Failure, write_failed};
use crate::cli::WatchArgs;
use crate::cluster::ServerVersion;
use crate::live::client::{LiveClient, LiveError, hosts};
use crate::live::config::CollectionDoc;
use crate::live::privileges::{self, Feeds, Plan, Privilege, Read, Resource};
use crate::source::live::HeatMode;

/// Who is logged in, and what they may do.
struct Identity {
    users: Vec<String>,
    roles: Vec<String>,
    privileges: Vec<Privilege>,
}

fn names(list: Option<&Vec<Bson>>, key: &str) -> Vec<String> {
    list.into_iter()
        .flatten()
        .filter_map(Bson::as_document)
        .filter_map(|d| {
            Some(format!(
                "{}@{}",
                d.get_str(key).ok()?,
                d.get_str("db").ok()?
            ))
        })
        .collect()
}

async fn identity(client: &LiveClient) -> Result<Identity, LiveError> {
    let status = client
        .command(
            "admin",
            doc! {"connectionStatus": 1, "showPrivileges": true},
        )
        .await?;
    let info = status.get_document("authInfo").cloned().unwrap_or_default();
    let privileges = info
        .get_array("authenticatedUserPrivileges")
        .map(|a| {
            a.iter()
                .filter_map(Bson::as_document)
                .filter_map(Privilege::parse)
                .collect()
        })
        .unwrap_or_default();
    Ok(Identity {
        users: names(info.get_array("authenticatedUsers").ok(), "user"),
        roles: names(info.get_array("authenticatedUserRoles").ok(), "role"),
        privileges,
    })
}

/// The sharded collections and the tracked unsharded ones, when this user may list them.
async fn collections(client: &LiveClient) -> (Vec<String>, Vec<String>) {
    let docs = client
        .find("config", "collections", Document::new(), None, None)
        .await
        .unwrap_or_default();
    let parsed: Vec<CollectionDoc> = docs
        .iter()
        .filter_map(|d| CollectionDoc::parse(d).ok())
        .filter(|c| !c.dropped)
        .collect();
    let names = |unsplittable: bool| {
        let mut out: Vec<String> = parsed
            .iter()
            .filter(|c| c.unsplittable == unsplittable)
            .map(|c| c.ns.clone())
            .collect();
        out.sort();
        out
    };
    (names(false), names(true))
}

/// The release line and whether it has `$shardedDataDistribution` (6.0.3+) and
/// `$listClusterCatalog` (8.0.10+, 8.1+).
async fn version(client: &LiveClient) -> Result<(ServerVersion, bool, bool), LiveError> {
    let info = client.command("admin", doc! {"buildInfo": 1}).await?;
    let text = info.get_str("version").unwrap_or_default();
    Ok((
        text.parse().unwrap_or(ServerVersion::V8_0),
        crate::live::data_sizes::has_sharded_data_distribution(text),
        crate::live::catalog::has_list_cluster_catalog(text),
    ))
}

struct Checked {
    identity: Identity,
    reads: Vec<(Read, bool)>,
    /// No user is logged in and the cluster still answers: access control is off.
    open: bool,
}

async fn check(uri: &str, heat: Option<HeatMode>) -> Result<Checked, LiveError> {
    let client = LiveClient::connect(uri, Duration::from_secs(10)).await?;
    // A server that stops answering ends the check as it ends a first poll.
    let first_poll = crate::live::one_poll::FIRST_POLL;
    crate::live::one_poll::within(&client, first_poll, checked(&client, heat)).await
}

async fn checked(client: &LiveClient, heat: Option<HeatMode>) -> Result<Checked, LiveError> {
    let client = client.clone();
    let identity = identity(&client).await?;
    let (version, sdd, catalog) =
        version(&client)
            .await
            .unwrap_or((ServerVersion::V8_0, true, false));
    let open = identity.users.is_empty()
        && client
            .find("config", "shards", Document::new(), None, None)
            .await
            .is_ok();
    let (collections, unsplittable) = collections(&client).await;
    let plan = Plan {
        collections: &collections,
        unsplittable: &unsplittable,
        sharded_data_distribution: sdd,
        sampled_queries: version >= ServerVersion::V7_0
            && heat.is_none_or(|h| h == HeatMode::Sampled),
        change_streams: heat.is_none_or(|h| h == HeatMode::ChangeStream),
        shard_draining_status: version >= ServerVersion::V8_2,
        list_cluster_catalog: catalog,
    };
    let reads = privileges::reads(&plan)
        .into_iter()
        .map(|r| {
            let ok = open || privileges::allowed(&r, &identity.privileges);
            (r, ok)
        })
        .collect();
    Ok(Checked {
        identity,
        reads,
        open,
    })
}

/// `watch URI --check`: the flags checked as `watch` checks them (`--heat`, then `--interval`),
/// then [`run`].
pub fn check_flags_then_run(
    args: &WatchArgs,
    ctx: &Context,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let asked = heat_of(args.heat.clone(), &ctx.config)?;
    interval_of(args.interval.as_ref(), &ctx.config)?;
    run(&args.uri, asked, out)
}

/// `watch URI --check [--heat H]`: the reads of that heat mode (`auto`: change streams and,
/// from 7.0, sampled queries — the first `auto` may use).
pub fn run(uri: &str, heat: Option<HeatMode>, out: &mut impl Write) -> Result<(), Failure> {
    let rt = runtime()?;
    let read = check(uri, heat);
    let checked =
        super::terminal::driver_panic::block_on(&rt, &hosts(uri), read)?.map_err(|e| {
            if e.input {
                Failure::input(e.message)
            } else {
                Failure::runtime(e.message)
            }
        })?;
    let text = report(&hosts(uri), &checked);
    out.write_all(text.as_bytes())
        .map_err(|e| write_failed(&e))?;
    let runs = checked
        .reads
        .iter()
        .all(|(r, ok)| *ok || r.feeds != Feeds::Everything);
    if runs {
        Ok(())
    } else {
        Err(Failure::runtime(
            "the view cannot run: this user may not read the shards, collections and chunks of config",
        ))
    }
}

fn report(target: &str, c: &Checked) -> String {
    let who = if c.identity.users.is_empty() {
        "no user logged in".to_string()
    } else {
        format!(
            "user {} (roles: {})",
            c.identity.users.join(", "),
            c.identity.roles.join(", ")
        )
    };
    let mut s = format!("shardtop watch {target} --check: {who}\n");
    if c.open {
        s.push_str(
            "access control is off (config.shards reads with no user): every read is allowed\n",
        );
    }
    let width = c.reads.iter().map(|(r, _)| r.read.len()).max().unwrap_or(0);
    for (r, ok) in &c.reads {
        let mark = if *ok { "ok " } else { "NO " };
        s.push_str(&format!(
            "  {mark} {:<width$}  {}\n",
            r.read,
            r.feeds.label()
        ));
        if !ok {
            s.push_str(&format!(
                "       needs {} on {}; granted by {}\n",
                r.actions.join(" + "),
                r.resource,
                r.roles
            ));
        }
    }
    let missing: Vec<&Read> = c
        .reads
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(r, _)| r)
        .collect();
    if missing.is_empty() {
        s.push_str("every read is allowed: the view runs in full\n");
    } else {
        s.push_str(&format!(
            "{} of {} reads are refused; {}\n",
            missing.len(),
            c.reads.len(),
            if missing.iter().any(|r| r.feeds == Feeds::Everything) {
                "without the config reads the view cannot run"
            } else {
                "the view runs, and each pane fed by a refused read says so"
            }
        ));
        s.push_str(&custom_role(&missing, c.identity.users.first()));
    }
    s
}

/// A role with exactly the missing actions, as mongosh commands.
fn custom_role(missing: &[&Read], user: Option<&String>) -> String {
    let mut privileges: Vec<String> = Vec::new();
    for r in missing {
        let resource = match &r.resource {
            Resource::Cluster => "{ cluster: true }".to_string(),
            Resource::Namespace(ns) => {
                let (db, coll) = ns.split_once('.').unwrap_or((ns.as_str(), ""));
                format!("{{ db: \"{db}\", collection: \"{coll}\" }}")
            }
        };
        let actions: Vec<String> = r.actions.iter().map(|a| format!("\"{a}\"")).collect();
        let line = format!(
            "{{ resource: {resource}, actions: [{}] }}",
            actions.join(", ")
        );
        if !privileges.contains(&line) {
            privileges.push(line);
        }
    }
    let (name, db) = user
        .and_then(|u| u.rsplit_once('@'))
        .unwrap_or(("USER", "admin"));
    format!(
        "a custom role with exactly these actions (in mongosh, as a user administrator):\n  db.getSiblingDB(\"admin\").createRole({{ role: \"shardtopWatch\", roles: [], privileges: [\n    {}\n  ] }})\n  db.getSiblingDB(\"{db}\").grantRolesToUser(\"{name}\", [{{ role: \"shardtopWatch\", db: \"admin\" }}])\n",
        privileges.join(",\n    ")
    )
}
