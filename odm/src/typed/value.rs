//! Which values a typed path takes, checked at compile time.
//!
//! A filter on a field of type `F` takes a value `V: Value<F>`; an update
//! (`set`, `push`) takes `V: Store<F>`, the stricter rule, since what it
//! takes is written into the document. Each value is encoded as serde
//! serializes it (the same `bson` encoding a save writes), so renames and
//! custom `Serialize` impls on the value's type hold.
//!
//! | field | a filter value | an update value |
//! |---|---|---|
//! | `T` | `T` | `T` |
//! | `String` | `String`, `&str`, `&String` | the same |
//! | `Option<T>` | `T`, `Option<T>` (`None` is null) | the same |
//! | `Vec<T>` | `Vec<T>`, or `T` (matches an element) | `Vec<T>` |

use std::collections::{BTreeSet, HashSet, VecDeque};

use mongodb::bson::Bson;
use serde::Serialize;

/// A value a filter compares with a field of type `F`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value to compare with a field of type `{F}`",
    label = "expected a `{F}` here",
    note = "a filter takes the field's own type (`&str` for a `String`, `T` or `None` for an `Option<T>`, \
            `T` for an element of a `Vec<T>`)"
)]
pub trait Value<F> {
    /// The value as serde would store it.
    #[doc(hidden)]
    fn encode(self) -> Encoded;
}

/// A value an update may write into a field of type `F`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored in a field of type `{F}`",
    label = "expected a `{F}` here",
    note = "an update takes the field's own type (`&str` for a `String`, `T` or `None` for an `Option<T>`)"
)]
pub trait Store<F> {
    /// The value as serde would store it.
    #[doc(hidden)]
    fn encode(self) -> Encoded;
}

/// An encoded value, or why the value has no BSON form.
#[doc(hidden)]
pub type Encoded = Result<Bson, String>;

/// `value` as `bson` serializes it.
pub(crate) fn encode<V: Serialize + ?Sized>(value: &V) -> Encoded {
    mongodb::bson::to_bson(value).map_err(|e| e.to_string())
}

impl<T: Serialize> Value<T> for T {
    fn encode(self) -> Encoded {
        encode(&self)
    }
}

impl<T: Serialize> Value<Option<T>> for T {
    fn encode(self) -> Encoded {
        encode(&self)
    }
}

impl<T: Serialize> Value<Vec<T>> for T {
    fn encode(self) -> Encoded {
        encode(&self)
    }
}

impl<T: Serialize> Store<T> for T {
    fn encode(self) -> Encoded {
        encode(&self)
    }
}

impl<T: Serialize> Store<Option<T>> for T {
    fn encode(self) -> Encoded {
        encode(&self)
    }
}

/// `&str` and `&String` for a `String`, wherever a `String` goes.
macro_rules! text {
    ($($field:ty),*) => {$(
        impl Value<$field> for &str {
            fn encode(self) -> Encoded {
                Ok(Bson::String(self.to_string()))
            }
        }
        impl Value<$field> for &String {
            fn encode(self) -> Encoded {
                Ok(Bson::String(self.clone()))
            }
        }
    )*};
}

text!(String, Option<String>, Vec<String>);

impl Store<String> for &str {
    fn encode(self) -> Encoded {
        Ok(Bson::String(self.to_string()))
    }
}

impl Store<Option<String>> for &str {
    fn encode(self) -> Encoded {
        Ok(Bson::String(self.to_string()))
    }
}

impl Store<String> for &String {
    fn encode(self) -> Encoded {
        Ok(Bson::String(self.clone()))
    }
}

impl Store<Option<String>> for &String {
    fn encode(self) -> Encoded {
        Ok(Bson::String(self.clone()))
    }
}

/// A field holding many values: the array operators (`contains`, `all`,
/// `size`, `elem_match`, `push`, `pull`) take its element type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an array field",
    label = "array operators need a `Vec`, `VecDeque`, set or array field",
    note = "`contains`, `all`, `size`, `elem_match`, `push` and `pull` apply to arrays"
)]
pub trait Seq {
    /// The type of one element.
    type Elem;
}

impl<T> Seq for Vec<T> {
    type Elem = T;
}

impl<T> Seq for VecDeque<T> {
    type Elem = T;
}

impl<T, S> Seq for HashSet<T, S> {
    type Elem = T;
}

impl<T> Seq for BTreeSet<T> {
    type Elem = T;
}

impl<T, const N: usize> Seq for [T; N] {
    type Elem = T;
}

impl<S: Seq> Seq for Option<S> {
    type Elem = S::Elem;
}

/// A numeric field: what `inc` applies to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `inc` applies to numeric fields only",
    label = "not a numeric field"
)]
pub trait Number {}

macro_rules! numeric {
    ($($t:ty),*) => {$( impl Number for $t {} )*};
}

numeric!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl<N: Number> Number for Option<N> {}

/// A field that may be absent: what `unset` applies to.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is required: only an `Option` field can be unset",
    label = "unsetting it would leave a document that no longer loads"
)]
pub trait Nullable {}

impl<T> Nullable for Option<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::oid::ObjectId;

    fn filter<F, V: Value<F>>(v: V) -> Encoded {
        v.encode()
    }

    fn store<F, V: Store<F>>(v: V) -> Encoded {
        v.encode()
    }

    #[derive(Serialize)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    enum Status {
        OnHold,
    }

    #[test]
    fn integer_literals_take_the_field_type() {
        assert_eq!(filter::<u32, _>(18), Ok(Bson::Int64(18)));
        assert_eq!(filter::<i32, _>(18), Ok(Bson::Int32(18)));
        assert_eq!(filter::<i64, _>(18), Ok(Bson::Int64(18)));
        assert_eq!(filter::<Option<i32>, _>(18), Ok(Bson::Int32(18)));
        assert_eq!(filter::<Vec<i32>, _>(18), Ok(Bson::Int32(18)));
        assert_eq!(filter::<f64, _>(1.5), Ok(Bson::Double(1.5)));
        assert_eq!(store::<Option<i64>, _>(3), Ok(Bson::Int64(3)));
    }

    #[test]
    fn text_and_null() {
        assert_eq!(filter::<String, _>("a"), Ok(Bson::String("a".into())));
        let owned = String::from("b");
        assert_eq!(filter::<String, _>(&owned), Ok(Bson::String("b".into())));
        assert_eq!(filter::<String, _>(owned), Ok(Bson::String("b".into())));
        assert_eq!(
            filter::<Option<String>, _>("c"),
            Ok(Bson::String("c".into()))
        );
        assert_eq!(filter::<Option<String>, _>(None), Ok(Bson::Null));
        assert_eq!(store::<Option<String>, _>(None), Ok(Bson::Null));
        assert_eq!(filter::<Vec<String>, _>("t"), Ok(Bson::String("t".into())));
    }

    #[test]
    fn values_are_encoded_as_serde_stores_them() {
        assert_eq!(
            filter::<Status, _>(Status::OnHold),
            Ok(Bson::String("ON_HOLD".into()))
        );
        let id = ObjectId::new();
        assert_eq!(filter::<ObjectId, _>(id), Ok(Bson::ObjectId(id)));
        assert!(filter::<u64, _>(u64::MAX).is_err());
    }
}
