// The mongosh sharding helpers that write config documents or send admin commands, typed the way
// a user types them (mongosh 2.x's shell-api sends: sh.stopAutoMerger() -> config.settings
// {_id: 'automerge'} upsert {enabled: false}; sh.disableAutoMerger(ns) -> config.collections
// {$set: {enableAutoMerge: false}}, sh.enableAutoMerger(ns) -> {$unset: {enableAutoMerge: 1}};
// sh.disableBalancing(ns) -> {$set: {noBalance: true}}; sh.setBalancerState(false) -> balancerStop;
// sh.disableMigrations(ns) -> setAllowMigrations, which sets config.collections permitMigrations:
// false, and unsets it again on enable; sh.checkMetadataConsistency() -> a cursor command).
// shop.orders on {customerId: 1}, 1,000 orders; convertShardKeyToHashed(4247) is seed 003's
// "hashed 3529713213878061024". Served with --server-version 8.0.
load(__dirname + "/lib.js");
begin("mongosh_helpers");

const ns = "shop.orders";
const config = db.getSiblingDB("config");
const orders = db.getSiblingDB("shop").orders;
const collDoc = () => config.collections.findOne({ _id: ns }) || {};

step("enableSharding shop", () => sh.enableSharding("shop"));
eq("shardCollection shop.orders {customerId: 1}",
   (step("sc", () => sh.shardCollection(ns, { customerId: 1 })) || {}).ok, 1);
const docs = [];
for (let i = 0; i < 1000; i++) docs.push({ customerId: i, orderNo: i + 1, total: (i * 31) % 500 });
eq("insert 1000 orders",
   Object.keys((step("insertMany", () => orders.insertMany(docs)) || { insertedIds: {} }).insertedIds).length,
   1000);
eq("sh.splitAt(ns, {customerId: 500})", (step("splitAt", () => sh.splitAt(ns, { customerId: 500 })) || {}).ok, 1);

// --- sh.status() runs and shows the collection (its printable value: databases[].collections).
function statusOf(label) {
  const r = step(label, () => sh.status());
  const value = r && r.value;
  const dbEntry = value && (value.databases || []).find(d => d.database && d.database._id === "shop");
  return { value: value, coll: dbEntry && dbEntry.collections ? dbEntry.collections[ns] : undefined };
}
let st = statusOf("sh.status()");
check("sh.status() mentions shop.orders", st.value && EJSON.stringify(st.value).includes(ns),
      "no " + ns + " in " + show(st.value));
eq("sh.status(): shop.orders shard key", st.coll && st.coll.shardKey, { customerId: 1 });
eq("sh.status(): shop.orders balancing", st.coll && st.coll.balancing, true);
eq("sh.status(): shop.orders chunks per shard",
   st.coll && st.coll.chunkMetadata.reduce((a, c) => a + c.nChunks, 0), 2);

// --- The AutoMerger, cluster-wide: no config.settings automerge document means enabled.
eq("sh.isAutoMergerEnabled() before any write", step("isAutoMergerEnabled", () => sh.isAutoMergerEnabled()), true);
const stopAm = step("sh.stopAutoMerger()", () => sh.stopAutoMerger());
eq("sh.stopAutoMerger(): acknowledged, upserted the settings document",
   stopAm && [stopAm.acknowledged, stopAm.upsertedCount], [true, 1]);
eq("sh.isAutoMergerEnabled() after stop", step("isAutoMergerEnabled", () => sh.isAutoMergerEnabled()), false);
eq("config.settings automerge document", config.settings.findOne({ _id: "automerge" }),
   { _id: "automerge", enabled: false });
const startAm = step("sh.startAutoMerger()", () => sh.startAutoMerger());
eq("sh.startAutoMerger(): matched 1, modified 1",
   startAm && [startAm.acknowledged, startAm.matchedCount, startAm.modifiedCount], [true, 1, 1]);
eq("sh.isAutoMergerEnabled() after start", step("isAutoMergerEnabled", () => sh.isAutoMergerEnabled()), true);

// --- The AutoMerger per collection: config.collections enableAutoMerge.
const disAm = step("sh.disableAutoMerger(ns)", () => sh.disableAutoMerger(ns));
eq("sh.disableAutoMerger(ns): matched 1, modified 1", disAm && [disAm.matchedCount, disAm.modifiedCount], [1, 1]);
eq("config.collections enableAutoMerge: false", collDoc().enableAutoMerge, false);
const enAm = step("sh.enableAutoMerger(ns)", () => sh.enableAutoMerger(ns));
eq("sh.enableAutoMerger(ns): matched 1, modified 1", enAm && [enAm.matchedCount, enAm.modifiedCount], [1, 1]);
check("config.collections enableAutoMerge unset again", !("enableAutoMerge" in collDoc()), show(collDoc()));

