//! `shardtop lab --from URI --ns db.coll`: the documents, unique indexes and (with
//! `--sampled-queries`) the sampled queries of a live collection, read through the live
//! source's allowlisted client — `aggregate` with `$sample`, `listIndexes`, and
//! `$listSampledQueries` on admin; nothing else is sent. A refusal names the privilege it needs.

use std::time::Duration;

use bson::{Bson, Document, doc};

use crate::analyze::operation::Operation;
use crate::analyze::sampled;
use crate::commands::Failure;
use crate::live::bounds::Bounds;
use crate::live::client::{LiveClient, LiveError};
use crate::live::one_poll::within;
use crate::model::KeyPattern;

/// The most documents `--sample` takes.
pub const MAX_SAMPLE: u64 = crate::lab::input::data::MAX_DOCUMENTS;
const TIMEOUT: Duration = Duration::from_secs(15);
/// How long all of `--from`'s reads may take together (a server that stops answering).
const DEADLINE: Duration = Duration::from_secs(600);

/// What the collection gave.
pub struct FromCluster {
    pub docs: Vec<(Document, u64)>,
    pub unique: Vec<KeyPattern>,
    pub traffic: Vec<Operation>,
}

fn failure(e: &LiveError, needs: &str) -> Failure {
    if e.unauthorized {
        Failure::runtime(format!("{} (it needs {needs})", e.message))
    } else if e.input {
        Failure::input(e.message.clone())
    } else {
        Failure::runtime(e.message.clone())
    }
}

pub fn read(uri: &str, ns: &str, sample: u64, queries: bool) -> Result<FromCluster, Failure> {
    let Some((db, coll)) = ns
        .split_once('.')
        .filter(|(d, c)| !d.is_empty() && !c.is_empty())
    else {
        return Err(Failure::input(format!("--ns {ns}: give db.collection")));
    };
    if !(1..=MAX_SAMPLE).contains(&sample) {
        return Err(Failure::input("--sample: 1 to 1,000,000 documents"));
    }
    let rt = crate::commands::terminal::runtime()?;
    let hosts = crate::live::client::hosts(uri);
    crate::commands::terminal::driver_panic::block_on(&rt, &hosts, async {
        let client = LiveClient::connect(uri, TIMEOUT)
            .await
            .map_err(|e| failure(&e, "a reachable mongos or mongod"))?;
        let reads = read_all(&client, (db, coll, ns), sample, queries);
        match within(&client, DEADLINE, async { Ok(reads.await) }).await {
            Ok(read) => read,
            Err(e) => Err(failure(&e, "a server that answers")),
        }
    })?
}

async fn read_all(
    client: &LiveClient,
    (db, coll, ns): (&str, &str, &str),
    sample: u64,
    queries: bool,
) -> Result<FromCluster, Failure> {
    {
        // `$sample` of N gives at most N documents: more is a server misbehaving.
        // The sample is the lab's input, kept whole: held up to the streamed reads' bound.
        let all = Bounds::default();
        let bounds = Bounds {
            documents: sample,
            held_bytes: all.bytes,
            ..all
        };
        let sampler = client.clone().with_bounds(bounds);
        let cmd = doc! {
            "aggregate": coll,
            "pipeline": [{ "$sample": { "size": sample as i64 } }],
            "cursor": {},
        };
        let mut docs = Vec::new();
        sampler
            .drain_batches(db, cmd, |batch| {
                for d in batch {
                    let size = bson::to_vec(&d).map_or(0, |v| v.len() as u64);
                    docs.push((d, size));
                }
                Ok(())
            })
            .await
            .map_err(|e| {
                failure(
                    &e,
                    &format!("the find action on {ns}, as the read role on {db} grants"),
                )
            })?;
        let unique = unique_indexes(client, db, coll, ns).await?;
        let traffic = if queries {
            sampled_queries(client, ns).await?
        } else {
            Vec::new()
        };
        Ok(FromCluster {
            docs,
            unique,
            traffic,
        })
    }
}

async fn unique_indexes(
    client: &LiveClient,
    db: &str,
    coll: &str,
    ns: &str,
) -> Result<Vec<KeyPattern>, Failure> {
    let indexes = client
        .drain(db, doc! { "listIndexes": coll, "cursor": {} })
        .await
        .map_err(|e| {
            failure(
                &e,
                &format!("the listIndexes action on {ns}, as the read role grants"),
            )
        })?;
    Ok(indexes
        .iter()
        .filter(|i| matches!(i.get("unique"), Some(Bson::Boolean(true))))
        .filter_map(|i| i.get_document("key").ok())
        .filter(|k| !(k.len() == 1 && k.contains_key("_id")))
        .filter_map(|k| KeyPattern::parse(k).ok())
        .collect())
}

async fn sampled_queries(client: &LiveClient, ns: &str) -> Result<Vec<Operation>, Failure> {
    let cmd = doc! {
        "aggregate": 1,
        "pipeline": [{ "$listSampledQueries": { "namespace": ns } }],
        "cursor": {},
    };
    let samples = client.drain("admin", cmd).await.map_err(|e| {
        failure(
            &e,
            "the listSampledQueries action on the cluster, as clusterMonitor grants",
        )
    })?;
    Ok(samples
        .iter()
        .zip(1..)
        .flat_map(|(s, i)| sampled::operations(s, i))
        .collect())
}
