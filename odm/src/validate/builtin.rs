//! The built-in checks (`min`, `max`, `min_len`, `max_len`, `one_of`,
//! `required`) and the glue for custom and nested validators. Each takes
//! the value, its path and the error list, and pushes one failure or none.
//!
//! An absent value (`None`) passes every check except `required`, so
//! `#[odm(required, min_len = 3)]` reads "present and at least 3 long".

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;

use super::{Path, Validate};
use crate::error::{ValidationError, ValidationErrors};

/// A number as written in `min = n` / `max = n`, or read from a field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    /// Any integer (every Rust integer type up to `i128`, and `u64`, fits).
    Int(i128),
    /// A floating-point number.
    Float(f64),
}

impl Num {
    /// Integers compare exactly; a float on either side compares as `f64`.
    /// `None` when a NaN is involved.
    fn compare(self, other: Num) -> Option<Ordering> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(&b)),
            (a, b) => a.as_f64().partial_cmp(&b.as_f64()),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Num::Int(n) => n as f64,
            Num::Float(x) => x,
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(n) => n.fmt(f),
            Num::Float(x) => x.fmt(f),
        }
    }
}

/// A number `min` / `max` can check: the integer and float types, and an
/// `Option` (`None` passes), `Box` or reference of one.
#[diagnostic::on_unimplemented(
    message = "`min` / `max` apply to numbers, and `{Self}` is not a number",
    label = "not a number",
    note = "`min`/`max` take integer and float fields (or an `Option` of one); for the length of a string or an array use `min_len` / `max_len`"
)]
pub trait Numeric {
    /// The value, `None` when absent.
    fn number(&self) -> Option<Num>;
}

macro_rules! numeric {
    ($variant:ident: $($t:ty),*) => {$(
        impl Numeric for $t {
            fn number(&self) -> Option<Num> {
                Some(Num::$variant((*self).into()))
            }
        }
    )*};
}
numeric!(Int: i8, i16, i32, i64, i128, u8, u16, u32, u64);
numeric!(Float: f32, f64);

impl Numeric for isize {
    fn number(&self) -> Option<Num> {
        Some(Num::Int(*self as i128))
    }
}

impl Numeric for usize {
    fn number(&self) -> Option<Num> {
        Some(Num::Int(*self as i128))
    }
}

/// A length `min_len` / `max_len` can check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Len {
    /// A string's length in characters (Unicode scalar values).
    Chars(usize),
    /// A collection's number of elements (or entries).
    Items(usize),
}

/// A value with a length: strings (counted in characters, not bytes),
/// `Vec`, slices, arrays, `VecDeque`, sets and maps, and an `Option`
/// (`None` passes), `Box` or reference of one.
#[diagnostic::on_unimplemented(
    message = "`min_len` / `max_len` apply to strings and arrays, and `{Self}` has no length",
    label = "has no length",
    note = "`min_len`/`max_len` take `String`, `Vec<_>`, sets, maps (or an `Option` of one); for numbers use `min` / `max`"
)]
pub trait Length {
    /// The length, `None` when absent.
    fn length(&self) -> Option<Len>;
}

impl Length for str {
    fn length(&self) -> Option<Len> {
        Some(Len::Chars(self.chars().count()))
    }
}

impl Length for String {
    fn length(&self) -> Option<Len> {
        self.as_str().length()
    }
}

impl Length for Cow<'_, str> {
    fn length(&self) -> Option<Len> {
        (**self).length()
    }
}

macro_rules! items {
    ($( [$($gen:tt)*] $t:ty ),*) => {$(
        impl<$($gen)*> Length for $t {
            fn length(&self) -> Option<Len> {
                Some(Len::Items(self.len()))
            }
        }
    )*};
}
items!(
    [T] [T],
    [T, const N: usize] [T; N],
    [T] Vec<T>,
    [T] VecDeque<T>,
    [T, S] HashSet<T, S>,
    [T] BTreeSet<T>,
    [K, V, S] HashMap<K, V, S>,
    [K, V] BTreeMap<K, V>
);

/// A string `one_of` can check: `String`, `str`, `Cow<str>`, and an
/// `Option` (`None` passes), `Box` or reference of one.
#[diagnostic::on_unimplemented(
    message = "`one_of` applies to strings, and `{Self}` is not a string",
    label = "not a string",
    note = "`one_of(\"A\", \"B\")` takes `String` fields (or an `Option<String>`)"
)]
pub trait Text {
    /// The text, `None` when absent.
    fn text(&self) -> Option<&str>;
}

impl Text for str {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl Text for String {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl Text for Cow<'_, str> {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

/// A value that may be absent: `Option`, for `required`.
#[diagnostic::on_unimplemented(
    message = "`required` applies to `Option` fields, and `{Self}` is not an `Option`",
    label = "always present",
    note = "a non-`Option` field cannot be missing: remove `required`, or make the field an `Option<_>`"
)]
pub trait Optional {
    /// `true` when the value is there (`Some`).
    fn is_present(&self) -> bool;
}

impl<T> Optional for Option<T> {
    fn is_present(&self) -> bool {
        self.is_some()
    }
}

/// `Option` (absent when `None`), references and smart pointers delegate.
macro_rules! delegate {
    ($($trait:ident :: $method:ident -> $out:ty),*) => {$(
        impl<T: $trait> $trait for Option<T> {
            fn $method(&self) -> Option<$out> {
                self.as_ref().and_then(T::$method)
            }
        }
        impl<T: $trait + ?Sized> $trait for &T {
            fn $method(&self) -> Option<$out> {
                (**self).$method()
            }
        }
        impl<T: $trait + ?Sized> $trait for Box<T> {
            fn $method(&self) -> Option<$out> {
                (**self).$method()
            }
        }
        impl<T: $trait + ?Sized> $trait for Rc<T> {
            fn $method(&self) -> Option<$out> {
                (**self).$method()
            }
        }
        impl<T: $trait + ?Sized> $trait for Arc<T> {
            fn $method(&self) -> Option<$out> {
                (**self).$method()
            }
        }
    )*};
}
delegate!(Numeric::number -> Num, Length::length -> Len);

