//! A fixed set of Rust types with every serde form a model can use, and
//! random values of them: a random *shape* (which options are set, how
//! long each list is, which enum variant, how deep the recursion goes)
//! filled with random values.

// The fields exist to be serialized, decoded and compared through `Debug`.
#![allow(dead_code)]

use std::collections::BTreeMap;

use mongodb::bson::oid::ObjectId;
use mongodb::bson::{Binary, Bson, DateTime, Decimal128, Document, Timestamp};
use serde::{Deserialize, Serialize};

use super::Rng;

/// Every integer width.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Ints {
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: u8,
    f: u16,
    g: u32,
    /// Above `i64::MAX` now and then, which `bson` refuses to serialize.
    h: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Inner {
    x: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum External {
    Unit,
    Newtype(i64),
    Tuple(i32, String),
    Struct { a: u32, b: Option<String> },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "t")]
pub(crate) enum Internal {
    Unit,
    Newtype(Inner),
    Struct { a: i32, b: Vec<i8> },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "t", content = "c")]
pub(crate) enum Adjacent {
    Unit,
    Newtype(u16),
    Tuple(i8, f64),
    Struct { a: String },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum Untagged {
    Unit,
    Int(i64),
    Text(String),
    Pair(i32, String),
    Named { a: i32 },
}

/// A recursive enum: random nesting of lists, maps and options.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Node {
    Int(i32),
    Long(i64),
    Float(f64),
    Text(String),
    Flag(bool),
    Id(ObjectId),
    When(DateTime),
    Empty,
    List(Vec<Node>),
    Map(BTreeMap<String, Node>),
    Maybe(Option<Box<Node>>),
    Any(Bson),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Meters(f64);

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Pair(i16, String);

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Marker;

/// A `flatten` catch-all beside a named field.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Flat {
    a: i32,
    #[serde(flatten)]
    rest: BTreeMap<String, i64>,
}

/// The element types the fast paths leave to `bson`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Rare {
    dec: Decimal128,
    bin: Binary,
    ts: Timestamp,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Enums {
    ext: Vec<External>,
    int: Vec<Internal>,
    adj: Vec<Adjacent>,
    unt: Vec<Untagged>,
}

/// A model-like document with every form at once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Root {
    #[serde(rename = "_id")]
    id: ObjectId,
    ints: Ints,
    single: f32,
    double: f64,
    text: String,
    letter: char,
    flag: bool,
    at: DateTime,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    maybe: Option<i64>,
    nothing: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    map: BTreeMap<String, Node>,
    list: Vec<Node>,
    enums: Enums,
    unit: (),
    meters: Meters,
    pair: Pair,
    marker: Marker,
    flat: Flat,
    rare: Option<Rare>,
    any: Bson,
    doc: Document,
    child: Option<Box<Root>>,
}

/// Whether a draw leaves the fast paths' common ground.
fn rare(rng: &mut Rng) -> bool {
    rng.chance(4)
}

fn ints(rng: &mut Rng) -> Ints {
    Ints {
        a: rng.bits() as i8,
        b: rng.bits() as i16,
        c: rng.bits() as i32,
        d: rng.bits() as i64,
        e: rng.bits() as u8,
        f: rng.bits() as u16,
        g: rng.bits() as u32,
        h: rng.unsigned(3),
    }
}

fn external(rng: &mut Rng) -> External {
    // Tuple and struct variants are left to `bson` by the serializer: rarer.
    match rng.below(10) {
        0..=3 => External::Unit,
        4..=7 => External::Newtype(rng.bits() as i64),
        8 => External::Tuple(rng.bits() as i32, rng.string(4, 1)),
        _ => External::Struct {
            a: rng.bits() as u32,
            b: rng.chance(50).then(|| rng.string(4, 1)),
        },
    }
}

fn internal(rng: &mut Rng) -> Internal {
    match rng.below(3) {
        0 => Internal::Unit,
        1 => Internal::Newtype(Inner {
            x: rng.bits() as i32,
        }),
        _ => Internal::Struct {
            a: rng.bits() as i32,
            b: (0..rng.below(4)).map(|_| rng.bits() as i8).collect(),
        },
    }
}

fn adjacent(rng: &mut Rng) -> Adjacent {
    match rng.below(4) {
        0 => Adjacent::Unit,
        1 => Adjacent::Newtype(rng.bits() as u16),
        2 => Adjacent::Tuple(rng.bits() as i8, rng.f64()),
        _ => Adjacent::Struct {
            a: rng.string(4, 1),
        },
    }
}

