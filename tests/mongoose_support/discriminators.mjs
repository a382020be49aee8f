// Mongoose's side of tests/mongoose_discriminators.rs: one collection of
// events of two kinds, as Mongoose's discriminators model it (a base model
// and one model per kind, the kind in `__t`).
//
//   node discriminators.mjs <uri> <database> <step> [id ...]
//
// Steps (each prints one JSON line on stdout; Mongoose's commands go to
// stderr):
//   read            every event as Mongoose loads it: its model, kind, fields
//   write           creates a Click and a Purchase through Mongoose
//   edit <id>       loads the event <id>, changes a field of its kind, saves
import { createRequire } from "node:module";

// Mongoose as benches/mongoose installs it (npm ci there).
const require = createRequire(new URL("../../benches/mongoose/package.json", import.meta.url));
const mongoose = require("mongoose");

const [uri, database, step, ...ids] = process.argv.slice(2);
mongoose.set("debug", (collection, method, ...args) =>
  console.error(JSON.stringify({ collection, method, args })),
);
await mongoose.connect(uri, { dbName: database });

const Event = mongoose.model("Event", new mongoose.Schema({}, { collection: "events" }));
const Click = Event.discriminator(
  "Click",
  new mongoose.Schema({ element: String, tags: [String] }),
);
const Purchase = Event.discriminator(
  "Purchase",
  new mongoose.Schema({ cents: Number, tags: [String] }),
);

function shown(doc) {
  const o = doc.toObject();
  return {
    id: String(o._id),
    model: doc.constructor.modelName,
    kind: o.__t ?? null,
    element: o.element ?? null,
    cents: o.cents ?? null,
    tags: o.tags ?? null,
    version: o.__v ?? null,
  };
}

let out;
if (step === "read") {
  const all = await Event.find().sort({ _id: 1 });
  out = {
    events: all.map(shown),
    clicks: await Click.countDocuments(),
    purchases: await Purchase.countDocuments(),
  };
} else if (step === "write") {
  const click = await Click.create({ element: "#from-mongoose", tags: ["m"] });
  const purchase = await Purchase.create({ cents: 250 });
  out = { click: String(click._id), purchase: String(purchase._id) };
} else if (step === "edit") {
  const doc = await Event.findById(ids[0]);
  if (doc.__t === "Click") {
    doc.element = "#edited-by-mongoose";
  } else {
    doc.cents += 1;
  }
  doc.tags.push("mongoose");
  await doc.save();
  out = shown(doc);
} else {
  throw new Error(`unknown step ${step}`);
}
console.log(JSON.stringify(out));
await mongoose.disconnect();
