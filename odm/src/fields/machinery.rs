//! The machinery of typed paths, named by generated code only (through
//! `odm::__private::fields`), not public API.

use std::marker::PhantomData;

use super::Fields;

/// The path a set of accessors sits under, as a type, so that every path
/// is a constant.
#[doc(hidden)]
pub trait Prefix: 'static {
    /// The dotted path; empty at the root.
    const PATH: &'static str;
}

/// The document's root: no prefix.
#[doc(hidden)]
pub enum Root {}

impl Prefix for Root {
    const PATH: &'static str = "";
}

/// One field's BSON name, as a type (the derive makes one per field).
#[doc(hidden)]
pub trait Segment: 'static {
    /// The BSON name, after serde's renames.
    const NAME: &'static str;
}

/// `P` followed by the field `S`.
#[doc(hidden)]
pub struct Join<P, S>(PhantomData<fn() -> (P, S)>);

impl<P: Prefix, S: Segment> Join<P, S> {
    const JOINED: Joined = Joined::new(&[P::PATH, S::NAME]);
    const JOINED_REF: &'static Joined = &Self::JOINED;
}

impl<P: Prefix, S: Segment> Prefix for Join<P, S> {
    const PATH: &'static str = if P::PATH.is_empty() {
        S::NAME
    } else {
        Self::JOINED_REF.as_str()
    };
}

/// A top-level field of the document `T`, as the marker type of its name
/// (the derive implements it for each stored field of a document): what
/// [`Doc::field_mut`](crate::Doc::field_mut) and [`Doc::push`](crate::Doc::push) reach.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` names no field of `{T}` of this type",
    label = "a path of another model",
    note = "`Doc::<{T}>::field_mut` and `push` take a path of `{T}::fields()`"
)]
pub trait Member<T, V>: Segment {
    /// The field's bit among the fields a save may know unchanged
    /// (`Schema::__odm_tracked`); `usize::MAX` when it has none.
    const INDEX: usize;
    /// The field (of type `V`) of `value`, and nothing else of it.
    fn get(value: &mut T) -> &mut V;
}

/// The path `Self` of a top-level field of the document `T`, of type `V`:
/// what [`Doc::field_mut`](crate::Doc::field_mut) and [`Doc::push`](crate::Doc::push) take.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`field_mut` and `push` take the path of a top-level field of `{T}`",
    label = "a nested path, or not a path of `{T}`",
    note = "pass `{T}::fields().field()`, one field deep; a nested field is changed through its top-level field"
)]
pub trait TopLevel<T, V> {
    /// [`Member::INDEX`].
    const INDEX: usize;
    /// [`Member::get`].
    fn get(value: &mut T) -> &mut V;
}

impl<T, V, S: Member<T, V>> TopLevel<T, V> for Join<Root, S> {
    const INDEX: usize = S::INDEX;
    #[inline]
    fn get(value: &mut T) -> &mut V {
        S::get(value)
    }
}

/// A set of accessors (the struct the derive generates), reachable as a
/// constant reference.
#[doc(hidden)]
pub trait PathSet: 'static {
    /// The accessors; a zero-sized value.
    const REF: &'static Self;
}

/// Types whose paths continue into a struct with [`Fields`]: the struct,
/// and a `Vec`, `VecDeque`, array or `Option` of one. (An unmet bound ends
/// at `Fields`, whose message says what to derive.)
#[doc(hidden)]
pub trait Nest {
    /// The struct the paths continue into.
    type Elem: Fields;
}

impl<T: Fields> Nest for T {
    type Elem = T;
}

impl<T: Nest> Nest for Option<T> {
    type Elem = T::Elem;
}

impl<T: Nest> Nest for Vec<T> {
    type Elem = T::Elem;
}

impl<T: Nest> Nest for std::collections::VecDeque<T> {
    type Elem = T::Elem;
}

impl<T: Nest, const N: usize> Nest for [T; N] {
    type Elem = T::Elem;
}

