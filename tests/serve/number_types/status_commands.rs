//! config.settings, `balancerCollectionStatus`, `balancerStatus`, `$shardedDataDistribution` and `$collStats` storage statistics, in the types real servers send.

use super::*;

// ---------------------------------------------------------------------------------------------
// config.settings: sh.status() reads the `balancer`, `autosplit`, `automerge` documents; the
// chunk size is the `chunksize` document a user writes.

/// config.settings of a fresh cluster, then the 8.0.32 session's chunk-size write.
async fn check_settings(m: &mut Mismatches, v: &str, client: &Client) {
    let settings_anchor = "# ---- config.settings";
    let settings = config_docs(client, "settings", doc! {}).await;
    // A fresh 8.0.32 cluster has an empty config.settings (defaults apply).
    if v == "8.0" {
        let a = "settings.find()";
        let section = SHARDS_80.section(a, "\n[direct");
        assert!(
            !section.contains("_id"),
            "the 8.0.32 sample's config.settings is empty"
        );
        if !settings.is_empty() {
            m.push(format!(
                "8.0 config.settings on a fresh cluster has {} document(s) ({}), {} shows none",
                settings.len(),
                settings
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                SHARDS_80.at(a)
            ));
        }
    }
    // The reference pages' settings documents: { _id: "chunksize", value: 64 } and
    // { _id: "balancer", mode: "full", stopped: false }.
    let cite = CONFIG_DOCS.at(settings_anchor);
    for d in &settings {
        let what = format!("{v} config.settings {}", d.get_str("_id").unwrap_or("?"));
        match d.get_str("_id").unwrap_or("") {
            "chunksize" => m.kind(
                &what,
                d,
                "value",
                CONFIG_DOCS.kind(settings_anchor, "value"),
                &cite,
            ),
            "balancer" => {
                for field in ["mode", "stopped"] {
                    m.kind_if_present(
                        &what,
                        d,
                        field,
                        CONFIG_DOCS.kind(settings_anchor, field),
                        &cite,
                    );
                }
            }
            _ => {}
        }
    }

    // The 8.0.32 session: `settings.updateOne({_id: 'chunksize'}, {$set: {value: 1}},
    // {upsert: true})` is acknowledged, then balancerCollectionStatus says chunkSize: 1.
    let write = "settings.updateOne({_id: 'chunksize'}";
    let written = client
        .database("config")
        .collection::<Document>("settings")
        .update_one(doc! {"_id": "chunksize"}, doc! {"$set": {"value": 1i32}})
        .upsert(true)
        .await;
    if let Err(e) = written {
        m.push(format!(
            "{v} config.settings updateOne chunksize {{value: 1}} is refused ({e}), {} acknowledges it",
            COMMANDS_80.at(write)
        ));
    } else {
        let d = config_docs(client, "settings", doc! {"_id": "chunksize"}).await;
        match d.first() {
            // Stored as written (an int32 from mongosh), as the reference page prints it.
            Some(d) => m.kind(
                &format!("{v} config.settings chunksize after the write"),
                d,
                "value",
                Kind::Int32,
                &cite,
            ),
            None => m.push(format!(
                "{v} config.settings chunksize: missing after an acknowledged upsert"
            )),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_settings_and_balancer_collection_status() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        check_settings(&mut m, v, &client).await;

        let status = common::admin(&client, doc! {"balancerCollectionStatus": "shop.orders"})
            .await
            .unwrap();
        let what = format!("{v} balancerCollectionStatus");
        let (fx, a) = match v {
            // Real 8.0.32, right after that write: chunkSize: 1.
            "8.0" => (&COMMANDS_80, "sh.balancerCollectionStatus('shop.orders')"),
            // 7.0 reference page: chunkSize: Long("128"). No 6.0 sample: the field is there
            // from 5.3 (7.0 page "versionadded 5.3"); for 6.0 its type is checked only to be
            // an integer below.
            _ => (&BALANCER_DOCS, "# ---- (B) 7.0 balancerCollectionStatus"),
        };
        for field in ["balancerCompliant", "firstComplianceViolation"] {
            m.kind_if_present(&what, &status, field, fx.kind(a, field), &fx.at(a));
        }
        m.kind(&what, &status, "balancerCompliant", Kind::Bool, &fx.at(a));
        // keyId: Long(0) in the 7.0 page's reply (NumberLong(0) in the 5.0 page's).
        let b = "# ---- (B) 7.0 balancerCollectionStatus";
        m.kind(
            &what,
            &status,
            "$clusterTime.signature.keyId",
            BALANCER_DOCS.kind(b, "keyId"),
            &BALANCER_DOCS.at(b),
        );
        if v == "6.0" {
            match status.get("chunkSize").map(kind_of) {
                Some(Kind::Int32 | Kind::Int64) => {}
                other => m.push(format!(
                    "6.0 balancerCollectionStatus: chunkSize is {other:?}, {} shows an integer (from 5.3)",
                    fx.at(a)
                )),
            }
        } else {
            m.kind(
                &what,
                &status,
                "chunkSize",
                fx.kind(a, "chunkSize"),
                &fx.at(a),
            );
        }
        if v == "8.0" && status.get("chunkSize") != Some(&Bson::Int32(1)) {
            m.push(format!(
                "8.0 balancerCollectionStatus: chunkSize is {:?} after config.settings chunksize {{value: 1}}, {} shows 1",
                status.get("chunkSize"),
                COMMANDS_80.at(a)
            ));
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// balancerStatus (sh.status() reads inBalancerRound; sh.isBalancerRunning() returns it).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn balancer_status() {
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let status = common::admin(&client, doc! {"balancerStatus": 1})
            .await
            .unwrap();
        let what = format!("{v} balancerStatus");
        // 7.0 reference page (numBalancerRounds: Long(86)) and 5.2 page (Long("1143")).
        for a in ["# ---- (C) 7.0 balancerStatus", "# ---- (D) 5.2 docs"] {
            for field in ["mode", "inBalancerRound", "numBalancerRounds"] {
                m.kind(
                    &what,
                    &status,
                    field,
                    BALANCER_DOCS.kind(a, field),
                    &BALANCER_DOCS.at(a),
                );
            }
        }
        // The reply's gossip, as the 5.2 page prints it: keyId: Long("0").
        let d = "# ---- (D) 5.2 docs";
        m.kind(
            &what,
            &status,
            "$clusterTime.signature.keyId",
            BALANCER_DOCS.kind(d, "keyId"),
            &BALANCER_DOCS.at(d),
        );
        for field in ["operationTime", "clusterTime"] {
            let path = if field == "clusterTime" {
                "$clusterTime.clusterTime"
            } else {
                field
            };
            m.kind(
                &what,
                &status,
                path,
                BALANCER_DOCS.kind(d, field),
                &BALANCER_DOCS.at(d),
            );
        }
        // `term` is in no fixture (the 7.0 page's example has none): checked only to be a
        // whole number when sent.
        if let Some(t) = status.get("term")
            && !matches!(kind_of(t), Kind::Int32 | Kind::Int64)
        {
            m.push(format!("{v} balancerStatus: term is {:?}", kind_of(t)));
        }
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// $shardedDataDistribution (sh.status()'s `shardedDataDistribution`, 6.0.3+).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sharded_data_distribution() {
    let real = "shardedDataDistribution\n[";
    let docs72 = "# ---- (C) sh.getShardedDataDistribution()";
    let fields = [
        "shardName",
        "numOrphanedDocs",
        "numOwnedDocuments",
        "ownedSizeBytes",
        "orphanedSizeBytes",
    ];
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        let rows: Vec<Document> = client
            .database("admin")
            .aggregate(vec![doc! {"$shardedDataDistribution": {}}])
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        let mut seen = 0;
        for r in &rows {
            let ns = r.get_str("ns").unwrap_or("?").to_string();
            if !ns.starts_with("shop.") {
                continue;
            }
            seen += 1;
            let what = format!("{v} $shardedDataDistribution {ns}");
            m.kind(
                &what,
                r,
                "ns",
                SH_STATUS_70.kind(real, "ns"),
                &SH_STATUS_70.at(real),
            );
            m.kind(&what, r, "shards", Kind::Array, &SH_STATUS_70.at(real));
            let shards = r.get_array("shards").cloned().unwrap_or_default();
            for (i, s) in shards.iter().enumerate() {
                let Bson::Document(s) = s else {
                    m.push(format!("{what}: shards.{i} is not a document"));
                    continue;
                };
                let what = format!("{what} shards.{i}");
                for field in fields {
                    // Real 7.0.24 sh.status() and the 7.2 reference page agree.
                    m.kind(
                        &what,
                        s,
                        field,
                        SH_STATUS_70.kind(real, field),
                        &SH_STATUS_70.at(real),
                    );
                    m.kind(
                        &what,
                        s,
                        field,
                        REMOVE_SHARD_DOCS.kind(docs72, field),
                        &REMOVE_SHARD_DOCS.at(docs72),
                    );
                }
            }
        }
        assert!(
            seen >= 2,
            "{v}: $shardedDataDistribution lists the shop collections: {rows:?}"
        );
        server.shutdown().await;
    }
    m.assert_none();
}

// ---------------------------------------------------------------------------------------------
// $collStats storageStats through mongos, as getShardDistribution() reads it: one document per
// shard; it uses storageStats.size, count, avgObjSize, numOrphanDocs.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coll_stats_storage_stats() {
    let real = "{ shard: 'sh1', count:";
    // Fields no fixture shows, as the server appends them (mongodb/mongo
    // src/mongo/db/stats/storage_stats.cpp, 7.0/8.0-era: `appendNumber(long long)` is an int32
    // when the value fits, `nindexes` / `avgObjSize` / `scaleFactor` are C++ ints; `avgObjSize`
    // only when the shard holds documents). `indexDetails` (the storage engine's own statistics
    // per index) is not simulated and not checked.
    let source = "mongodb/mongo src/mongo/db/stats/storage_stats.cpp (no fixture)";
    let from_source = [
        ("size", Kind::Int32),
        ("avgObjSize", Kind::Int32),
        ("storageSize", Kind::Int32),
        ("freeStorageSize", Kind::Int32),
        ("capped", Kind::Bool),
        ("nindexes", Kind::Int32),
        ("indexBuilds", Kind::Array),
        ("totalIndexSize", Kind::Int32),
        ("totalSize", Kind::Int32),
        ("indexSizes", Kind::Document),
        ("scaleFactor", Kind::Int32),
    ];
    let mut m = Mismatches::default();
    for v in VERSIONS {
        let (server, client) = cluster(v).await;
        for ns in ["orders", "users"] {
            let rows = aggregate(
                &client,
                "shop",
                ns,
                vec![doc! {"$collStats": {"storageStats": {}}}],
            )
            .await;
            assert!(!rows.is_empty(), "{v} shop.{ns}: $collStats");
            for r in &rows {
                let what = format!(
                    "{v} $collStats shop.{ns} {}",
                    r.get_str("shard").unwrap_or("?")
                );
                m.kind(
                    &what,
                    r,
                    "shard",
                    COMMANDS_80.kind(real, "shard"),
                    &COMMANDS_80.at(real),
                );
                // Real 8.0.32: { shard: 'sh1', count: 80000, numOrphanDocs: 37840 } (projected
                // from storageStats.count / storageStats.numOrphanDocs).
                for field in ["count", "numOrphanDocs"] {
                    m.kind(
                        &what,
                        r,
                        &format!("storageStats.{field}"),
                        COMMANDS_80.kind(real, field),
                        &COMMANDS_80.at(real),
                    );
                }
                // One line per document for the fields it lacks.
                let missing: Vec<&str> = from_source
                    .iter()
                    .filter(|(f, _)| at(r, &format!("storageStats.{f}")).is_none())
                    .map(|(f, _)| *f)
                    .collect();
                if !missing.is_empty() {
                    m.push(format!(
                        "{what}: storageStats lacks {} ({source} sends them)",
                        missing.join(", ")
                    ));
                }
                for (field, want) in from_source {
                    m.kind_if_present(&what, r, &format!("storageStats.{field}"), want, source);
                }
                if let Ok(Bson::Document(sizes)) = r
                    .get_document("storageStats")
                    .map(|s| s.get("indexSizes").cloned().unwrap_or(Bson::Null))
                {
                    for (name, size) in &sizes {
                        if kind_of(size) != Kind::Int32 {
                            m.push(format!("{what}: storageStats.indexSizes.{name} is {:?}, {source} gives int32", kind_of(size)));
                        }
                    }
                }
            }
        }
        // A shard that owns a chunk but no documents: count 0 and no avgObjSize.
        let rows = aggregate(
            &client,
            "shop",
            "empty",
            vec![doc! {"$collStats": {"storageStats": {}}}],
        )
        .await;
        for r in &rows {
            let what = format!(
                "{v} $collStats shop.empty {}",
                r.get_str("shard").unwrap_or("?")
            );
            m.kind(&what, r, "storageStats.count", Kind::Int32, source);
            m.absent(
                &what,
                r,
                "storageStats.avgObjSize",
                &format!("{source}, `if (numRecords)`,"),
            );
        }
        server.shutdown().await;
    }
    m.assert_none();
}
