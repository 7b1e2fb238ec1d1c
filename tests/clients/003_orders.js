// Seed 003 (lesson "04 · Choosing & Changing a Shard Key", MongoDB 9.0.2, three shards):
// shop.orders sharded on {customerId: "hashed"} — the unique-index rules, a shard-key update
// (a retryable write: mongosh's default), an update by _id only, resharding to
// {customerId: 1, placedAt: 1} (refused first because of a unique index, then done), and the
// explain targeting table afterwards. 4,010 orders here (customers 0, 5, 10, … 19,995 with one
// order each, and customer 4242 with 10 orders, 6 of them from 2026-06-01) instead of 200,000.
// Expected answers quoted from that seed. Served with --server-version 9.0.
load(__dirname + "/lib.js");
begin("003_orders");

const shop = db.getSiblingDB("shop");
const orders = shop.orders;
step("enableSharding shop", () => sh.enableSharding("shop"));
eq("shardCollection shop.orders {customerId: 'hashed'}",
   (step("sc", () => sh.shardCollection("shop.orders", { customerId: "hashed" })) || {}).ok, 1);

const day = 86400000;
const jan1 = Date.UTC(2026, 0, 1);
const docs = [];
for (let i = 0; i < 4000; i++) {
  docs.push({ customerId: (i * 5) % 20000, orderNo: i + 1,
              placedAt: new Date(jan1 + ((i * 7919) % 365) * day), total: (i * 31) % 500 });
}
const mine = ["2026-01-15", "2026-02-15", "2026-03-15", "2026-04-15", "2026-06-01", "2026-07-01",
              "2026-08-01", "2026-09-01", "2026-10-01", "2026-11-01"];
mine.forEach((d, k) => docs.push({ customerId: 4242, orderNo: 100001 + k, placedAt: ISODate(d), total: 42 }));
eq("insert 4010 orders",
   Object.keys((step("insertMany", () => orders.insertMany(docs)) || { insertedIds: {} }).insertedIds).length,
   4010);

// Unique indexes must start with the shard key:
// CannotCreateIndex: ... cannot create index with 'unique' or 'prepareUnique' option over { orderNo: 1 } with shard
// key pattern { customerId: "hashed" } and collation {}
// unique {customerId: 1, orderNo: 1}: "customerId_1_orderNo_1"
expectError("unique {orderNo: 1}", () => orders.createIndex({ orderNo: 1 }, { unique: true }),
            { codeName: "CannotCreateIndex",
              messageEnd: "cannot create index with 'unique' or 'prepareUnique' option over { orderNo: 1 } " +
                "with shard key pattern { customerId: \"hashed\" } and collation {}" });
eq("unique {customerId: 1, orderNo: 1}",
   step("unique ok", () => orders.createIndex({ customerId: 1, orderNo: 1 }, { unique: true })),
   "customerId_1_orderNo_1");

// A document's shard key value can change, and the document moves to the owning shard:
// before: 4242 on [ 'shC' ]
// set customerId to 4247 (hashed 3529713213878061024) modified: 1 | now on [ 'shB' ]
const one = orders.findOne({ orderNo: 100001 });
const before = step("where is 4242", () => shardsHolding(orders, { customerId: 4242 }));
eq("customer 4242's orders are on one shard", before && before.length, 1);
print("before: 4242 on " + show(before));
const h4247 = step("convertShardKeyToHashed(4247)", () => convertShardKeyToHashed(4247));
eq("4247 hashes to the seed's value", h4247 === undefined ? undefined : longStr(h4247), "3529713213878061024");
const seedHash = 3529713213878061024n;
const owner = chunksOf("shop.orders").find(c =>
  (isMinKey(c.min.customerId) || BigInt(c.min.customerId.toString()) <= seedHash) &&
  (isMaxKey(c.max.customerId) || seedHash < BigInt(c.max.customerId.toString())));
const upd = step("updateOne({_id}, {$set: {customerId: 4247}})",
                 () => orders.updateOne({ _id: one._id }, { $set: { customerId: 4247 } }));
eq("modified: 1", upd && upd.modifiedCount, 1);
const now = step("where is it now", () => shardsHolding(orders, { _id: one._id }));
print("set customerId to 4247 modified: " + (upd && upd.modifiedCount) + " | now on " + show(now));
eq("now on the shard owning hash 3529713213878061024", now, owner ? [owner.shard] : ["?"]);
eq("find({customerId: 4247}) targets that shard",
   (step("explain 4247", () => explainFind(orders, { customerId: 4247 })) || {}).plannedShards,
   owner ? [owner.shard] : ["?"]);
eq("the document reads back with 4247", (orders.findOne({ _id: one._id }) || {}).customerId, 4247);
// Back to 4242 (the seed does it in a transaction through PyMongo: 003_shard_key_update.py).
eq("set back to 4242",
   (step("back", () => orders.updateOne({ _id: one._id }, { $set: { customerId: 4242 } })) || {}).modifiedCount, 1);
eq("back with the other 4242 orders", step("where back", () => shardsHolding(orders, { _id: one._id })), before);

// "Single-document operations without the shard key (updateOne({_id: ...})) are accepted on recent
// versions — updateOne by _id only, modified: 1"
eq("updateOne by _id only, modified: 1",
   (step("by _id", () => orders.updateOne({ _id: one._id }, { $set: { note: "gift" } })) || {}).modifiedCount, 1);

// Under the hashed key a customer range is a broadcast.
const hashedRange = step("explain range under hashed",
                         () => explainFind(orders, { customerId: { $gte: 100, $lt: 150 } }));
