// The Node.js driver 6.x against `shardtop serve`, as an application's test suite uses it (run by
// tests/clients/main.rs with `node node_driver_app.cjs URI`, from this folder's node_modules):
// reset the database, create a collection and its indexes (the same index again, a name conflict
// 86, a key under another name 85), write, read, update, aggregate, a duplicate key (E11000 with
// `keyValue` and `keyPattern`), a change stream ended by the drop (`drop`, then `invalidate`),
// drop, dropDatabase — and the whole round again, twice. Prints `OK node_driver_app` last.
'use strict';
const { MongoClient } = require('mongodb');

const uri = process.argv[2];
const failures = [];

function check(what, ok, detail) {
  if (!ok) failures.push(`${what}: ${detail === undefined ? '' : JSON.stringify(detail)}`);
}

async function expectCode(what, promise, code) {
  try {
    await promise;
    failures.push(`${what}: no error, expected code ${code}`);
    return undefined;
  } catch (e) {
    check(what, e.code === code, `code ${e.code}: ${e.message}`);
    return e;
  }
}

async function round(client, n) {
  const db = client.db('suite');
  await db.dropDatabase();
  const users = await db.createCollection('users');
  await db.createCollection('users'); // the same options: ok on a mongos
  const name = await users.createIndex({ email: 1 }, { unique: true });
  check(`${n} index name`, name === 'email_1', name);
  check(`${n} the same index again`, (await users.createIndex({ email: 1 }, { unique: true })) === 'email_1');
  await expectCode(`${n} same name, other key`, users.createIndex({ nick: 1 }, { name: 'email_1' }), 86);
  await expectCode(`${n} same key, other name`, users.createIndex({ email: 1 }, { name: 'by_email', unique: true }), 85);
  await users.createIndex({ org: 1, age: -1 });

  const inserted = await users.insertMany([
    { email: 'a@x', org: 'red', age: 30 },
    { email: 'b@x', org: 'red', age: 40 },
    { email: 'c@x', org: 'blue', age: 50 },
  ]);
  check(`${n} insertMany`, inserted.insertedCount === 3, inserted.insertedCount);
  const dup = await expectCode(`${n} duplicate email`, users.insertOne({ email: 'a@x', org: 'green' }), 11000);
  if (dup) {
    check(`${n} keyValue`, dup.keyValue && dup.keyValue.email === 'a@x', dup.keyValue);
    check(`${n} keyPattern`, dup.keyPattern && dup.keyPattern.email === 1, dup.keyPattern);
    check(`${n} errmsg`, /E11000 duplicate key error collection: suite\.users index: email_1 dup key: \{ email: "a@x" \}/.test(dup.message), dup.message);
  }
  const reds = await users.find({ org: 'red' }).sort({ age: -1 }).toArray();
  check(`${n} find`, reds.length === 2 && reds[0].email === 'b@x', reds);
  const updated = await users.updateOne({ email: 'c@x' }, { $set: { age: 51 }, $inc: { visits: 1 } });
  check(`${n} updateOne`, updated.modifiedCount === 1, updated);
  const c = await users.findOne({ email: 'c@x' });
  check(`${n} findOne`, c && c.age === 51 && c.visits === 1, c);
  const groups = await users.aggregate([
    { $match: { age: { $gte: 30 } } },
    { $group: { _id: '$org', n: { $sum: 1 } } },
    { $sort: { _id: 1 } },
  ]).toArray();
  check(`${n} aggregate`, JSON.stringify(groups) === JSON.stringify([{ _id: 'blue', n: 1 }, { _id: 'red', n: 2 }]), groups);
  check(`${n} countDocuments`, (await users.countDocuments({})) === 3);

  const stream = users.watch();
  await stream.tryNext(); // opens the cursor before the drop
  check(`${n} drop`, (await users.drop()) === true);
  const first = await stream.next();
  check(`${n} drop event`, first.operationType === 'drop' && first.ns.coll === 'users', first);
  const second = await stream.next();
  check(`${n} invalidate event`, second.operationType === 'invalidate', second);
  await stream.close();
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((x) => x.name);
  check(`${n} dropped`, !names.includes('users'), names);
  await db.collection('users').drop().catch((e) => failures.push(`${n} drop of a missing collection: ${e.message}`));
  await db.collection('other').insertOne({ x: 1 });
  check(`${n} dropDatabase`, (await db.dropDatabase()) === true);
  const dbs = (await client.db('admin').admin().listDatabases()).databases.map((d) => d.name);
  check(`${n} database gone`, !dbs.includes('suite'), dbs);
}

(async () => {
  const client = new MongoClient(uri);
  try {
    await client.connect();
    for (const n of [1, 2, 3]) {
      await round(client, `round ${n}`);
    }
  } catch (e) {
    failures.push(`unexpected: ${e.stack || e}`);
  } finally {
    await client.close();
  }
  if (failures.length > 0) {
    console.log(failures.join('\n'));
    process.exit(1);
  }
  console.log('OK node_driver_app');
})();
