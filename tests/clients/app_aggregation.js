// What an application's own test suite aggregates and queries (issue 50), typed as mongosh users
// type it: shop.products sharded on {sku: 1} and split over two shards, shop.orders unsharded;
// $lookup of the sharded products (a mongos runs it from 5.1: `document_source_lookup.cpp`),
// equality and pipeline forms; $unwind with includeArrayIndex and preserveNullAndEmptyArrays;
// $group's accumulators with the server's number types read back with $type ($avg of ints a
// double, $sum of int32s an int32: `accumulator_avg.cpp`, `accumulator_sum.cpp`); $facet and
// $count; $project expressions; array index paths in filters ("dim_cm.1", nested "m.0.1") and
// in updates; an unknown stage and operator refused with the server's codes. Served with
// --server-version 8.0.
load(__dirname + "/lib.js");
begin("app_aggregation");

const shop = db.getSiblingDB("shop");
step("enableSharding shop", () => sh.enableSharding("shop"));
step("shardCollection shop.products", () => sh.shardCollection("shop.products", { sku: 1 }));
step("split at sku m", () => sh.splitAt("shop.products", { sku: "m" }));
step("move [m, MaxKey) to shard0001",
  () => db.adminCommand({ moveChunk: "shop.products", find: { sku: "z" }, to: "shard0001" }));

step("insert products", () => shop.products.insertMany([
  { _id: 1, sku: "apple", price: 3, dim_cm: [10, 20], tags: ["fruit", "red"], m: [[1, 2], [3, 4]] },
  { _id: 2, sku: "pear", price: 4, dim_cm: [12, 30], tags: [], m: [[5, 6]] },
  { _id: 3, sku: "zucchini", price: 2.5, dim_cm: [30, 8], m: [] },
]));
step("insert orders", () => shop.orders.insertMany([
  { _id: 1, sku: "apple", qty: 2 }, { _id: 2, sku: "zucchini", qty: 5 }, { _id: 3, sku: "kiwi", qty: 1 },
]));
eq("products on both shards", step("where", () => shardsHolding(shop.products, {})), ["shard0000", "shard0001"]);

// $lookup of a sharded collection, equality form.
const joined = step("lookup equality", () => shop.orders.aggregate([
  { $lookup: { from: "products", localField: "sku", foreignField: "sku", as: "product" } },
  { $project: { _id: 1, found: { $size: "$product" },
    total: { $multiply: ["$qty", { $ifNull: [{ $first: "$product.price" }, 0] }] } } },
  { $sort: { _id: 1 } },
]).toArray());
eq("lookup finds each order's product", joined,
  [{ _id: 1, found: 1, total: 6 }, { _id: 2, found: 1, total: 12.5 }, { _id: 3, found: 0, total: 0 }]);
expectError("an unknown expression", () => shop.orders.aggregate([{ $project: { x: { $frobnicate: 1 } } }]).toArray(),
  { code: 168, codeName: "InvalidPipelineOperator" });
// Pipeline form with let.
const cheap = step("lookup pipeline", () => shop.orders.aggregate([
  { $match: { _id: 2 } },
  { $lookup: { from: "products", let: { s: "$sku" }, pipeline: [
    { $match: { $expr: { $eq: ["$sku", "$$s"] } } }, { $project: { _id: 0, price: 1 } },
  ], as: "p" } },
]).toArray());
eq("lookup with let", cheap && cheap[0].p, [{ price: 2.5 }]);

// $unwind.
const unwound = step("unwind", () => shop.products.aggregate([
  { $sort: { _id: 1 } },
  { $unwind: { path: "$tags", includeArrayIndex: "i", preserveNullAndEmptyArrays: true } },
  { $project: { tags: 1, i: 1, t: { $type: "$i" } } },
]).toArray());
eq("unwind count", unwound && unwound.length, 4);
eq("unwind index is a long", unwound && unwound[1].t, "long");
eq("unwind keeps the empty array's document with index null", unwound && unwound[2], { _id: 2, i: null, t: "null" });

// $group accumulators and their types.
const g = step("group", () => shop.products.aggregate([
  { $sort: { _id: 1 } },
  { $group: { _id: null, n: { $sum: 1 }, avgId: { $avg: "$_id" }, sumId: { $sum: "$_id" },
    minPrice: { $min: "$price" }, maxPrice: { $max: "$price" }, skus: { $push: "$sku" },
    tags: { $addToSet: "$tags" }, first: { $first: "$sku" }, last: { $last: "$sku" } } },
  { $project: { _id: 0, n: 1, avgId: 1, skus: 1, first: 1, last: 1, minPrice: 1, maxPrice: 1,
    tAvg: { $type: "$avgId" }, tSum: { $type: "$sumId" }, tN: { $type: "$n" }, nTags: { $size: "$tags" } } },
]).toArray());
// Included fields come in the input's order, computed ones after them.
eq("group", g && g[0], { n: 3, avgId: 2, minPrice: 2.5, maxPrice: 4, skus: ["apple", "pear", "zucchini"],
  first: "apple", last: "zucchini", tAvg: "double", tSum: "int", tN: "int", nTags: 2 });
expectError("unknown accumulator", () => shop.products.aggregate([{ $group: { _id: null, x: { $median: "$price" } } }]).toArray(),
  { code: 15952 });
expectError("unknown stage", () => shop.products.aggregate([{ $densify: {} }]).toArray(), { code: 40324 });

// $facet and $count.
const f = step("facet", () => shop.products.aggregate([{ $facet: {
  n: [{ $count: "n" }],
  cheap: [{ $match: { price: { $lt: 3.5 } } }, { $sort: { price: 1 } }, { $project: { _id: 0, sku: 1 } }],
} }]).toArray());
eq("facet", f, [{ n: [{ n: 3 }], cheap: [{ sku: "zucchini" }, { sku: "apple" }] }]);

// $project expressions.
const p = step("project", () => shop.products.aggregate([
  { $match: { _id: 1 } },
  { $project: { _id: 0, label: { $concat: ["$sku", ":", { $toUpper: "$sku" }] }, plus: { $add: ["$price", 1] },
    kind: { $cond: [{ $gte: ["$price", 3] }, "dear", "cheap"] }, area: { $multiply: [{ $arrayElemAt: ["$dim_cm", 0] }, { $arrayElemAt: ["$dim_cm", 1] }] } } },
]).toArray());
eq("project", p, [{ label: "apple:APPLE", plus: 4, kind: "dear", area: 200 }]);

// Array index paths.
eq("dim_cm.1 > 25", step("f1", () => shop.products.find({ "dim_cm.1": { $gt: 25 } }, { _id: 1 }).toArray()), [{ _id: 2 }]);
eq("m.0.1 == 6", step("f2", () => shop.products.find({ "m.0.1": 6 }, { _id: 1 }).toArray()), [{ _id: 2 }]);
eq("countDocuments dim_cm.0 >= 12", step("f3", () => shop.products.countDocuments({ "dim_cm.0": { $gte: 12 } })), 2);
step("update by index", () => shop.products.updateOne({ _id: 1 }, { $inc: { "dim_cm.1": 5 } }));
eq("updated element", step("f4", () => shop.products.findOne({ _id: 1 }).dim_cm), [10, 25]);

finish();
