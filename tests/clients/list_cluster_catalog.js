// $listClusterCatalog and mongosh's db.coll.getShardLocation() (issue 33), against
// --server-version 8.1 (the stage is new in 8.1, and 8.0.10 on the 8.0 line: the
// $listClusterCatalog reference page; mongosh's getShardLocation is
// @serverVersions(['8.0.10', latest]) and sends [{$listClusterCatalog: {shards: true}}, {$match:
// {ns}}, {$project: {_id: 0, shards: 1, sharded: 1}}] to the collection's database,
// `packages/shell-api/src/collection.ts`). Expected fields and values follow mongo's
// `db/pipeline/document_source_list_cluster_catalog.cpp`: `sharded` for a sharded (not
// unsplittable) collection, `shardKey` only then, `shards` the shards of its chunks or, for a
// collection the config server does not track, its database's primary; `balancingEnabled` =
// not noBalance and permitMigrations, `autoMergingEnabled`, `chunkSize` in MB (the cluster's
// default, 128, as an int).
load(__dirname + "/lib.js");
begin("list_cluster_catalog");

const app = db.getSiblingDB("app");
step("enableSharding app", () => sh.enableSharding("app"));
eq("shardCollection app.c {x: 1}", (step("shardCollection", () => sh.shardCollection("app.c", { x: 1 })) || {}).ok, 1);
step("split app.c at 100", () => sh.splitAt("app.c", { x: 100 }));
eq("moveChunk {x: 100} to shard0001", (step("moveChunk", () => sh.moveChunk("app.c", { x: 100 }, "shard0001")) || {}).ok, 1);
step("insert into app.plain (never sharded)", () => app.plain.insertOne({ a: 1 }));

eq("app.c.getShardLocation()", step("getShardLocation c", () => app.c.getShardLocation()),
   { shards: ["shard0000", "shard0001"], sharded: true });
eq("app.plain.getShardLocation(): its database's primary",
   step("getShardLocation plain", () => app.plain.getShardLocation()), { shards: ["shard0000"], sharded: false });

const all = step("admin $listClusterCatalog", () =>
  db.getSiblingDB("admin").aggregate([{ $listClusterCatalog: { balancingConfiguration: true } }]).toArray()) || [];
const c = all.find(d => d.ns === "app.c") || {};
eq("app.c: the documented fields in order", Object.keys(c),
   ["ns", "db", "type", "idIndex", "options", "info", "sharded", "shardKey", "balancingEnabled",
    "balancingEnabledReason", "autoMergingEnabled", "chunkSize"]);
eq("app.c: db, type, sharded, shardKey", [c.db, c.type, c.sharded, c.shardKey], ["app", "collection", true, { x: 1 }]);
eq("app.c: balancing", [c.balancingEnabled, c.balancingEnabledReason, c.autoMergingEnabled, c.chunkSize],
   [true, { enableBalancing: true, allowMigrations: true }, true, 128]);
const plain = all.find(d => d.ns === "app.plain") || {};
eq("app.plain: not sharded, no shardKey and no balancing fields",
   [plain.sharded, "shardKey" in plain, "balancingEnabled" in plain], [false, false, false]);
check("admin lists config.system.sessions too", all.some(d => d.ns === "config.system.sessions"));

step("sh.disableBalancing(app.c)", () => sh.disableBalancing("app.c"));
const off = (step("app $listClusterCatalog", () =>
  app.aggregate([{ $listClusterCatalog: { balancingConfiguration: true } }, { $match: { ns: "app.c" } }]).toArray()) || [])[0] || {};
eq("after disableBalancing", [off.balancingEnabled, off.balancingEnabledReason],
   [false, { enableBalancing: false, allowMigrations: true }]);
const names = (step("app only", () => app.aggregate([{ $listClusterCatalog: {} }]).toArray()) || []).map(d => d.ns);
eq("on a database: its collections only", names, ["app.c", "app.plain"]);

expectError("on a collection", () => app.c.aggregate([{ $listClusterCatalog: {} }]).toArray(),
  { code: 9621301, message: "The $listClusterCatalog stage must run on a database, not a collection." });
expectError("an unknown option", () => app.aggregate([{ $listClusterCatalog: { nope: true } }]).toArray(),
  { code: 40415 });

finish();
