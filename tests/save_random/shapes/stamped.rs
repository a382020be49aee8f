//! Shapes 13 and 14: `#[odm(timestamps)]` models, every save that writes
//! something stamping `updatedAt` (and `create` both fields). `Stamped`
//! stamps from the application's clock into `Option` fields named by the
//! derive (`createdAt` / `updatedAt` under `rename_all = "camelCase"`);
//! `StampedOc` is under `optimistic_concurrency`, stamps from the server's
//! clock (`timestamps(server_clock)`, a `hello` before each write) into
//! plain `DateTime` fields renamed (`madeOn` / `touchedOn`).
//!
//! The changes sometimes set a stamp field by hand to another date: the
//! save's stamp replaces a hand-set `updatedAt`, a hand-set `createdAt` is
//! an ordinary change. The sub-documents hold their own `updatedAt` /
//! `createdAt`, ordinary fields the stamps must leave alone.

use odm::bson::DateTime;
use odm::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Shape, Spot, Stamps};
use crate::save_random::generator::{
    anew, edit_at, edited, float, mutate_vec, new_str, one_different, s, str_vec, strings, Rng,
};

/// An array sub-document with its own `_id`; its `updatedAt` is not a stamp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
#[serde(rename_all = "camelCase")]
pub struct LineItem {
    #[serde(rename = "_id")]
    pub id: ObjectId,
    pub text: String,
    pub unit_price: f64,
    pub labels: Vec<String>,
    pub updated_at: Option<DateTime>,
}

/// An embedded sub-document; its `createdAt` is not a stamp.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, odm::Fields)]
#[serde(rename_all = "camelCase")]
pub struct Meta {
    pub owner: String,
    pub revision: i32,
    pub notes: Vec<String>,
    pub created_at: Option<DateTime>,
}

/// A date years away from now (before 2020, or after 2100), so a stamp is
/// never taken for it.
fn date(rng: &mut Rng) -> DateTime {
    let ms = if rng.chance(80) {
        946_684_800_000 + rng.below(600_000_000_000) as i64
    } else {
        4_102_444_800_000 + rng.below(600_000_000_000) as i64
    };
    DateTime::from_millis(ms)
}

fn line_item(rng: &mut Rng) -> LineItem {
    LineItem {
        id: rng.object_id(),
        text: s(rng),
        unit_price: float(rng),
        labels: strings(rng, 2),
        updated_at: rng.chance(50).then(|| date(rng)),
    }
}

fn meta(rng: &mut Rng) -> Meta {
    Meta {
        owner: s(rng),
        revision: rng.below(5) as i32,
        notes: strings(rng, 3),
        created_at: rng.chance(50).then(|| date(rng)),
    }
}

fn edit_item(x: &mut LineItem, rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => {
            x.text = s(rng);
            format!(".text = {:?}", x.text)
        }
        1 => {
            x.unit_price = float(rng);
            format!(".unitPrice = {:?}", x.unit_price)
        }
        2 => {
            x.updated_at = rng.chance(70).then(|| date(rng));
            format!(".updatedAt = {:?} (not a stamp)", x.updated_at)
        }
        _ => str_vec(".labels", &mut x.labels, rng),
    }
}

fn edit_meta(m: &mut Meta, rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => {
            m.owner = s(rng);
            format!("meta.owner = {:?}", m.owner)
        }
        1 => {
            m.revision = rng.below(9) as i32;
            format!("meta.revision = {}", m.revision)
        }
        2 => {
            m.created_at = rng.chance(70).then(|| date(rng));
            format!("meta.createdAt = {:?} (not a stamp)", m.created_at)
        }
        3 => {
            *m = meta(rng);
            format!("meta = {m:?}")
        }
        _ => str_vec("meta.notes", &mut m.notes, rng),
    }
}

/// A stamp field set by hand: an `Option` to another date or to `None`, a
/// `DateTime` to another date.
trait HandSet {
    fn hand_set(&mut self, rng: &mut Rng);
}

impl HandSet for Option<DateTime> {
    fn hand_set(&mut self, rng: &mut Rng) {
        *self = rng.chance(80).then(|| date(rng));
    }
}

impl HandSet for DateTime {
    fn hand_set(&mut self, rng: &mut Rng) {
        *self = date(rng);
    }
}

