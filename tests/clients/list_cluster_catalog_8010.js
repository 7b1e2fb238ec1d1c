// `serve --server-version 8.0.10` reports 8.0.10 and has what 8.0.10 added to the 8.0 line:
// $listClusterCatalog (the $listClusterCatalog reference page: "New in version 8.1", and 8.0.10
// on the 8.0 pages), so mongosh's db.coll.getShardLocation(), which checks for 8.0.10
// (@serverVersions(['8.0.10', latest]) in mongosh's packages/shell-api/src/collection.ts), works.
// buildInfo's versionArray is [major, minor, patch, 0] (util/version.cpp).
load(__dirname + "/lib.js");
begin("list_cluster_catalog_8010");

eq("db.version()", step("db.version()", () => db.version()), "8.0.10");
const bi = step("buildInfo", () => db.getSiblingDB("admin").runCommand({ buildInfo: 1 })) || {};
eq("buildInfo versionArray", bi.versionArray, [8, 0, 10, 0]);
const ss = step("serverStatus", () => db.getSiblingDB("admin").runCommand({ serverStatus: 1 })) || {};
eq("serverStatus version", ss.version, "8.0.10");

const app = db.getSiblingDB("app");
step("enableSharding app", () => sh.enableSharding("app", "shard0000"));
step("shardCollection app.c {x: 1}", () => sh.shardCollection("app.c", { x: 1 }));
step("insert into app.plain", () => app.plain.insertOne({ a: 1 }));
eq("app.c.getShardLocation()", step("getShardLocation c", () => app.c.getShardLocation()),
   { shards: ["shard0000"], sharded: true });
eq("app.plain.getShardLocation(): its database's primary",
   step("getShardLocation plain", () => app.plain.getShardLocation()), { shards: ["shard0000"], sharded: false });

finish();