impl<T: Text> Text for Option<T> {
    fn text(&self) -> Option<&str> {
        self.as_ref().and_then(T::text)
    }
}

impl<T: Text + ?Sized> Text for &T {
    fn text(&self) -> Option<&str> {
        (**self).text()
    }
}

impl<T: Text + ?Sized> Text for Box<T> {
    fn text(&self) -> Option<&str> {
        (**self).text()
    }
}

impl<T: Text + ?Sized> Text for Rc<T> {
    fn text(&self) -> Option<&str> {
        (**self).text()
    }
}

impl<T: Text + ?Sized> Text for Arc<T> {
    fn text(&self) -> Option<&str> {
        (**self).text()
    }
}

/// `min = bound`: fails below the bound, and on NaN.
pub fn min<V: Numeric + ?Sized>(value: &V, bound: Num, at: &Path, errors: &mut ValidationErrors) {
    if let Some(n) = value.number() {
        if !matches!(n.compare(bound), Some(Ordering::Greater | Ordering::Equal)) {
            at.fail_with(errors, format!("must be at least {bound}"), n);
        }
    }
}

/// `max = bound`: fails above the bound, and on NaN.
pub fn max<V: Numeric + ?Sized>(value: &V, bound: Num, at: &Path, errors: &mut ValidationErrors) {
    if let Some(n) = value.number() {
        if !matches!(n.compare(bound), Some(Ordering::Less | Ordering::Equal)) {
            at.fail_with(errors, format!("must be at most {bound}"), n);
        }
    }
}

fn length_message(which: &str, bound: usize, len: Len) -> String {
    let s = if bound == 1 { "" } else { "s" };
    match len {
        Len::Chars(n) => format!("must be at {which} {bound} character{s} long (is {n})"),
        Len::Items(n) => format!("must have at {which} {bound} item{s} (has {n})"),
    }
}

/// `min_len = bound`.
pub fn min_len<V: Length + ?Sized>(
    value: &V,
    bound: usize,
    at: &Path,
    errors: &mut ValidationErrors,
) {
    if let Some(len) = value.length() {
        let (Len::Chars(n) | Len::Items(n)) = len;
        if n < bound {
            at.fail(errors, length_message("least", bound, len));
        }
    }
}

/// `max_len = bound`.
pub fn max_len<V: Length + ?Sized>(
    value: &V,
    bound: usize,
    at: &Path,
    errors: &mut ValidationErrors,
) {
    if let Some(len) = value.length() {
        let (Len::Chars(n) | Len::Items(n)) = len;
        if n > bound {
            at.fail(errors, length_message("most", bound, len));
        }
    }
}

/// `one_of("A", "B")`: the exact text must be one of the choices.
pub fn one_of<V: Text + ?Sized>(
    value: &V,
    choices: &[&str],
    at: &Path,
    errors: &mut ValidationErrors,
) {
    if let Some(text) = value.text() {
        if !choices.contains(&text) {
            let list: Vec<String> = choices.iter().map(|c| format!("{c:?}")).collect();
            let text = format!("{text:?}");
            at.fail_with(errors, format!("must be one of {}", list.join(", ")), text);
        }
    }
}

/// `required`: an `Option` field must be `Some`.
pub fn required<V: Optional + ?Sized>(value: &V, at: &Path, errors: &mut ValidationErrors) {
    if !value.is_present() {
        at.fail(errors, "is required");
    }
}

/// A field's `validate = f`: `f(&value)`; an `Err(message)` fails at the field.
pub fn field<V: ?Sized, F>(value: &V, check: F, at: &Path, errors: &mut ValidationErrors)
where
    F: FnOnce(&V) -> Result<(), String>,
{
    if let Err(message) = check(value) {
        at.fail(errors, message);
    }
}

/// A container's `validate = f`: `f(&value)`; the path of an `Err` is
/// relative to the value (`""` means the value itself).
pub fn container<V: ?Sized, F>(value: &V, check: F, at: &Path, errors: &mut ValidationErrors)
where
    F: FnOnce(&V) -> Result<(), ValidationError>,
{
    if let Err(e) = check(value) {
        errors.push(e.under(|path| at.join(path)));
    }
}

/// A field marked `#[odm(nested)]`: the embedded value's own validators.
pub fn nested<V: Validate + ?Sized>(value: &V, at: &Path, errors: &mut ValidationErrors) {
    value.validate_at(at, errors);
}

/// Runs `rules` on `value` read as the field type `F`, at the top-level
/// field `name`; a value that is not an `F` fails with why. For the field
/// rules of a set-based write's `$set` (generated code calls it).
pub fn check_field<F, R>(
    name: &str,
    value: &mongodb::bson::Bson,
    errors: &mut ValidationErrors,
    rules: R,
) where
    F: serde::de::DeserializeOwned,
    R: FnOnce(&F, &Path<'_>, &mut ValidationErrors),
{
    let at = Path::ROOT;
    let at = at.field(name);
    match crate::bson_release::from_bson::<F>(value.clone()) {
        Ok(typed) => rules(&typed, &at, errors),
        Err(e) => at.fail(errors, format!("does not fit the field's type: {e}")),
    }
}