// --- Balancing per collection: config.collections noBalance.
const disBal = step("sh.disableBalancing(ns)", () => sh.disableBalancing(ns));
eq("sh.disableBalancing(ns): matched 1, modified 1", disBal && [disBal.matchedCount, disBal.modifiedCount], [1, 1]);
eq("config.collections noBalance: true", collDoc().noBalance, true);
st = statusOf("sh.status() with balancing disabled");
eq("sh.status(): shop.orders balancing false", st.coll && st.coll.balancing, false);
const enBal = step("sh.enableBalancing(ns)", () => sh.enableBalancing(ns));
eq("sh.enableBalancing(ns): matched 1, modified 1", enBal && [enBal.matchedCount, enBal.modifiedCount], [1, 1]);
eq("config.collections noBalance: false", collDoc().noBalance, false);

// --- The balancer, cluster-wide.
eq("sh.getBalancerState() at start", step("getBalancerState", () => sh.getBalancerState()), true);
eq("sh.setBalancerState(false)", (step("setBalancerState(false)", () => sh.setBalancerState(false)) || {}).ok, 1);
eq("sh.getBalancerState() after setBalancerState(false)",
   step("getBalancerState", () => sh.getBalancerState()), false);
eq("sh.isBalancerRunning().mode", (step("isBalancerRunning", () => sh.isBalancerRunning()) || {}).mode, "off");
const balDoc = config.settings.findOne({ _id: "balancer" }) || {};
eq("config.settings balancer: mode off, stopped", [balDoc.mode, balDoc.stopped], ["off", true]);

// --- Chunk size, written the way the docs show it, read back by balancerCollectionStatus (MB).
eq("balancerCollectionStatus chunkSize default 128",
   (step("balancerCollectionStatus", () => sh.balancerCollectionStatus(ns)) || {}).chunkSize, 128);
const cs = step("config.settings.updateOne chunksize", () =>
  config.settings.updateOne({ _id: "chunksize" }, { $set: { value: 1 } }, { upsert: true }));
eq("chunksize updateOne acknowledged, upserted", cs && [cs.acknowledged, cs.upsertedCount], [true, 1]);
const bcs = step("sh.balancerCollectionStatus(ns)", () => sh.balancerCollectionStatus(ns));
check("sh.balancerCollectionStatus(ns).chunkSize === 1", bcs && bcs.chunkSize === 1, "got " + show(bcs));

// --- Migrations per collection: setAllowMigrations.
const chunks = chunksOf(ns);
eq("two chunks", chunks.length, 2);
const upper = chunks[chunks.length - 1] || { shard: "?" };
const dest = ["shard0000", "shard0001", "shard0002"].find(s => s !== upper.shard);
eq("sh.disableMigrations(ns)", (step("disableMigrations", () => sh.disableMigrations(ns)) || {}).ok, 1);
eq("config.collections permitMigrations: false", collDoc().permitMigrations, false);
st = statusOf("sh.status() with migrations disabled");
eq("sh.status(): shop.orders allowMigrations false", st.coll && st.coll.allowMigrations, false);
expectError("sh.moveChunk with migrations disabled",
            () => sh.moveChunk(ns, { customerId: 700 }, dest),
            { codeName: "ConflictingOperationInProgress",
              // The config server's commit check ("... and chunks cannot be moved") or the donor's
              // ("... so moveChunk is not allowed."), depending on which sees permitMigrations first.
              messageRe: /Collection is undergoing changes/ });
eq("the chunk did not move", (chunksOf(ns)[1] || {}).shard, upper.shard);
eq("sh.enableMigrations(ns)", (step("enableMigrations", () => sh.enableMigrations(ns)) || {}).ok, 1);
check("config.collections permitMigrations unset again", !("permitMigrations" in collDoc()), show(collDoc()));
eq("sh.moveChunk with migrations enabled",
   (step("moveChunk", () => sh.moveChunk(ns, { customerId: 700 }, dest)) || {}).ok, 1);
eq("the chunk is on " + dest, (chunksOf(ns)[1] || {}).shard, dest);
eq("its documents moved with it", step("where", () => shardsHolding(orders, { customerId: { $gte: 500 } })), [dest]);

// --- Metadata consistency: nothing to report on a consistent cluster.
eq("sh.checkMetadataConsistency().toArray()",
   step("sh.checkMetadataConsistency", () => sh.checkMetadataConsistency().toArray()), []);
eq("db.orders.checkMetadataConsistency().toArray()",
   step("db.orders.checkMetadataConsistency", () => orders.checkMetadataConsistency().toArray()), []);

// --- abortReshardCollection with no resharding running.
expectError("sh.abortReshardCollection(ns) with none running", () => sh.abortReshardCollection(ns),
            { codeName: "NoSuchReshardCollection", code: 339 });
eq("the key is unchanged", collDoc().key, { customerId: 1 });

// --- convertShardKeyToHashed, seed 003: "set customerId to 4247 (hashed 3529713213878061024)".
const h = step("convertShardKeyToHashed(4247)", () => convertShardKeyToHashed(4247));
eq("convertShardKeyToHashed(4247) is Long('3529713213878061024')", h === undefined ? undefined : longStr(h),
   "3529713213878061024");
check("convertShardKeyToHashed(4247) is a Long", h && h._bsontype === "Long", show(h));

// sh.status() once more, after all of the above.
st = statusOf("sh.status() at the end");
eq("sh.status() at the end: shop.orders balancing true, allowMigrations true",
   st.coll && [st.coll.balancing, st.coll.allowMigrations], [true, true]);

finish();
