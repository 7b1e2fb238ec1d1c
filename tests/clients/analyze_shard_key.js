// analyzeShardKey (7.0+) typed the way a user types it: shop.orders (unsharded), 2,000 orders of
// 1,000 customers in eight cities with an ascending orderNo, indexes {customerId: 1} and a unique
// {orderNo: 1}; db.orders.configureQueryAnalyzer() samples 25 reads (20 by customer, 5 by city) and
// 10 updates by customer, then db.orders.analyzeShardKey() and db.adminCommand({analyzeShardKey})
// answer with NumberLong counts and rounded-up percentages. The keyCharacteristics of
// {customerId: 1} are printed as mongosh shows them (tests/real_clients.rs reads that text).
// Served with --server-version 8.0.
load(__dirname + "/lib.js");
begin("analyze_shard_key");

const orders = db.getSiblingDB("shop").orders;
const cities = ["Lyon", "Oslo", "Pune", "Lima", "Kobe", "Graz", "Cork", "Bari"];
const docs = [];
for (let i = 0; i < 2000; i++) {
  docs.push({ _id: i, orderNo: i + 1, customerId: (i * 7) % 1000, city: cities[i % 8] });
}
eq("insert 2000 orders",
   Object.keys((step("insertMany", () => orders.insertMany(docs)) || { insertedIds: {} }).insertedIds).length,
   2000);
step("createIndex {customerId: 1}", () => orders.createIndex({ customerId: 1 }));
step("createIndex {orderNo: 1} unique", () => orders.createIndex({ orderNo: 1 }, { unique: true }));

const qa = step("configureQueryAnalyzer", () =>
  orders.configureQueryAnalyzer({ mode: "full", samplesPerSecond: 50 }));
eq("configureQueryAnalyzer: new configuration", qa && qa.newConfiguration,
   { mode: "full", samplesPerSecond: 50 });
for (let c = 0; c < 20; c++) orders.findOne({ customerId: c * 3 });
for (let k = 0; k < 5; k++) orders.findOne({ city: cities[k] });
for (let c = 0; c < 10; c++) orders.updateOne({ customerId: c }, { $inc: { n: 1 } });

const isLong = v => v !== null && typeof v === "object" && v._bsontype === "Long";
const r = step("db.orders.analyzeShardKey({customerId: 1})", () =>
  orders.analyzeShardKey({ customerId: 1 }));
const kc = (r && r.keyCharacteristics) || {};
print(kc);
eq("numDocsTotal", longStr(kc.numDocsTotal), "2000");
check("numDocsTotal is a NumberLong", isLong(kc.numDocsTotal), show(kc.numDocsTotal));
eq("numDistinctValues", longStr(kc.numDistinctValues), "1000");
eq("isUnique", kc.isUnique, false);
eq("the five most common values, frequency 2",
   (kc.mostCommonValues || []).map(c => [c.value.customerId, longStr(c.frequency)]),
   [[0, "2"], [7, "2"], [14, "2"], [21, "2"], [28, "2"]]);
eq("monotonicity", kc.monotonicity && kc.monotonicity.type, "not monotonic");
const rd = (r && r.readDistribution) || {};
eq("reads sampled", longStr(rd.sampleSize && rd.sampleSize.total), "25");
eq("percentageOfSingleShardReads", rd.percentageOfSingleShardReads, 80);
eq("percentageOfScatterGatherReads", rd.percentageOfScatterGatherReads, 20);
eq("numReadsByRange: 100 ranges", (rd.numReadsByRange || []).length, 100);
const wd = (r && r.writeDistribution) || {};
eq("writes sampled", longStr(wd.sampleSize && wd.sampleSize.update), "10");
eq("percentageOfSingleShardWrites", wd.percentageOfSingleShardWrites, 100);

const u = step("db.adminCommand analyzeShardKey {orderNo: 1}", () =>
  db.adminCommand({ analyzeShardKey: "shop.orders", key: { orderNo: 1 }, readWriteDistribution: false }));
const ukc = (u && u.keyCharacteristics) || {};
eq("orderNo: unique", ukc.isUnique, true);
eq("orderNo: monotonic", ukc.monotonicity, { recordIdCorrelationCoefficient: 1, type: "monotonic" });
check("orderNo: no read distribution asked", u && u.readDistribution === undefined, show(u));

expectError("no supporting index", () =>
  orders.analyzeShardKey({ city: 1 }, { readWriteDistribution: false }),
  { codeName: "IllegalOperation", code: 20,
    message: "Cannot analyze the characteristics of a shard key that does not have a supporting index" });
step("createIndex {city: 1}", () => orders.createIndex({ city: 1 }));
expectError("eight cities cannot cut 100 ranges", () => orders.analyzeShardKey({ city: 1 }),
  { code: 4952606, messageEnd: "it can only make 9 chunks" });
expectError("an unknown collection", () => db.getSiblingDB("shop").nope.analyzeShardKey({ a: 1 }),
  { codeName: "NamespaceNotFound", message: "The namespace does not exist" });
expectError("both sampleRate and sampleSize", () =>
  orders.analyzeShardKey({ customerId: 1 }, { sampleRate: 0.5, sampleSize: 100 }),
  { codeName: "InvalidOptions", message: "Cannot specify both 'sampleRate' and 'sampleSize'" });
finish();
