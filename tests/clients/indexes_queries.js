// Secondary indexes and query operators on a sharded collection, typed the way a user types them:
// shop.orders on {customerId: "hashed"} (8.0: one chunk per shard, so every query asks three
// shards), 600 orders in seed 003's eight cities; indexes {placedAt: -1}, {city: "text"},
// {loc: "2dsphere"}, a TTL index, a partial index and a named compound one, listed by
// getIndexes() with their options and dropped by name and by key; queries with a regex literal,
// $regex/$options, $elemMatch, $size, $type, $all and $mod, whose counts are computed here from
// the inserted data; operators refused with BadValue (code 2). Served with --server-version 8.0.
load(__dirname + "/lib.js");
begin("indexes_queries");

const ns = "shop.orders";
const orders = db.getSiblingDB("shop").orders;
step("enableSharding shop", () => sh.enableSharding("shop"));
eq("shardCollection shop.orders {customerId: 'hashed'}",
   (step("sc", () => sh.shardCollection(ns, { customerId: "hashed" })) || {}).ok, 1);

// The lesson's cities, with their coordinates ([longitude, latitude]).
const cities = {
  Bengaluru: [77.5946, 12.9716], Chennai: [80.2707, 13.0827], Delhi: [77.1025, 28.7041],
  Hyderabad: [78.4867, 17.385], Jaipur: [75.7873, 26.9124], Kochi: [76.2673, 9.9312],
  Kolkata: [88.3639, 22.5726], Pune: [73.8567, 18.5204],
};
const names = Object.keys(cities);
const tagSets = [["red", "blue"], ["red"], ["blue", "green", "red"], []];
const jan1 = Date.UTC(2026, 0, 1);
const now = new Date();
const docs = [];
for (let i = 0; i < 600; i++) {
  const city = names[i % names.length];
  const [lng, lat] = cities[city];
  const mixed = [() => "s" + i, () => NumberLong(String(i)), () => i, () => i + 0.5, () => null][i % 5]();
  docs.push({
    customerId: i, city: city, placedAt: new Date(jan1 + i * 3600000),
    loc: { type: "Point", coordinates: [lng + (i % 7) * 0.001, lat] },
    createdAt: now, status: i % 3 === 0 ? "open" : "closed", total: i % 50,
    tags: tagSets[i % 4], items: [{ sku: "A", qty: i % 5 }, { sku: "B", qty: (i * 3) % 7 }],
    n: i, mixed: mixed,
  });
}
eq("insert 600 orders",
   Object.keys((step("insertMany", () => orders.insertMany(docs)) || { insertedIds: {} }).insertedIds).length, 600);
eq("the orders are on all three shards", step("where", () => shardsHolding(orders, {})),
   ["shard0000", "shard0001", "shard0002"]);

// --- createIndex of the common kinds; each answers its name.
const created = [
  [{ placedAt: -1 }, undefined, "placedAt_-1"],
  [{ city: "text" }, undefined, "city_text"],
  [{ loc: "2dsphere" }, undefined, "loc_2dsphere"],
  [{ createdAt: 1 }, { expireAfterSeconds: 3600 }, "createdAt_1"],
  [{ total: 1 }, { partialFilterExpression: { status: "open" } }, "total_1"],
  [{ customerId: 1, placedAt: -1 }, { name: "by_customer" }, "by_customer"],
];
for (const [key, options, name] of created) {
  eq("createIndex(" + show(key) + (options ? ", " + show(options) : "") + ")",
     step("createIndex " + name, () => orders.createIndex(key, options)), name);
}

// --- getIndexes(): every index with its name and options (fields compared in any order, the key
// pattern in its own order).
function canon(spec) {
  const out = {};
  Object.keys(spec).sort().forEach(k => { out[k] = spec[k]; });
  return out;
}
const want = [
  { v: 2, key: { _id: 1 }, name: "_id_" },
  { v: 2, key: { customerId: "hashed" }, name: "customerId_hashed" },
  { v: 2, key: { placedAt: -1 }, name: "placedAt_-1" },
  { v: 2, key: { _fts: "text", _ftsx: 1 }, name: "city_text", weights: { city: 1 },
    default_language: "english", language_override: "language", textIndexVersion: 3 },
  { v: 2, key: { loc: "2dsphere" }, name: "loc_2dsphere", "2dsphereIndexVersion": 3 },
  { v: 2, key: { createdAt: 1 }, name: "createdAt_1", expireAfterSeconds: 3600 },
  { v: 2, key: { total: 1 }, name: "total_1", partialFilterExpression: { status: "open" } },
  { v: 2, key: { customerId: 1, placedAt: -1 }, name: "by_customer" },
];
const listed = step("getIndexes()", () => orders.getIndexes()) || [];
eq("getIndexes() names", listed.map(i => i.name).sort(), want.map(i => i.name).sort());
for (const w of want) {
  eq("getIndexes(): " + w.name, canon(listed.find(i => i.name === w.name) || {}), canon(w));
}

// --- dropIndex by name and by key.
eq("dropIndex('total_1')", (step("dropIndex by name", () => orders.dropIndex("total_1")) || {}).ok, 1);
eq("dropIndex({placedAt: -1})", (step("dropIndex by key", () => orders.dropIndex({ placedAt: -1 })) || {}).ok, 1);
eq("getIndexes() after the drops",
   (step("getIndexes() again", () => orders.getIndexes()) || []).map(i => i.name).sort(),
   want.map(i => i.name).filter(n => n !== "total_1" && n !== "placedAt_-1").sort());