eq("customer range under the hashed key: SHARD_MERGE on every shard",
   hashedRange && [hashedRange.stage, hashedRange.shards.map(s => s.shard).sort()],
   ["SHARD_MERGE", ["shard0000", "shard0001", "shard0002"]]);

// > db.adminCommand({reshardCollection: "shop.orders", key: {customerId: 1, placedAt: 1}})
// MongoServerError: Recipient shard shB reached an unrecoverable error :: caused by :: can't shard collection
// 'shop.orders' with unique index on { customerId: 1, orderNo: 1 }, proposed shard key { customerId: 1, placedAt: 1 }
// and collation {}. Uniqueness can't be maintained unless shard key is a prefix and has simple collation
const reshard = { reshardCollection: "shop.orders", key: { customerId: 1, placedAt: 1 } };
expectError("reshard with the unique index", () => db.adminCommand(reshard),
            { messageRe: new RegExp("^Recipient shard shard000[012] reached an unrecoverable error :: caused by :: " +
              "can't shard collection 'shop\\.orders' with unique index on \\{ customerId: 1, orderNo: 1 \\}, " +
              "proposed shard key \\{ customerId: 1, placedAt: 1 \\} and collation \\{\\}\\. Uniqueness can't " +
              "be maintained unless shard key is a prefix and has simple collation$") });
eq("the key is still hashed", (db.getSiblingDB("config").collections.findOne({ _id: "shop.orders" }) || {}).key,
   { customerId: "hashed" });
eq("dropIndex customerId_1_orderNo_1",
   (step("dropIndex", () => orders.dropIndex("customerId_1_orderNo_1")) || {}).ok, 1);

// "reshardingMinimumOperationDurationMillis is 300,000 on this version", and the critical
// section's timeout "5,000 ms on this version". Shortened to 5 s for the test.
eq("reshardingCriticalSectionTimeoutMillis",
   (step("getParameter", () => db.adminCommand({ getParameter: 1, reshardingCriticalSectionTimeoutMillis: 1 })) ||
    {}).reshardingCriticalSectionTimeoutMillis, 5000);
const set = step("setParameter", () => db.adminCommand({ setParameter: 1, reshardingMinimumOperationDurationMillis: 5000 }));
eq("setParameter reshardingMinimumOperationDurationMillis: was 300000", set && [set.ok, set.was], [1, 300000]);

// reshard ok: 1 in 332184 ms / new key: {"customerId":1,"placedAt":1} / count: 200000
const t0 = Date.now();
const done = step("reshardCollection", () => db.adminCommand(reshard));
const ms = Date.now() - t0;
print("reshard ok: " + (done && done.ok) + " in " + ms + " ms");
eq("reshard ok: 1", done && done.ok, 1);
check("resharding took at least the 5 s minimum", ms >= 5000, ms + " ms");
const newKey = (db.getSiblingDB("config").collections.findOne({ _id: "shop.orders" }) || {}).key;
eq("new key", JSON.stringify(newKey), '{"customerId":1,"placedAt":1}');
eq("count", step("count", () => orders.countDocuments({})), 4010);
// "Afterwards the collection had 30 chunks per shard"
const perShard = {};
chunksOf("shop.orders").forEach(c => { perShard[c.shard] = (perShard[c.shard] || 0) + 1; });
eq("30 chunks per shard", perShard, { shard0000: 30, shard0001: 30, shard0002: 30 });

// find({customerId: 4242})                                SINGLE_SHARD  returned 10    ["shB:10"]
// find({customerId: {$gte: 100, $lt: 150}})               SINGLE_SHARD  returned 493   ["shC:493"]
// find({customerId: 4242, placedAt: {$gte: 2026-06-01}})  SINGLE_SHARD  returned 6     ["shB:6"]
// find({placedAt: {$gte: 2026-09-01}})                    SHARD_MERGE   returned 20035 ["shA:59747","shB:69752","shC:70501"]
// (per shard: documents examined; the date-only query examines every document of every shard.)
const sept = docs.filter(d => d.placedAt >= ISODate("2026-09-01")).length;
const rows = [
  ["find({customerId: 4242})", { customerId: 4242 }, "SINGLE_SHARD", 10, 10],
  ["find({customerId: {$gte: 100, $lt: 150}})", { customerId: { $gte: 100, $lt: 150 } }, "SINGLE_SHARD", 10, 10],
  ["find({customerId: 4242, placedAt: {$gte: 2026-06-01}})",
   { customerId: 4242, placedAt: { $gte: ISODate("2026-06-01") } }, "SINGLE_SHARD", 6, 6],
  ["find({placedAt: {$gte: 2026-09-01}})", { placedAt: { $gte: ISODate("2026-09-01") } }, "SHARD_MERGE", sept, null],
];
const held = step("documents per shard", () => explainFind(orders, {}));
for (const [label, filter, stage, returned, examined] of rows) {
  const e = step("explain " + label, () => explainFind(orders, filter));
  if (!e) continue;
  print(label.padEnd(56) + e.stage.padEnd(14) + "returned " + String(e.nReturned).padEnd(6) +
        JSON.stringify(e.shards.map(s => s.shard + ":" + s.docsExamined)));
  eq(label + " stage", e.stage, stage);
  eq(label + " returned", e.nReturned, returned);
  if (examined !== null) {
    eq(label + " asks one shard, examining only the matches", e.shards.map(s => s.docsExamined), [examined]);
  } else {
    eq(label + " asks every shard, examining all its documents",
       e.shards.map(s => [s.shard, s.docsExamined]).sort(),
       held ? held.shards.map(s => [s.shard, s.nReturned]).sort() : null);
  }
}
if (held) eq("the three shards hold all 4010", held.shards.reduce((a, s) => a + s.nReturned, 0), 4010);

finish();
