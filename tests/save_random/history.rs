//! One random history: insert, then rounds of one copy saving alone or
//! two copies with the second going stale, every save checked.

use std::fmt;

use odm::bson::{Bson, Document as BsonDocument};
use odm::prelude::*;
use odm_testing::update::apply;

use crate::save_random::checks::{
    check_kind_change, check_saved, load, partial_field, raw_stored, ser, VERSION_KEY,
};
use crate::save_random::compare::{diff_path, kind_path, same_changes, same_doc};
use crate::save_random::generator::Rng;
use crate::save_random::mutations::{maybe_as_if_reached, mutate_some};
use crate::save_random::shapes::{Insert, Shape, Spot};
use crate::save_random::show::{err_kind, sd, short, show_changes};
use crate::save_random::stale::{check_elements, check_merge, check_positional, check_rewrites};
use crate::save_random::stamps::{self, Clock};

pub struct Failure {
    pub shape: &'static str,
    pub seed: u64,
    pub step: usize,
    pub kind: String,
    pub text: String,
}

/// The state of one history, for failure messages.
pub struct Ctx {
    pub shape: &'static str,
    pub test: &'static str,
    pub seed: u64,
    pub step: usize,
    pub log: Vec<String>,
}

impl Ctx {
    pub fn log(&mut self, line: String) {
        self.log.push(line);
    }

    pub fn fail(&self, kind: impl Into<String>, detail: impl fmt::Display) -> Failure {
        let kind = kind.into();
        let text = format!(
            "[{shape}] seed {seed:#x}, step {step}: {kind}\n  replay: ODM_RANDOM_SEED={seed:#x} ODM_RANDOM_HISTORIES=1 cargo test --test races save_random::{test}\n  history:\n    {log}\n  {detail}",
            shape = self.shape,
            seed = self.seed,
            step = self.step,
            test = self.test,
            log = self.log.join("\n    "),
        );
        Failure {
            shape: self.shape,
            seed: self.seed,
            step: self.step,
            kind,
            text,
        }
    }
}

/// Changes `doc` and saves it as the only writer; returns the raw stored
/// document after the save.
async fn save_single<S: Shape>(
    cx: &mut Ctx,
    rng: &mut Rng,
    model: &Model<S>,
    id: &Bson,
    doc: &mut Doc<S>,
    who: &str,
) -> Result<BsonDocument, Failure> {
    Ok(save_single_as(cx, rng, model, id, doc, who, How::Random)
        .await?
        .0)
}

/// What the change before a save is.
#[derive(Clone, Copy, PartialEq)]
enum How {
    /// 1-3 random changes.
    Random,
    /// The shape's [`edit_in_place`](Shape::edit_in_place).
    InPlace,
    /// The shape's [`one_element`](Shape::one_element); the element is
    /// written to `spot`.
    OneElement,
}

/// [`save_single`], the change made `how` says (random changes when the
/// shape has none of that kind).
async fn save_single_as<S: Shape>(
    cx: &mut Ctx,
    rng: &mut Rng,
    model: &Model<S>,
    id: &Bson,
    doc: &mut Doc<S>,
    who: &str,
    how: How,
) -> Result<(BsonDocument, Option<Spot>), Failure> {
    let mut spot = None;
    let before = ser(&**doc);
    let described = match how {
        How::Random => None,
        How::InPlace => doc.edit_in_place(rng),
        How::OneElement => doc.one_element(rng).map(|(d, at)| {
            spot = Some(at);
            d
        }),
    };
    match described {
        Some(d) => cx.log(format!("{who} changes: {d}")),
        None => mutate_some(cx, rng, &mut **doc, who),
    }
    maybe_as_if_reached(cx, rng, doc, &before, who);
    let changes = doc.changes();
    cx.log(format!("{who} sends: {}", show_changes(&changes)));
    cx.step += 1;
    let pre = ser(&**doc);
    let clock = Clock::start(model).await;
    if let Err(e) = doc.save().await {
        let raw = raw_stored(model, id).await;
        return Err(cx.fail(
            format!("{who}: save failed ({})", err_kind(&e)),
            format!(
                "error: {}\n  memory: {}\n  stored: {}",
                short(e),
                sd(&ser(&**doc)),
                raw.map_or("(none)".into(), |r| sd(&r))
            ),
        ));
    }
    let raw = check_saved(cx, model, id, doc, who).await?;
    let update = changes.as_ref().map(|(_, u)| u);
    stamps::check_save::<S>(cx, who, &pre, update, &raw, &clock).await?;
    check_kind_change::<S>(cx, &changes, &raw, doc, who)?;
    Ok((raw, spot))
}

