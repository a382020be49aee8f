//! The declared indexes as `#[derive(Document)]` records them: plain
//! `'static` data (reached by generated code through `odm::__private`),
//! turned here into the documents `createIndexes` takes.

use mongodb::bson::{doc, Bson, Document as BsonDocument};

use super::kinds::{self, Collation, Key, TextOptions};
use super::server::{Version, PARTIAL_IN_OR};

/// One declared index.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexSpec {
    /// The index name (MongoDB's default `email_1`, `a_1_b_-1`, or `name = ".."`).
    pub name: &'static str,
    /// `(BSON field name, direction or kind)`, in order; a wildcard index
    /// has the one key `$**` (or `path.$**`), ascending.
    pub keys: &'static [(&'static str, Key)],
    /// `unique`.
    pub unique: bool,
    /// `sparse`.
    pub sparse: bool,
    /// The partial filter's terms, combined with `$and`; empty when the
    /// index is not partial.
    pub partial: &'static [Term],
    /// `expire_after`: a TTL index, `expireAfterSeconds`.
    pub expire_after: Option<i64>,
    /// A text index's weights and languages.
    pub text: TextOptions,
    /// `collation(..)`.
    pub collation: Option<Collation>,
}

/// One term of a partial filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Term {
    /// `path op value`.
    Cond(Condition),
    /// `or(..)`: one branch must hold; a branch is its conditions combined
    /// with `$and`.
    Or(&'static [&'static [Condition]]),
}

/// One condition of a partial filter: `path op value`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Condition {
    /// The BSON field name.
    pub path: &'static str,
    /// The operator.
    pub op: PartialOp,
    /// The operand.
    pub value: PartialValue,
}

/// The operators MongoDB accepts in a partial filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartialOp {
    /// `field = value`: equality.
    Eq,
    /// `$gt`.
    Gt,
    /// `$gte`.
    Gte,
    /// `$lt`.
    Lt,
    /// `$lte`.
    Lte,
    /// `$exists: true` (the value is `Bool(true)`).
    Exists,
    /// `$type` (the value is a type alias such as `"string"`).
    Type,
    /// `$in` (the value is a `List`); MongoDB 6.0 and later.
    In,
}

/// A literal operand of a partial filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PartialValue {
    /// A string.
    Str(&'static str),
    /// An integer (sent as a 32-bit integer when it fits, else 64-bit).
    Int(i64),
    /// A float.
    Float(f64),
    /// A bool.
    Bool(bool),
    /// The operand of `$in`.
    List(&'static [PartialValue]),
}

impl From<PartialValue> for Bson {
    fn from(value: PartialValue) -> Bson {
        match value {
            PartialValue::Str(s) => Bson::String(s.to_string()),
            PartialValue::Int(n) => match i32::try_from(n) {
                Ok(n) => Bson::Int32(n),
                Err(_) => Bson::Int64(n),
            },
            PartialValue::Float(f) => Bson::Double(f),
            PartialValue::Bool(b) => Bson::Boolean(b),
            PartialValue::List(items) => Bson::Array(items.iter().map(|v| (*v).into()).collect()),
        }
    }
}

impl PartialOp {
    fn operator(self) -> Option<&'static str> {
        match self {
            PartialOp::Eq => None,
            PartialOp::Gt => Some("$gt"),
            PartialOp::Gte => Some("$gte"),
            PartialOp::Lt => Some("$lt"),
            PartialOp::Lte => Some("$lte"),
            PartialOp::Exists => Some("$exists"),
            PartialOp::Type => Some("$type"),
            PartialOp::In => Some("$in"),
        }
    }
}

impl Condition {
    /// `{path: value}` or `{path: {$op: value}}`.
    pub fn to_document(&self) -> BsonDocument {
        let value = Bson::from(self.value);
        match self.op.operator() {
            None => doc! { self.path: value },
            Some(op) => doc! { self.path: { op: value } },
        }
    }
}

/// One condition as is, several under `$and`.
fn all_of(docs: Vec<BsonDocument>) -> BsonDocument {
    match <[BsonDocument; 1]>::try_from(docs) {
        Ok([one]) => one,
        Err(many) => doc! { "$and": many },
    }
}

impl Term {
    /// `{path: ..}` or `{$or: [..]}`.
    pub fn to_document(&self) -> BsonDocument {
        match self {
            Term::Cond(c) => c.to_document(),
            Term::Or(branches) => {
                let branches: Vec<BsonDocument> = branches
                    .iter()
                    .map(|b| all_of(b.iter().map(Condition::to_document).collect()))
                    .collect();
                doc! { "$or": branches }
            }
        }
    }

    /// The operators of this term that MongoDB accepts in a partial filter
    /// only from 6.0 on.
    fn newer_operators(&self) -> impl Iterator<Item = &'static str> + '_ {
        let (or, conditions): (Option<&'static str>, Vec<&Condition>) = match self {
            Term::Cond(c) => (None, vec![c]),
            Term::Or(branches) => (
                Some("$or"),
                branches.iter().flat_map(|b| b.iter()).collect(),
            ),
        };
        let in_ = conditions
            .into_iter()
            .any(|c| c.op == PartialOp::In)
            .then_some("$in");
        or.into_iter().chain(in_)
    }
}

impl IndexSpec {
    /// The key pattern, e.g. `{a: 1, b: -1}`, `{title: "text"}`.
    pub fn keys_document(&self) -> BsonDocument {
        kinds::keys_document(self.keys)
    }

