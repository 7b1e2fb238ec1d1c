// 8.3's draining commands (issue 33), as MongoDB's 8.3-era shardDrainingStatus jstest runs them:
// a database on the shard to drain with a sharded collection and an unsharded one made by a plain
// insert, then startShardDraining. shardDrainingStatus answers state 'ongoing', msg
// 'draining ongoing', dbsToMove ['TestDB'], collectionsToMove ['TestDB.CollUnsharded'] and the
// note "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the
// dbsToMove"; the reply names the draining `shard` (the shardDrainingStatus reference page's
// output fields: msg, state, shard, remaining, note, dbsToMove, collectionsToMove); a shard that
// is not draining is IllegalOperation, one that does not exist ShardNotFound.
// From 8.3 removeShard of a shard already removed succeeds (the 8.3-era copy of the jstest of a
// drain blocked by unsharded collections ends with assert.commandWorked on it; the 8.0-era copy
// with assert.commandFailed).
load(__dirname + "/lib.js");
begin("drain_83");

const admin = db.getSiblingDB("admin");
const run = (label, cmd) => step(label, () => admin.runCommand(cmd)) || {};
eq("enableSharding TestDB on shard0001", run("enableSharding", { enableSharding: "TestDB", primaryShard: "shard0001" }).ok, 1);
eq("shardCollection TestDB.Coll", run("shardCollection", { shardCollection: "TestDB.Coll", key: { _id: 1 } }).ok, 1);
step("inserts", () => {
  const t = db.getSiblingDB("TestDB");
  t.Coll.insertOne({ _id: -1, value: "Negative value" });
  t.Coll.insertOne({ _id: 1, value: "Positive value" });
  t.CollUnsharded.insertOne({ _id: 1, value: "Pos" });
});
eq("startShardDraining shard0001", run("startShardDraining", { startShardDraining: "shard0001" }).ok, 1);

const s = run("shardDrainingStatus shard0001", { shardDrainingStatus: "shard0001" });
eq("ongoing", [s.ok, s.state, s.msg], [1, "ongoing", "draining ongoing"]);
eq("names the shard, after state", [s.shard, Object.keys(s).slice(0, 3)], ["shard0001", ["msg", "state", "shard"]]);
eq("dbsToMove", s.dbsToMove, ["TestDB"]);
eq("collectionsToMove", s.collectionsToMove, ["TestDB.CollUnsharded"]);
eq("note", s.note, "you need to call moveCollection for collectionsToMove and afterwards movePrimary for the dbsToMove");
expectError("a shard not draining", () => admin.runCommand({ shardDrainingStatus: "shard0000" }),
  { codeName: "IllegalOperation" });
expectError("a shard that does not exist", () => admin.runCommand({ shardDrainingStatus: "shard1" }),
  { codeName: "ShardNotFound" });

// shard0002 holds nothing: drained at once, then removed.
eq("startShardDraining shard0002", run("start 2", { startShardDraining: "shard0002" }).ok, 1);
const c = run("shardDrainingStatus shard0002", { shardDrainingStatus: "shard0002" });
eq("drainingComplete", [c.state, c.shard], ["drainingComplete", "shard0002"]);
eq("commitShardRemoval shard0002", run("commit 2", { commitShardRemoval: "shard0002" }).ok, 1);
const again = run("removeShard shard0002 again", { removeShard: "shard0002" });
eq("removeShard of the removed shard succeeds", [again.ok, again.state], [1, "completed"]);
expectError("removeShard of an unknown shard", () => admin.runCommand({ removeShard: "nope" }),
  { codeName: "ShardNotFound" });

finish();
