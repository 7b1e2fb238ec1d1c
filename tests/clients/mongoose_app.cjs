// Mongoose 8.x against `shardtop serve`, as an application's test suite uses it (run by
// tests/clients/main.rs with `node mongoose_app.cjs URI`, from this folder's node_modules): a
// model with a unique index, `Model.init()` (createCollection and createIndexes), `syncIndexes()`
// (listIndexes, drops the index the schema no longer has), documents created, a duplicate
// (E11000: `err.code` 11000 and `err.keyValue`), queries and an update, `deleteMany`,
// `connection.dropDatabase()` — and the whole round again, twice. Prints `OK mongoose_app` last.
'use strict';
const mongoose = require('mongoose');

const uri = process.argv[2];
const failures = [];

function check(what, ok, detail) {
  if (!ok) failures.push(`${what}: ${detail === undefined ? '' : JSON.stringify(detail)}`);
}

const userSchema = new mongoose.Schema({
  email: { type: String, required: true, unique: true },
  name: String,
  age: Number,
});
userSchema.index({ name: 1, age: -1 });
const User = mongoose.model('User', userSchema);

async function round(n) {
  await User.init();
  // An index the schema does not declare: syncIndexes drops it.
  await User.collection.createIndex({ age: 1 }, { name: 'stale_age' });
  const dropped = await User.syncIndexes();
  check(`${n} syncIndexes dropped`, JSON.stringify(dropped) === JSON.stringify(['stale_age']), dropped);
  const names = (await User.listIndexes()).map((i) => i.name).sort();
  check(`${n} indexes`, JSON.stringify(names) === JSON.stringify(['_id_', 'email_1', 'name_1_age_-1']), names);

  await User.create([
    { email: 'ann@x', name: 'Ann', age: 31 },
    { email: 'bob@x', name: 'Bob', age: 42 },
  ]);
  try {
    await User.create({ email: 'ann@x', name: 'Another Ann' });
    failures.push(`${n} duplicate: no error`);
  } catch (e) {
    check(`${n} duplicate code`, e.code === 11000, e.message);
    check(`${n} duplicate keyValue`, e.keyValue && e.keyValue.email === 'ann@x', e.keyValue);
  }
  const bob = await User.findOne({ name: 'Bob' }).lean();
  check(`${n} findOne`, bob && bob.age === 42, bob);
  await User.updateOne({ email: 'bob@x' }, { $inc: { age: 1 } });
  const older = await User.find({ age: { $gt: 40 } }).lean();
  check(`${n} update`, older.length === 1 && older[0].age === 43, older);
  const removed = await User.deleteMany({});
  check(`${n} deleteMany`, removed.deletedCount === 2, removed);
  check(`${n} dropDatabase`, (await mongoose.connection.dropDatabase()) === true);
}

(async () => {
  try {
    await mongoose.connect(uri, { dbName: 'mongoose_suite', serverSelectionTimeoutMS: 10000 });
    for (const n of [1, 2, 3]) {
      await round(`round ${n}`);
    }
  } catch (e) {
    failures.push(`unexpected: ${e.stack || e}`);
  } finally {
    await mongoose.disconnect();
  }
  if (failures.length > 0) {
    console.log(failures.join('\n'));
    process.exit(1);
  }
  console.log('OK mongoose_app');
})();