expectError("dropIndex('total_1') again", () => orders.dropIndex("total_1"),
            { codeName: "IndexNotFound", code: 27 });

// --- Queries; each count is computed from docs and asked twice (countDocuments and find).
function matches(label, filter, pred) {
  const expected = docs.filter(pred).length;
  check(label + ": the data has matches and non-matches", expected > 0 && expected < docs.length,
        "expected " + expected);
  eq(label + " countDocuments", step(label + " count", () => orders.countDocuments(filter)), expected);
  eq(label + " find().toArray().length",
     step(label + " find", () => orders.find(filter).toArray().length), expected);
}
matches("regex literal {city: /^Pu/}", { city: /^Pu/ }, d => /^Pu/.test(d.city));
matches("{city: {$regex: '^k', $options: 'i'}}", { city: { $regex: "^k", $options: "i" } },
        d => /^k/i.test(d.city));
matches("{city: {$regex: /a$/}}", { city: { $regex: /a$/ } }, d => /a$/.test(d.city));
matches("$elemMatch {sku: 'A', qty: {$gte: 3}}", { items: { $elemMatch: { sku: "A", qty: { $gte: 3 } } } },
        d => d.items.some(x => x.sku === "A" && x.qty >= 3));
matches("a dotted path into an array of documents {'items.qty': 6}", { "items.qty": 6 },
        d => d.items.some(x => x.qty === 6));
matches("without $elemMatch the conditions may match different elements",
        { "items.sku": "A", "items.qty": { $gte: 6 } },
        d => d.items.some(x => x.sku === "A") && d.items.some(x => x.qty >= 6));
matches("$size 2", { tags: { $size: 2 } }, d => d.tags.length === 2);
matches("$size 0", { tags: { $size: 0 } }, d => d.tags.length === 0);
matches("$type 'string'", { mixed: { $type: "string" } }, d => typeof d.mixed === "string");
matches("$type 'long'", { mixed: { $type: "long" } }, d => d.n % 5 === 1);
matches("$type 'int'", { mixed: { $type: "int" } }, d => d.n % 5 === 2);
matches("$type 'double'", { mixed: { $type: "double" } }, d => d.n % 5 === 3);
matches("$type 'number'", { mixed: { $type: "number" } }, d => [1, 2, 3].includes(d.n % 5));
matches("$type 'null'", { mixed: { $type: "null" } }, d => d.mixed === null);
matches("$type [2, 'null'] (string or null)", { mixed: { $type: [2, "null"] } },
        d => d.mixed === null || typeof d.mixed === "string");
matches("$all ['red', 'blue']", { tags: { $all: ["red", "blue"] } },
        d => d.tags.includes("red") && d.tags.includes("blue"));
matches("$mod [7, 3]", { n: { $mod: [7, 3] } }, d => d.n % 7 === 3);
matches("$mod and a regex together", { n: { $mod: [4, 1] }, city: /^K/ }, d => d.n % 4 === 1 && /^K/.test(d.city));

// An exclusion projection of _id keeps every other field.
const pune = step("find({customerId: 7}, {_id: 0})", () => orders.find({ customerId: 7 }, { _id: 0 }).toArray());
eq("find({customerId: 7}, {_id: 0}): the order without its _id",
   pune && pune.map(d => Object.keys(d).sort()),
   [Object.keys(docs[7]).filter(k => k !== "_id").sort()]);

// --- Refused operators. Inside an aggregation $match (countDocuments) a server refuses $where and
// $near with BadValue; an unknown operator is BadValue everywhere.
expectError("countDocuments({$where: ...})", () => orders.countDocuments({ $where: "this.n % 7 == 3" }),
            { codeName: "BadValue", code: 2, messageEnd: "$where is not allowed in this context" });
const nearPune = { loc: { $near: { $geometry: { type: "Point", coordinates: cities.Pune }, $maxDistance: 20000 } } };
expectError("countDocuments({loc: {$near: ...}})", () => orders.countDocuments(nearPune),
            { codeName: "BadValue", code: 2,
              messageEnd: "$geoNear, $near, and $nearSphere are not allowed in this context" });
expectError("find({n: {$foo: 1}})", () => orders.find({ n: { $foo: 1 } }).toArray(),
            { codeName: "BadValue", code: 2, message: "unknown operator: $foo" });
expectError("find({$foo: 1})", () => orders.find({ $foo: 1 }).toArray(),
            { codeName: "BadValue", code: 2, messageRe: /^unknown top level operator: \$foo/ });
// In a find, a server runs $where (JavaScript) and $near (with the 2dsphere index); shardtop
// refuses them (docs/fidelity.md: "$text, $near and the other text and geo operators are
// BadValue"). Either answer is accepted here, never a wrong count.
function answeredOrBadValue(label, fn, expected) {
  try {
    const n = fn();
    eq(label + " (answered as a server does)", n, expected);
  } catch (e) {
    check(label + " (refused with BadValue, code 2)", e.code === 2 && e.codeName === "BadValue",
          "threw " + errText(e));
  }
}
answeredOrBadValue("find({$where: 'this.n % 7 == 3'})",
                   () => orders.find({ $where: "this.n % 7 == 3" }).toArray().length,
                   docs.filter(d => d.n % 7 === 3).length);
answeredOrBadValue("find({loc: {$near: Pune, $maxDistance: 20 km}})",
                   () => orders.find(nearPune).toArray().length,
                   docs.filter(d => d.city === "Pune").length);

finish();