fn untagged(rng: &mut Rng) -> Untagged {
    match rng.below(5) {
        0 => Untagged::Unit,
        1 => Untagged::Int(rng.bits() as i64),
        2 => Untagged::Text(rng.string(4, 1)),
        3 => Untagged::Pair(rng.bits() as i32, rng.string(4, 1)),
        _ => Untagged::Named {
            a: rng.bits() as i32,
        },
    }
}

fn list<T>(rng: &mut Rng, max: usize, mut item: impl FnMut(&mut Rng) -> T) -> Vec<T> {
    (0..rng.below(max + 1)).map(|_| item(rng)).collect()
}

fn map<T>(rng: &mut Rng, max: usize, mut item: impl FnMut(&mut Rng) -> T) -> BTreeMap<String, T> {
    (0..rng.below(max + 1))
        .map(|_| (rng.key(), item(rng)))
        .collect()
}

fn node(rng: &mut Rng, depth: usize) -> Node {
    let kinds = if depth == 0 { 9 } else { 12 };
    match rng.below(kinds) {
        0 => Node::Int(rng.bits() as i32),
        1 => Node::Long(rng.bits() as i64),
        2 => Node::Float(rng.f64()),
        3 => Node::Text(rng.string(6, 1)),
        4 => Node::Flag(rng.chance(50)),
        5 => Node::Id(rng.object_id()),
        6 => Node::When(rng.date()),
        7 => Node::Empty,
        8 => Node::Any(rng.bson(0, 4)),
        9 => Node::List(list(rng, 3, |rng| node(rng, depth - 1))),
        10 => Node::Map(map(rng, 3, |rng| node(rng, depth - 1))),
        _ => Node::Maybe(rng.chance(50).then(|| Box::new(node(rng, depth - 1)))),
    }
}

/// A random `Root`, with children down to `depth` levels.
pub(crate) fn root(rng: &mut Rng, depth: usize) -> Root {
    let exotic = if rare(rng) { 30 } else { 0 };
    Root {
        id: rng.object_id(),
        ints: ints(rng),
        single: rng.f32(),
        double: rng.f64(),
        text: rng.string(12, 2),
        letter: rng.char(),
        flag: rng.chance(50),
        at: rng.date(),
        maybe: rng.chance(50).then(|| rng.bits() as i64),
        nothing: rng.chance(50).then(|| rng.string(4, 0)),
        tags: list(rng, 4, |rng| rng.string(5, 0)),
        map: map(rng, 2, |rng| node(rng, 2)),
        list: list(rng, 2, |rng| node(rng, 2)),
        enums: Enums {
            ext: list(rng, 2, external),
            int: list(rng, 2, internal),
            adj: list(rng, 2, adjacent),
            unt: list(rng, 2, untagged),
        },
        unit: (),
        meters: Meters(rng.f64()),
        pair: Pair(rng.bits() as i16, rng.string(3, 0)),
        marker: Marker,
        flat: Flat {
            a: rng.bits() as i32,
            rest: map(rng, 2, |rng| rng.bits() as i64),
        },
        rare: rare(rng).then(|| Rare {
            dec: rng.decimal(),
            bin: rng.binary(),
            ts: Timestamp {
                time: rng.next_u64() as u32,
                increment: rng.next_u64() as u32,
            },
        }),
        any: rng.bson(1, exotic),
        doc: rng.document(1, exotic),
        child: (depth > 0 && rng.chance(15)).then(|| Box::new(root(rng, depth - 1))),
    }
}

/// A value to serialize at the top of a document: mostly a `Root`, else
/// a map, an enum, a `Bson` (not always a document) or a sequence, which
/// `bson` refuses at the top.
pub(crate) fn any_root(rng: &mut Rng) -> AnyRoot {
    match rng.below(20) {
        0 => AnyRoot::Map(map(rng, 4, |rng| node(rng, 2))),
        1 => AnyRoot::Node(node(rng, 2)),
        2 => AnyRoot::Bson(rng.bson(2, 10)),
        3 => AnyRoot::Enum(external(rng)),
        4 => AnyRoot::List(list(rng, 3, |rng| node(rng, 1))),
        _ => AnyRoot::Root(Box::new(root(rng, 1))),
    }
}

/// See [`any_root`].
#[derive(Debug, Clone)]
pub(crate) enum AnyRoot {
    Root(Box<Root>),
    Map(BTreeMap<String, Node>),
    Node(Node),
    Bson(Bson),
    Enum(External),
    List(Vec<Node>),
}