pub async fn insert<S: Shape>(
    cx: &mut Ctx,
    rng: &mut Rng,
    model: &Model<S>,
) -> Result<(Bson, Option<Doc<S>>), Failure> {
    let value = S::generate(rng);
    match S::INSERT {
        Insert::Create => {
            cx.log(format!("create {:?}", value));
            let clock = Clock::start(model).await;
            let d = model
                .create(value)
                .await
                .map_err(|e| cx.fail(format!("create failed ({})", err_kind(&e)), short(e)))?;
            let id = d
                .id()
                .map_err(|e| cx.fail("Doc::id() failed after create", short(e)))?;
            if S::STAMPS.is_some() {
                let raw = check_saved(cx, model, &id, &d, "create").await?;
                stamps::check_insert::<S>(cx, &raw, &clock).await?;
            }
            Ok((id, None))
        }
        Insert::RawWithout(fields) => {
            let mut raw = ser(&value);
            let mut left_out = Vec::new();
            for f in fields {
                if !rng.plain && rng.chance(60) {
                    raw.remove(*f);
                    left_out.push(*f);
                }
            }
            let how = format!("(left out {left_out:?})");
            raw_insert(cx, model, raw, &how).await
        }
        Insert::Older => {
            let (version, raw) = value.older(rng);
            raw_insert(cx, model, raw, &format!("at schema version {version}")).await
        }
        Insert::NewDocWithoutId => {
            cx.log(format!("new_doc({:?}).save()", value));
            let mut d = model.new_doc(value);
            cx.step += 1;
            d.save()
                .await
                .map_err(|e| cx.fail(format!("insert save failed ({})", err_kind(&e)), short(e)))?;
            let id = match d.id() {
                Ok(id @ Bson::ObjectId(_)) => id,
                other => {
                    return Err(cx.fail(
                        "the Doc does not know the _id generated on insert",
                        format!("Doc::id() = {other:?}, value = {:?}", &*d),
                    ))
                }
            };
            check_saved(cx, model, &id, &d, "insert").await?;
            Ok((id, Some(d)))
        }
    }
}

/// Inserts `raw` with `__v: 0` as it is, logged with `how`.
async fn raw_insert<S: Shape>(
    cx: &mut Ctx,
    model: &Model<S>,
    mut raw: BsonDocument,
    how: &str,
) -> Result<(Bson, Option<Doc<S>>), Failure> {
    raw.insert(VERSION_KEY, 0);
    cx.log(format!("raw insert {} {how}", sd(&raw)));
    let id = raw.get("_id").expect("an _id").clone();
    model
        .collection()
        .insert_one(raw)
        .await
        .map_err(|e| cx.fail("raw insert failed", short(e)))?;
    Ok((id, None))
}

