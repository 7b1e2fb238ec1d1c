// Seed 003 (lesson "04 · Choosing & Changing a Shard Key", MongoDB 9.0.2, three shards):
// refineCollectionShardKey on logs.events {ts: 1} — it needs a supporting index and may only add
// suffix fields. Expected answers quoted from that seed:
//   refine without index: InvalidOptions - Please create an index that starts with the proposed shard key before refining the collection's shard key.
//   refine ok: 1 | key now {"ts":1,"level":1}
//   refine changing prefix: InvalidOptions - refineCollectionShardKey shard key { level: 1, ts: 1 } does not extend the current shard key { ts: 1, level: 1 }
// Served with --server-version 9.0.
load(__dirname + "/lib.js");
begin("003_refine");

const ns = "logs.events";
const events = db.getSiblingDB("logs").events;
step("enableSharding logs", () => sh.enableSharding("logs"));
eq("shardCollection logs.events {ts: 1}", (step("sc", () => sh.shardCollection(ns, { ts: 1 })) || {}).ok, 1);
const levels = ["DEBUG", "WARN", "ERROR"];
const docs = [];
const t0 = Date.UTC(2026, 0, 1);
for (let i = 0; i < 3000; i++) docs.push({ ts: new Date(t0 + i * 1000), level: levels[i % 3], n: i });
eq("insert 3000 events",
   Object.keys((step("insertMany", () => events.insertMany(docs)) || { insertedIds: {} }).insertedIds).length,
   3000);
for (const k of [1000, 2000]) {
  step("splitAt " + k, () => sh.splitAt(ns, { ts: new Date(t0 + k * 1000) }));
}
const before = chunksOf(ns);
const perShardBefore = step("where before", () => explainFind(events, {}));

function line(label, fn) {
  try {
    const r = fn();
    return label + ": ok: " + r.ok;
  } catch (e) {
    return label + ": " + e.codeName + " - " + e.message;
  }
}

eq("refine without index",
   line("refine without index",
        () => db.adminCommand({ refineCollectionShardKey: ns, key: { ts: 1, level: 1 } })),
   "refine without index: InvalidOptions - Please create an index that starts with the proposed " +
     "shard key before refining the collection's shard key.");
eq("createIndex({ts: 1, level: 1})", step("createIndex", () => events.createIndex({ ts: 1, level: 1 })),
   "ts_1_level_1");
const ok = line("refine", () => db.adminCommand({ refineCollectionShardKey: ns, key: { ts: 1, level: 1 } }));
const coll = db.getSiblingDB("config").collections.findOne({ _id: ns });
eq("refine ok | key now", ok + " | key now " + JSON.stringify(coll && coll.key),
   'refine: ok: 1 | key now {"ts":1,"level":1}');
eq("refine changing prefix",
   line("refine changing prefix",
        () => db.adminCommand({ refineCollectionShardKey: ns, key: { level: 1, ts: 1 } })),
   "refine changing prefix: InvalidOptions - refineCollectionShardKey shard key { level: 1, ts: 1 } " +
     "does not extend the current shard key { ts: 1, level: 1 }");

// "appends fields, without moving data": the same chunks, each bound extended with level: MinKey.
const after = chunksOf(ns);
eq("same number of chunks", after.length, before.length);
eq("same chunks on the same shards, bounds extended with MinKey",
   after.map(c => [c.min, c.max, c.shard]),
   before.map(c => [Object.assign({}, c.min, { level: isMaxKey(c.min.ts) ? MaxKey() : MinKey() }),
                    Object.assign({}, c.max, { level: isMaxKey(c.max.ts) ? MaxKey() : MinKey() }),
                    c.shard]));
const perShardAfter = step("where after", () => explainFind(events, {}));
eq("documents stay where they were", perShardAfter && perShardAfter.shards.map(s => [s.shard, s.nReturned]),
   perShardBefore && perShardBefore.shards.map(s => [s.shard, s.nReturned]));
eq("count", step("count", () => events.countDocuments({})), 3000);

finish();