    /// The key pattern as `listIndexes` shows it (text keys as `_fts`).
    pub(crate) fn listed_keys_document(&self) -> BsonDocument {
        kinds::listed_keys_document(self.keys)
    }

    /// Where to create this index among the missing ones: kinds a server
    /// may lack first.
    pub(crate) fn risk(&self) -> u8 {
        kinds::risk(self.keys, self.expire_after, self.collation.is_some())
    }

    /// The `partialFilterExpression`: one term as is, several under
    /// `$and`; `None` when the index is not partial.
    pub fn partial_filter(&self) -> Option<BsonDocument> {
        if self.partial.is_empty() {
            return None;
        }
        Some(all_of(self.partial.iter().map(Term::to_document).collect()))
    }

    /// The index as `createIndexes` takes it: `key`, `name`, and `unique`,
    /// `sparse`, `partialFilterExpression`, `expireAfterSeconds`, the text
    /// options and `collation` when set.
    pub fn to_document(&self) -> BsonDocument {
        let mut spec = doc! { "key": self.keys_document(), "name": self.name };
        if self.unique {
            spec.insert("unique", true);
        }
        if self.sparse {
            spec.insert("sparse", true);
        }
        if let Some(filter) = self.partial_filter() {
            spec.insert("partialFilterExpression", filter);
        }
        if let Some(seconds) = self.expire_after {
            match i32::try_from(seconds) {
                Ok(n) => spec.insert("expireAfterSeconds", n),
                Err(_) => spec.insert("expireAfterSeconds", seconds),
            };
        }
        kinds::text_fields(self.keys, &self.text, &mut spec);
        if let Some(collation) = &self.collation {
            spec.insert("collation", collation.to_document());
        }
        spec
    }

    /// The operators of the partial filter that need a newer server than
    /// MongoDB's oldest, each once (`$or`, `$in`), and the version that
    /// accepts them; `None` when every server does.
    pub(crate) fn requires(&self) -> Option<(Version, Vec<&'static str>)> {
        let mut operators: Vec<&'static str> = Vec::new();
        for op in self.partial.iter().flat_map(Term::newer_operators) {
            if !operators.contains(&op) {
                operators.push(op);
            }
        }
        (!operators.is_empty()).then_some((PARTIAL_IN_OR, operators))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn cond(path: &'static str, op: PartialOp, value: PartialValue) -> Condition {
        Condition { path, op, value }
    }

    fn spec(partial: &'static [Term]) -> IndexSpec {
        IndexSpec {
            name: "vehicle_id_1",
            keys: &[("vehicle_id", Key::Asc)],
            unique: true,
            sparse: false,
            partial,
            expire_after: None,
            text: TextOptions::NONE,
            collation: None,
        }
    }

    #[test]
    fn several_terms_are_combined_with_and() {
        const TERMS: &[Term] = &[
            Term::Cond(cond("age", PartialOp::Gte, PartialValue::Int(18))),
            Term::Cond(cond("email", PartialOp::Exists, PartialValue::Bool(true))),
            Term::Cond(cond("score", PartialOp::Lt, PartialValue::Float(0.5))),
            Term::Cond(cond("kind", PartialOp::Type, PartialValue::Str("string"))),
        ];
        assert_eq!(
            spec(TERMS).partial_filter(),
            Some(doc! { "$and": [
                { "age": { "$gte": 18 } },
                { "email": { "$exists": true } },
                { "score": { "$lt": 0.5 } },
                { "kind": { "$type": "string" } },
            ] })
        );
        assert_eq!(spec(&[]).partial_filter(), None);
        assert_eq!(spec(TERMS).requires(), None);
    }

    #[test]
    fn in_is_a_list_and_needs_six_zero() {
        const ACTIVE: &[Term] = &[Term::Cond(cond(
            "status",
            PartialOp::In,
            PartialValue::List(&[
                PartialValue::Str("ACTIVE"),
                PartialValue::Str("PENDING"),
                PartialValue::Int(3_000_000_000),
            ]),
        ))];
        assert_eq!(
            spec(ACTIVE).to_document(),
            doc! {
                "key": { "vehicle_id": 1 },
                "name": "vehicle_id_1",
                "unique": true,
                "partialFilterExpression": {
                    "status": { "$in": ["ACTIVE", "PENDING", 3_000_000_000_i64] }
                },
            }
        );
        assert_eq!(spec(ACTIVE).requires(), Some((PARTIAL_IN_OR, vec!["$in"])));
    }

    #[test]
    fn or_branches_are_conditions_combined_with_and() {
        const TERMS: &[Term] = &[
            Term::Cond(cond("kind", PartialOp::Eq, PartialValue::Str("car"))),
            Term::Or(&[
                &[cond("a", PartialOp::Eq, PartialValue::Int(1))],
                &[
                    cond("b", PartialOp::Gt, PartialValue::Int(2)),
                    cond(
                        "c",
                        PartialOp::In,
                        PartialValue::List(&[PartialValue::Bool(true)]),
                    ),
                ],
            ]),
        ];
        assert_eq!(
            spec(TERMS).partial_filter(),
            Some(doc! { "$and": [
                { "kind": "car" },
                { "$or": [
                    { "a": 1 },
                    { "$and": [{ "b": { "$gt": 2 } }, { "c": { "$in": [true] } }] },
                ] },
            ] })
        );
        assert_eq!(
            spec(TERMS).requires(),
            Some((PARTIAL_IN_OR, vec!["$or", "$in"]))
        );
    }
}