pub async fn history<S: Shape>(model: Model<S>, seed: u64) -> Result<(), Failure> {
    let mut rng = Rng::new(seed);
    let mut cx = Ctx {
        shape: S::NAME,
        test: S::TEST,
        seed,
        step: 0,
        log: Vec::new(),
    };
    let model = &model;
    if rng.plain {
        cx.log("(a plain history)".into());
    }
    let (id, inserted) = insert(&mut cx, &mut rng, model).await?;
    if let Some(mut d) = inserted {
        // Keep using the inserted Doc: it must know its id.
        cx.log("round 0: the inserted copy alone".into());
        save_single(&mut cx, &mut rng, model, &id, &mut d, "A").await?;
    }
    let rounds = 2 + rng.below(6);
    for round in 1..=rounds {
        if rng.chance(30) {
            cx.log(format!("round {round}: one copy"));
            let mut a = load(&cx, model, &id, "A").await?;
            if rng.chance(25) {
                // Saved untouched first: the copy must keep what it read
                // (the stored field order, the paths the store lacks).
                cx.log("A: increment(), saved untouched".into());
                a.increment();
                cx.step += 1;
                let (pre, changes, clock) = (ser(&*a), a.changes(), Clock::start(model).await);
                if let Err(e) = a.save().await {
                    return Err(cx.fail(
                        format!("A: untouched save failed ({})", err_kind(&e)),
                        short(e),
                    ));
                }
                let raw = check_saved(&cx, model, &id, &a, "A").await?;
                let update = changes.as_ref().map(|(_, u)| u);
                stamps::check_save::<S>(&cx, "A", &pre, update, &raw, &clock).await?;
            }
            for _ in 0..1 + rng.below(2) {
                save_single(&mut cx, &mut rng, model, &id, &mut a, "A").await?;
            }
            continue;
        }
        // The stale-rewrite pattern (issue 21): A edits in place, B
        // (loaded before) rewrites the same containers.
        let pattern = rng.chance(30);
        // The stale-element pattern (issue 35): A changes one array so
        // that one element ends different (a pop and a push, or an
        // assignment), B (loaded before) edits that element in place.
        let element = !pattern && rng.chance(30);
        cx.log(format!(
            "round {round}: two copies, B goes stale{}",
            match (pattern, element) {
                (true, _) => " (stale rewrite)",
                (_, true) => " (stale element edit)",
                _ => "",
            }
        ));
        let pre_a = raw_stored(model, &id).await.expect("stored");
        let mut a = load(&cx, model, &id, "A").await?;
        let mut b = load(&cx, model, &id, "B").await?;
        let orig = ser(&*b);
        let mut pre_b = pre_a.clone();
        let mut spot = None;
        for n in 0..1 + usize::from(rng.chance(25)) {
            let how = match (pattern, element, n) {
                (true, _, 0) => How::InPlace,
                (_, true, 0) => How::OneElement,
                _ => How::Random,
            };
            let (stored, at) =
                save_single_as(&mut cx, &mut rng, model, &id, &mut a, "A", how).await?;
            pre_b = stored;
            spot = spot.or(at);
        }
        let a_doc = ser(&*a);
        let b_before = ser(&*b);
        let b_change = match (pattern, spot) {
            (true, _) => b.rewrite(&mut rng),
            (_, Some(spot)) => b.edit_element(spot, &mut rng),
            _ => None,
        };
        match b_change {
            Some(d) => cx.log(format!("B changes: {d}")),
            None => mutate_some(&mut cx, &mut rng, &mut *b, "B"),
        }
        maybe_as_if_reached(&mut cx, &mut rng, &mut b, &b_before, "B");
        let b_changes = b.changes();
        let b_version = b.version();
        let b_doc = ser(&*b);
        cx.log(format!(
            "B (stale, version {b_version:?}) sends: {}",
            show_changes(&b_changes)
        ));
        let matched = match &b_changes {
            Some((filter, _)) => Some(
                model
                    .collection()
                    .count_documents(filter.clone())
                    .await
                    .expect("count_documents"),
            ),
            None => None,
        };
        cx.step += 1;
        let clock = Clock::start(model).await;
        let result = b.save().await;
        let after = raw_stored(model, &id).await.expect("stored");
        let ctx_text = || {
            format!(
                "stored before B: {}\n  stored after B: {}",
                sd(&pre_b),
                sd(&after)
            )
        };
        match result {
            Err(odm::Error::Version(e)) => {
                cx.log(format!("B: Error::Version ({e})"));
                if !same_doc(&after, &pre_b) {
                    return Err(cx.fail(
                        "stale B: Error::Version, but the stored document changed",
                        ctx_text(),
                    ));
                }
                // Less the stamp, whose time `changes()` takes anew.
                let (now, stamped) = stamps::unstamped::<S>(b.changes());
                let (then, was) = stamps::unstamped::<S>(b_changes.clone());
                if !same_changes(&now, &then) || stamped != was {
                    return Err(cx.fail(
                        "stale B: Error::Version, but its pending changes changed",
                        format!("now {}\n  {}", show_changes(&b.changes()), ctx_text()),
                    ));
                }
                if b.version() != b_version {
                    return Err(cx.fail(
                        "stale B: Error::Version, but version() moved",
                        format!("{b_version:?} -> {:?}", b.version()),
                    ));
                }
                stamps::refused_untouched::<S>(&cx, &b_doc, &ser(&*b))?;
                if matched == Some(1) {
                    return Err(cx.fail(
                        "stale B: Error::Version although its filter matches the stored document",
                        ctx_text(),
                    ));
                }
            }
            Err(e) => {
                return Err(cx.fail(
                    format!("stale B: save failed ({})", err_kind(&e)),
                    format!("error: {}\n  {}", short(e), ctx_text()),
                ));
            }
            Ok(()) => {
                cx.log("B: Ok".into());
                if let Some(c) = b.changes() {
                    return Err(cx.fail(
                        "stale B: changes() is not None right after a successful save",
                        show_changes(&Some(c)),
                    ));
                }
                if matched == Some(0) {
                    return Err(cx.fail(
                        "stale B: Ok although its filter matched nothing",
                        ctx_text(),
                    ));
                }
                let (mut expected, bumped) = match &b_changes {
                    Some((_, update)) => (
                        apply(&pre_b, update).map_err(|e| {
                            cx.fail(
                                format!("stale B: the interpreter refused B's update: {e}"),
                                ctx_text(),
                            )
                        })?,
                        update.contains_key("$inc"),
                    ),
                    None => (pre_b.clone(), false),
                };
                if let Some((_, update)) = &b_changes {
                    let b_now = ser(&*b);
                    stamps::stale_landed::<S>(&cx, update, &b_now, &after, &mut expected, &clock)
                        .await?;
                }
                if let Some(p) = diff_path(
                    Some(&Bson::Document(after.clone())),
                    Some(&Bson::Document(expected.clone())),
                    "",
                ) {
                    return Err(cx.fail(
                        format!(
                            "stale B: stored != B's update applied by MongoDB's rules [{}]",
                            kind_path(&p)
                        ),
                        format!(
                            "first difference at {p}\n  interpreted: {}\n  {}",
                            sd(&expected),
                            ctx_text()
                        ),
                    ));
                }
                let want_version = b_version.map(|v| v + i64::from(bumped));
                if b.version() != want_version
                    && !(b_version.is_none() && bumped && b.version() == Some(1))
                {
                    return Err(cx.fail(
                        "stale B: version() after its save is not loaded + INC",
                        format!(
                            "loaded {b_version:?}, now {:?}, bumped {bumped}",
                            b.version()
                        ),
                    ));
                }
                let stored = ser(&*load(&cx, model, &id, "after B").await?);
                if let Some(k) = partial_field(&after, &stored) {
                    return Err(cx.fail(
                        format!("after B: the stored document does not round-trip [{k:?}]"),
                        format!("loaded and serialized: {}\n  {}", sd(&stored), ctx_text()),
                    ));
                }
                let mut errs = Vec::new();
                if let Some((_, update)) = &b_changes {
                    check_positional(&orig, &pre_b, update, &mut errs);
                    check_rewrites(&pre_a, &pre_b, update, &mut errs);
                    check_elements(&pre_a, &pre_b, update, &mut errs);
                }
                let mut keys: Vec<&String> = orig
                    .keys()
                    .chain(a_doc.keys())
                    .chain(b_doc.keys())
                    .chain(stored.keys())
                    .collect();
                keys.sort();
                keys.dedup();
                // The stamp is the last save's time (`stale_landed`).
                let stamp = S::STAMPS.map(|st| st.updated);
                for k in keys.into_iter().filter(|k| Some(k.as_str()) != stamp) {
                    check_merge(
                        &format!("{k:?}"),
                        [orig.get(k), a_doc.get(k), b_doc.get(k), stored.get(k)],
                        !pre_a.contains_key(k),
                        a.version() != b_version,
                        &mut errs,
                    );
                }
                if let Some((kind, _)) = errs.first() {
                    let details: Vec<String> =
                        errs.iter().map(|(k, d)| format!("{k}: {d}")).collect();
                    return Err(cx.fail(
                        kind.clone(),
                        format!("{}\n  {}", details.join("\n  "), ctx_text()),
                    ));
                }
            }
        }
        // Reuse the copies: reload() both (A is stale when B landed).
        a.reload()
            .await
            .map_err(|e| cx.fail("reload failed", short(e)))?;
        b.reload()
            .await
            .map_err(|e| cx.fail("reload failed", short(e)))?;
    }
    Ok(())
}
