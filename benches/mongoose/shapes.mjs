// Mongoose's side of the shapes comparison (benches/SHAPES.md): CPU per
// operation on the S, M and L documents, no server.
//
// - decode: stored BSON bytes -> a plain object (the driver's `bson`);
// - hydrate: that object -> a Mongoose document (`Model.hydrate`);
// - load: decode + hydrate, what odm's `load` row does in one step;
// - save: set `counter`, then `await doc.save()` with the collection's
//   `updateOne` answering at once (validation, hooks, delta, version,
//   reset: what a user pays per save besides the round trip), the figure
//   odm's `save_build scalar` row is compared with;
// - cycle: load, set `counter`, save(): one load-change-save, compared with
//   odm's `cycle` row.
//
// `node shapes.mjs [S] [M] [L]` prints `MONGOOSE SHAPE ROW NS` lines: the
// median over runs (ODM_BENCH_RUNS, default 5) of >= ODM_BENCH_SECS (default
// 1) seconds each of the process's CPU time per op (`process.cpuUsage`).
import mongoose from 'mongoose';
import { BSON } from 'mongodb';
import { date, letters } from './gen.mjs';

const RUNS = Number(process.env.ODM_BENCH_RUNS ?? 5);
const SECS = Number(process.env.ODM_BENCH_SECS ?? 1);


const options = { optimisticConcurrency: true, versionKey: '__v' };
const Small = mongoose.model('Small', new mongoose.Schema({
  name: String, email: String, city: String, status: String, age: Number,
  score: Number, counter: Number, active: Boolean, verified: Boolean, createdAt: Date,
}, options));
const Comment = new mongoose.Schema({ author: String, text: String, likes: Number });
const articleFields = {
  title: String, slug: String, author: String, email: String, category: String,
  summary: String, body: String, lang: String, status: String, source: String,
  views: Number, score: Number, rating: Number, counter: Number, wordCount: Number,
  published: Boolean, featured: Boolean, archived: Boolean, createdAt: Date,
  updatedAt: Date, comments: [Comment], tags: [String],
};
const Article = mongoose.model('Article', new mongoose.Schema(articleFields, options));

function small() {
  return {
    _id: new mongoose.Types.ObjectId(), name: letters(16), email: letters(24),
    city: letters(12), status: 'active', age: 33, score: 1234.5, counter: 0,
    active: true, verified: false, createdAt: date(), __v: 0,
  };
}
function article(comments) {
  return {
    _id: new mongoose.Types.ObjectId(), title: letters(60), slug: letters(60),
    author: letters(20), email: letters(28), category: letters(12),
    summary: letters(200), body: letters(600), lang: 'en', status: 'published',
    source: letters(40), views: 1000, score: 42.5, rating: 4, counter: 0,
    wordCount: 812, published: true, featured: false, archived: false,
    createdAt: date(), updatedAt: date(),
    comments: Array.from({ length: comments }, (_, i) => ({
      _id: new mongoose.Types.ObjectId(), author: letters(10), text: letters(55), likes: i % 17,
    })),
    tags: Array.from({ length: 20 }, () => 'tag-' + letters(14)),
    __v: 0,
  };
}

// The driver call answers at once: what is left is Mongoose's own CPU.
for (const model of [Small, Article]) {
  model.collection.updateOne = async () => ({ acknowledged: true, matchedCount: 1, modifiedCount: 1 });
}

// CPU ns per op of `op`, median of RUNS runs of >= SECS seconds.
async function measure(op) {
  let batch = 1;
  // Warm up, and size a batch to ~10 ms.
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await op(i);
    if (Number(process.hrtime.bigint() - t) > 1e7) break;
    batch *= 2;
  }
  const perRun = [];
  for (let r = 0; r < RUNS; r++) {
    const start = process.cpuUsage();
    const wall = process.hrtime.bigint();
    let ops = 0;
    while (Number(process.hrtime.bigint() - wall) < SECS * 1e9) {
      for (let i = 0; i < batch; i++) await op(ops + i);
      ops += batch;
    }
    const used = process.cpuUsage(start);
    perRun.push(((used.user + used.system) * 1000) / ops);
  }
  perRun.sort((a, b) => a - b);
  return perRun[Math.floor(perRun.length / 2)];
}

const shapes = { S: [Small, small], M: [Article, () => article(50)], L: [Article, () => article(2000)] };
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ['S', 'M', 'L'];
for (const name of wanted) {
  const [model, make] = shapes[name];
  const bytes = BSON.serialize(make());
  const rows = {};
  rows.decode = await measure(() => BSON.deserialize(bytes));
  const plain = BSON.deserialize(bytes);
  rows.hydrate = await measure(() => model.hydrate(plain));
  rows.load = await measure(() => model.hydrate(BSON.deserialize(bytes)));
  const doc = model.hydrate(BSON.deserialize(bytes));
  let counter = 0;
  let saves = 0;
  rows.save = await measure(async () => {
    counter = (counter % 1000000) + 1;
    doc.counter = counter;
    await doc.save();
    saves += 1;
  });
  // Every save sent its `$inc` of the version (optimisticConcurrency).
  if (doc.__v !== saves) throw new Error(`${saves} saves, but __v is ${doc.__v}`);
  rows.cycle = await measure(async () => {
    const loaded = model.hydrate(BSON.deserialize(bytes));
    counter = (counter % 1000000) + 1;
    loaded.counter = counter;
    await loaded.save();
  });
  console.error(`shape ${name}: ${bytes.length} bytes of BSON`);
  for (const [row, ns] of Object.entries(rows)) {
    console.log(`MONGOOSE ${name} ${row} ${Math.round(ns)}`);
  }
}
