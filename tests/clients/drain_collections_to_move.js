// removeShard's collectionsToMove lists the unsharded collections on the draining shard, also
// those created by a plain insert (never tracked by the config server). MongoDB's 8.0-era jstest
// of a drain blocked by unsharded collections (createCollection on the draining shard's database,
// then removeShard twice) expects `state: 'ongoing'`, `remaining.collectionsToMove` = their number
// and `collectionsToMove` = their names; the note is "you need to call moveCollection for
// collectionsToMove and afterwards movePrimary for the dbsToMove"
// (db/s/config/sharding_catalog_manager_shard_operations.cpp, 8.0.10).
load(__dirname + "/lib.js");
begin("drain_collections_to_move");

const admin = db.getSiblingDB("admin");
eq("enableSharding app on shard0001",
   (step("enableSharding", () => admin.runCommand({ enableSharding: "app", primaryShard: "shard0001" })) || {}).ok, 1);
step("a plain insert creates app.plain", () => db.getSiblingDB("app").plain.insertOne({ _id: 1 }));

const started = step("removeShard shard0001", () => admin.runCommand({ removeShard: "shard0001" })) || {};
eq("started, with the database and the collection to move",
   [started.state, started.dbsToMove, started.collectionsToMove], ["started", ["app"], ["app.plain"]]);
eq("the note", started.note,
   "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the dbsToMove");
const ongoing = step("removeShard shard0001 again", () => admin.runCommand({ removeShard: "shard0001" })) || {};
eq("ongoing", [ongoing.state, ongoing.msg], ["ongoing", "draining ongoing"]);
eq("remaining counts the collection", ongoing.remaining && Number(ongoing.remaining.collectionsToMove), 1);
eq("collectionsToMove", ongoing.collectionsToMove, ["app.plain"]);

// movePrimary takes the untracked collection along: nothing left to move.
eq("movePrimary app to shard0000",
   (step("movePrimary", () => admin.runCommand({ movePrimary: "app", to: "shard0000" })) || {}).ok, 1);
const done = step("removeShard shard0001 a third time", () => admin.runCommand({ removeShard: "shard0001" })) || {};
eq("completed", done.state, "completed");

finish();