/// Maps whose values have paths: a listed path goes on after a key
/// (`prefs."dark".enabled`). An `Option` of one too.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a map whose values have typed field paths",
    label = "no field of a map value to name here",
    note = "after a map key only the fields of a map value deriving `odm::Fields` can follow; \
            quote a segment (`\"name\"`) to write it unchecked"
)]
pub trait MapOf {
    /// The struct of the values.
    type Elem: Fields;
}

impl<K, V: Nest, S> MapOf for std::collections::HashMap<K, V, S> {
    type Elem = V::Elem;
}

impl<K, V: Nest> MapOf for std::collections::BTreeMap<K, V> {
    type Elem = V::Elem;
}

impl<M: MapOf> MapOf for Option<M> {
    type Elem = M::Elem;
}

/// [`FieldPath`] and [`Flattened`]: a step of a path written in an
/// attribute, which the next segment goes into.
#[doc(hidden)]
pub trait Step {
    /// The path the step leads to (for a flattened field, its parent's).
    const PATH: &'static str;
}

/// A step whose field's type has [`Fields`] (through [`Nest`]).
#[doc(hidden)]
pub trait Descend {
    /// The accessors of the fields under the step.
    type Sub: PathSet;
}

/// A step whose field is a map of values with [`Fields`].
#[doc(hidden)]
pub trait DescendMap {
    /// The accessors of the fields of one value, relative to it.
    type Sub: PathSet;
}

/// The accessors of a type, at the root.
#[doc(hidden)]
pub const fn root<T: Fields>() -> &'static T::Paths<Root> {
    <T::Paths<Root> as PathSet>::REF
}

/// The path of a step, as a constant.
#[doc(hidden)]
pub const fn path<S: Step>(_: &S) -> &'static str {
    S::PATH
}

/// The accessors of the fields under a step.
#[doc(hidden)]
pub const fn sub<S: Descend>(_: &S) -> &'static S::Sub {
    S::Sub::REF
}

/// The accessors of the values of the map at a step, relative to one value.
#[doc(hidden)]
pub const fn map_value<S: DescendMap>(_: &S) -> &'static S::Sub {
    S::Sub::REF
}

/// The longest path [`Joined`] holds, in bytes.
const CAPACITY: usize = 512;

/// Dotted paths joined at compile time, in a fixed buffer (constant
/// evaluation cannot allocate).
#[doc(hidden)]
pub struct Joined {
    bytes: [u8; CAPACITY],
    len: usize,
}

impl Joined {
    /// The non-empty `parts` joined by `.`; fails to compile when longer
    /// than the buffer.
    pub const fn new(parts: &[&str]) -> Joined {
        Joined::build(parts, true)
    }

    /// The `parts` one after the other (an enum model's index name made
    /// of typed paths); fails to compile when longer than the buffer.
    pub const fn concat(parts: &[&str]) -> Joined {
        Joined::build(parts, false)
    }

    const fn build(parts: &[&str], dotted: bool) -> Joined {
        let mut bytes = [0u8; CAPACITY];
        let mut len = 0;
        let mut i = 0;
        while i < parts.len() {
            let part = parts[i].as_bytes();
            i += 1;
            if part.is_empty() {
                continue;
            }
            if len > 0 && dotted {
                assert!(len < CAPACITY, "a field path is longer than 512 bytes");
                bytes[len] = b'.';
                len += 1;
            }
            assert!(
                part.len() <= CAPACITY - len,
                "a field path is longer than 512 bytes"
            );
            let mut j = 0;
            while j < part.len() {
                bytes[len + j] = part[j];
                j += 1;
            }
            len += part.len();
        }
        Joined { bytes, len }
    }

    /// The joined path.
    pub const fn as_str(&'static self) -> &'static str {
        let (joined, _) = self.bytes.split_at(self.len);
        match std::str::from_utf8(joined) {
            Ok(path) => path,
            // Whole `&str`s joined by `.` are UTF-8.
            Err(_) => panic!("a joined path is UTF-8"),
        }
    }
}