macro_rules! stamped_shape {
    (
        $name:ident, $shape:literal, $test:literal, $stamp:ty, $initial:expr, $server:literal,
        [$created:literal $(#[$ca:meta])*, $updated:literal $(#[$ua:meta])*],
        #[$odm:meta]
    ) => {
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Document)]
        #[$odm]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            #[serde(rename = "_id")]
            pub id: ObjectId,
            pub title: String,
            pub item_count: i32,
            pub score: f64,
            pub done: bool,
            pub tags: Vec<String>,
            pub line_items: Vec<LineItem>,
            pub meta: Meta,
            $(#[$ca])*
            pub created_at: $stamp,
            $(#[$ua])*
            pub updated_at: $stamp,
        }

        impl Shape for $name {
            const NAME: &'static str = $shape;
            const TEST: &'static str = $test;
            const STAMPS: Option<Stamps> = Some(Stamps {
                created: $created,
                updated: $updated,
                server_clock: $server,
            });

            fn generate(rng: &mut Rng) -> Self {
                let initial: fn(&mut Rng) -> $stamp = $initial;
                $name {
                    id: rng.object_id(),
                    title: s(rng),
                    item_count: rng.below(9) as i32,
                    score: float(rng),
                    done: rng.chance(50),
                    tags: strings(rng, 3),
                    line_items: (0..rng.below(4)).map(|_| line_item(rng)).collect(),
                    meta: meta(rng),
                    created_at: initial(rng),
                    updated_at: initial(rng),
                }
            }

            fn mutate(&mut self, rng: &mut Rng) -> String {
                match rng.weighted(&[1, 1, 1, 1, 2, 5, 2, 2, 1]) {
                    0 => {
                        self.title = s(rng);
                        format!("title = {:?}", self.title)
                    }
                    1 => {
                        self.item_count = rng.below(9) as i32;
                        format!("itemCount = {}", self.item_count)
                    }
                    2 => {
                        self.score = float(rng);
                        format!("score = {:?}", self.score)
                    }
                    3 => {
                        self.done = !self.done;
                        format!("done = {}", self.done)
                    }
                    4 => str_vec("tags", &mut self.tags, rng),
                    5 => mutate_vec(
                        "lineItems",
                        &mut self.line_items,
                        rng,
                        &mut line_item,
                        &|a, b| a.text.cmp(&b.text).then(a.id.cmp(&b.id)),
                        &mut edit_item,
                    ),
                    6 => edit_meta(&mut self.meta, rng),
                    7 => {
                        self.updated_at.hand_set(rng);
                        format!("{} = {:?} (by hand)", $updated, self.updated_at)
                    }
                    _ => {
                        self.created_at.hand_set(rng);
                        format!("{} = {:?} (by hand)", $created, self.created_at)
                    }
                }
            }

            fn edit_in_place(&mut self, rng: &mut Rng) -> Option<String> {
                match rng.below(4) {
                    0 if !self.tags.is_empty() => {
                        let i = rng.below(self.tags.len());
                        self.tags[i] = s(rng);
                        Some(format!("tags[{i}] = {:?} (in place)", self.tags[i]))
                    }
                    1 if !self.line_items.is_empty() => {
                        let i = rng.below(self.line_items.len());
                        let d = edit_item(&mut self.line_items[i], rng);
                        Some(format!("lineItems[{i}]{d} (in place)"))
                    }
                    2 if !self.meta.notes.is_empty() => {
                        let i = rng.below(self.meta.notes.len());
                        self.meta.notes[i] = s(rng);
                        let d = format!("meta.notes[{i}] = {:?}", self.meta.notes[i]);
                        Some(format!("{d} (in place)"))
                    }
                    _ => {
                        self.meta.owner = s(rng);
                        Some(format!("meta.owner = {:?} (in place)", self.meta.owner))
                    }
                }
            }

            fn rewrite(&mut self, rng: &mut Rng) -> Option<String> {
                Some(match rng.below(5) {
                    0 => {
                        self.tags.sort();
                        self.line_items.reverse();
                        "tags: sort; lineItems: reverse".into()
                    }
                    1 => {
                        self.line_items.insert(0, line_item(rng));
                        self.meta.notes.reverse();
                        "lineItems: insert at 0; meta.notes: reverse".into()
                    }
                    2 => {
                        self.line_items
                            .sort_by(|a, b| b.text.cmp(&a.text).then(a.id.cmp(&b.id)));
                        "lineItems: sort by text, descending".into()
                    }
                    3 => {
                        self.meta = meta(rng);
                        format!("meta = {:?} (replaced)", self.meta)
                    }
                    _ => {
                        self.tags = strings(rng, 3);
                        self.line_items = vec![line_item(rng)];
                        "tags, lineItems: assigned".into()
                    }
                })
            }

            fn one_element(&mut self, rng: &mut Rng) -> Option<(String, Spot)> {
                let array = rng.below(3);
                let (d, index) = match array {
                    0 => one_different("tags", &mut self.tags, rng, &mut anew(&mut s), None)?,
                    1 => one_different(
                        "lineItems",
                        &mut self.line_items,
                        rng,
                        &mut edited(&mut edit_item),
                        None,
                    )?,
                    _ => one_different(
                        "meta.notes",
                        &mut self.meta.notes,
                        rng,
                        &mut anew(&mut s),
                        None,
                    )?,
                };
                Some((d, Spot { array, index }))
            }

            fn edit_element(&mut self, spot: Spot, rng: &mut Rng) -> Option<String> {
                let i = spot.index;
                match spot.array {
                    0 => edit_at("tags", &mut self.tags, i, rng, &mut new_str),
                    1 => edit_at("lineItems", &mut self.line_items, i, rng, &mut edit_item),
                    _ => edit_at("meta.notes", &mut self.meta.notes, i, rng, &mut new_str),
                }
            }
        }
    };
}

stamped_shape!(
    Stamped,
    "stamped",
    "random_timestamps",
    Option<DateTime>,
    |rng| rng.chance(30).then(|| date(rng)),
    false,
    ["createdAt", "updatedAt"],
    #[odm(collection = "rand_stamped", timestamps)]
);

stamped_shape!(
    StampedOc,
    "stamped_server_clock",
    "random_timestamps_server_clock",
    DateTime,
    date,
    true,
    [
        "madeOn" #[serde(rename = "madeOn")],
        "touchedOn" #[serde(rename = "touchedOn")]
    ],
    #[odm(
        collection = "rand_stamped_oc",
        optimistic_concurrency,
        timestamps(created_at = "madeOn", updated_at = "touchedOn", server_clock)
    )]
);
