// A 4.4 mongos has no moveRange (added in 6.0: `s/commands/cluster_move_range_cmd.cpp`): the
// command is unknown, CommandNotFound (59) "no such command: 'moveRange'", whatever its fields —
// the server looks the command up before it reads any (`db/commands.cpp`, findCommand; issue 33).
// And its refusal of `$`-prefixed field names in inserts. Served with --server-version 4.4.
load(__dirname + "/lib.js");
begin("serve_rules_44");

const admin = db.getSiblingDB("admin");
function refused(label, cmd) {
  expectError(label, () => admin.runCommand(cmd),
    { code: 59, codeName: "CommandNotFound", message: "no such command: 'moveRange'" });
}
refused("moveRange of a namespace that does not exist", { moveRange: "nowhere.nothing", toShard: "shard0001" });
refused("moveRange without a namespace", { moveRange: 1 });
step("enableSharding app", () => sh.enableSharding("app"));
step("shardCollection app.c", () => sh.shardCollection("app.c", { x: 1 }));
refused("moveRange of a sharded collection", { moveRange: "app.c", min: { x: MinKey }, toShard: "shard0001" });
refused("moveRange to a shard that does not exist", { moveRange: "app.c", min: { x: MinKey }, toShard: "nope" });

// 4.4 refuses a `$`-prefixed field name in an insert (`db/ops/insert.cpp`, fixDocumentForInsert:
// BadValue); 5.0 stores it (issue 50).
expectError("insert of a $-prefixed field", () => db.getSiblingDB("app").c.insertOne({ x: 1, $price: 2 }),
  { code: 2, messageRe: /Document can't have \$ prefixed field names: \$price/ });

finish();
