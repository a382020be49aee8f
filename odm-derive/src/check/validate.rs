//! Compile-time checks of the validation attributes, one function per rule.
//!
//! The field's type is classified syntactically (`u8`, `Option<String>`,
//! `Vec<Comment>`, ...). A built-in on a type it plainly cannot apply to is
//! an error spanned at the attribute; a type the macro cannot see through
//! (an alias, a user type) is left to the trait bounds of the generated
//! call (`Numeric`, `Length`, `Text`, `Optional`, `Validate`), whose
//! messages name the fix too.

use syn::{GenericArgument, PathArguments, Type};

use crate::ast::{Container, Field};
use crate::attr::validate::{Number, Rule, RuleKind};
use crate::ctxt::Ctxt;

/// The validation rules of a document or an embedded type.
pub fn check(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        for rule in &field.attrs.validate.rules {
            check_rule_type(cx, field, rule);
        }
        check_bounds_order(cx, field);
    }
}

/// What the macro can tell about a field's type from its spelling.
enum Kind {
    Int(&'static str, i128, i128),
    Float,
    Text,
    /// An array, set or map, with the kind of its elements (map values).
    Seq(Box<Kind>),
    Option(Box<Kind>),
    /// A type none of the built-ins applies to (`bool`, `ObjectId`, ...).
    Other,
    /// Not known from the spelling: the trait bounds decide.
    Unknown,
}

const INTS: &[(&str, i128, i128)] = &[
    ("i8", i8::MIN as i128, i8::MAX as i128),
    ("i16", i16::MIN as i128, i16::MAX as i128),
    ("i32", i32::MIN as i128, i32::MAX as i128),
    ("i64", i64::MIN as i128, i64::MAX as i128),
    ("i128", i128::MIN, i128::MAX),
    ("isize", i64::MIN as i128, i64::MAX as i128),
    ("u8", 0, u8::MAX as i128),
    ("u16", 0, u16::MAX as i128),
    ("u32", 0, u32::MAX as i128),
    ("u64", 0, u64::MAX as i128),
    ("usize", 0, u64::MAX as i128),
];

const OTHERS: &[&str] = &[
    "bool",
    "char",
    "ObjectId",
    "DateTime",
    "Timestamp",
    "Bson",
    "Document",
    "Uuid",
    "Decimal128",
    "Binary",
    "Regex",
];

fn type_args(args: &PathArguments) -> Vec<&Type> {
    match args {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn classify(ty: &Type) -> Kind {
    match ty {
        Type::Reference(r) => classify(&r.elem),
        Type::Paren(p) => classify(&p.elem),
        Type::Group(g) => classify(&g.elem),
        Type::Array(a) => Kind::Seq(Box::new(classify(&a.elem))),
        Type::Slice(s) => Kind::Seq(Box::new(classify(&s.elem))),
        Type::Tuple(_) => Kind::Other,
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return Kind::Unknown;
            };
            let name = last.ident.to_string();
            let args = type_args(&last.arguments);
            if let Some((n, lo, hi)) = INTS.iter().find(|(n, _, _)| *n == name) {
                return Kind::Int(n, *lo, *hi);
            }
            match (name.as_str(), args.as_slice()) {
                ("f32" | "f64", []) => Kind::Float,
                ("String" | "str", []) => Kind::Text,
                ("Option", [inner]) => Kind::Option(Box::new(classify(inner))),
                ("Box" | "Rc" | "Arc", [inner]) => classify(inner),
                ("Cow", [inner]) => classify(inner),
                ("Vec" | "VecDeque" | "HashSet" | "BTreeSet", [elem, ..]) => {
                    Kind::Seq(Box::new(classify(elem)))
                }
                ("HashMap" | "BTreeMap", [_, value, ..]) => Kind::Seq(Box::new(classify(value))),
                (other, _) if OTHERS.contains(&other) => Kind::Other,
                _ => Kind::Unknown,
            }
        }
        _ => Kind::Unknown,
    }
}

/// `Option<String>` rather than `Option < String >`.
fn type_text(ty: &Type) -> String {
    let text = quote::quote!(#ty).to_string();
    let mut out = String::with_capacity(text.len());
    let mut prev = ' ';
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let drop_space = c == ' '
            && (matches!(prev, '<' | '&' | ':' | '(' | '[')
                || matches!(next, '<' | '>' | ',' | ':' | ')' | ']' | ';'));
        if !drop_space {
            out.push(c);
        }
        prev = c;
    }
    out
}

/// The kind under one `Option`, where the built-ins look (`None` passes).
fn unwrap_option(kind: Kind) -> Kind {
    match kind {
        Kind::Option(inner) => *inner,
        other => other,
    }
}

/// A built-in on a type it cannot apply to.
fn check_rule_type(cx: &Ctxt, field: &Field, rule: &Rule) {
    let name = rule.kind.name();
    let ident = field.ident;
    let ty = type_text(field.ty);
    let error = |msg: String| cx.syn_error(syn::Error::new(rule.span, msg));
    match &rule.kind {
        RuleKind::Min(n) | RuleKind::Max(n) => match unwrap_option(classify(field.ty)) {
            Kind::Int(int, lo, hi) => match n.value {
                Number::Float(_) => cx.syn_error(syn::Error::new_spanned(
                    &n.tokens,
                    format!("`{name} = {}` is not an integer, but `{ident}` has type `{ty}`", n.text),
                )),
                Number::Int(v) if v < lo || v > hi => cx.syn_error(syn::Error::new_spanned(
                    &n.tokens,
                    format!("`{name} = {}` is out of range for `{int}` ({lo}..={hi})", n.text),
                )),
                Number::Int(_) => {}
            },
            Kind::Float | Kind::Unknown => {}
            Kind::Text | Kind::Seq(_) => error(format!(
                "`{name}` applies to numbers, but `{ident}` has type `{ty}`: for its length use `{name}_len`"
            )),
            Kind::Option(_) | Kind::Other => error(format!(
                "`{name}` applies to numbers (integers, floats, or an `Option` of one), but `{ident}` has type `{ty}`"
            )),
        },
        RuleKind::MinLen(_) | RuleKind::MaxLen(_) => match unwrap_option(classify(field.ty)) {
            Kind::Text | Kind::Seq(_) | Kind::Unknown => {}
            Kind::Int(..) | Kind::Float => error(format!(
                "`{name}` applies to strings and arrays, but `{ident}` has type `{ty}`: for numbers use `{}`",
                &name[..3]
            )),
            Kind::Option(_) | Kind::Other => error(format!(
                "`{name}` applies to strings and arrays (`String`, `Vec<_>`, sets, maps, or an `Option` of one), \
                 but `{ident}` has type `{ty}`"
            )),
        },
        RuleKind::OneOf(_) => match unwrap_option(classify(field.ty)) {
            Kind::Text | Kind::Unknown => {}
            _ => error(format!(
                "`one_of` applies to strings (`String` or `Option<String>`), but `{ident}` has type `{ty}`"
            )),
        },
        RuleKind::Required => match classify(field.ty) {
            Kind::Option(_) | Kind::Unknown => {}
            _ => error(format!(
                "`required` applies to `Option` fields, but `{ident}` has type `{ty}`, which is always present: \
                 remove `required`, or make the field `Option<{ty}>`"
            )),
        },
        RuleKind::Nested => {
            let mut kind = classify(field.ty);
            while let Kind::Option(inner) | Kind::Seq(inner) = kind {
                kind = *inner;
            }
            if !matches!(kind, Kind::Unknown) {
                error(format!(
                    "`nested` runs the validators of an embedded struct (one deriving `odm::Validate`), \
                     but `{ident}` has type `{ty}`: use the built-ins (`min`, `min_len`, `one_of`, ...) \
                     or `validate = path::to_fn` instead"
                ));
            }
        }
        RuleKind::Custom(_) => {}
    }
}

/// `min` above `max` (or `min_len` above `max_len`) fails every value.
fn check_bounds_order(cx: &Ctxt, field: &Field) {
    let rules = &field.attrs.validate.rules;
    let find = |f: &dyn Fn(&RuleKind) -> bool| rules.iter().find(|r| f(&r.kind));
    if let (Some(lo), Some(hi)) = (
        find(&|k| matches!(k, RuleKind::Min(_))),
        find(&|k| matches!(k, RuleKind::Max(_))),
    ) {
        if let (RuleKind::Min(lo_n), RuleKind::Max(hi_n)) = (&lo.kind, &hi.kind) {
            if lo_n.value.greater_than(hi_n.value) {
                cx.syn_error(syn::Error::new(
                    lo.span,
                    format!(
                        "`min = {}` is greater than `max = {}`: every value would fail",
                        lo_n.text, hi_n.text
                    ),
                ));
            }
        }
    }
    if let (Some(lo), Some(hi)) = (
        find(&|k| matches!(k, RuleKind::MinLen(_))),
        find(&|k| matches!(k, RuleKind::MaxLen(_))),
    ) {
        if let (RuleKind::MinLen(a), RuleKind::MaxLen(b)) = (&lo.kind, &hi.kind) {
            if a > b {
                cx.syn_error(syn::Error::new(
                    lo.span,
                    format!(
                        "`min_len = {a}` is greater than `max_len = {b}`: every value would fail"
                    ),
                ));
            }
        }
    }
}

/// `#[derive(Validate)]` alone makes an embedded type, not a document: the
/// document-only attributes would be silently ignored.
pub fn check_embedded(cx: &Ctxt, cont: &Container) {
    let attrs = &cont.attrs;
    let spans = [
        attrs.collection.as_ref().map(|(s, _)| (*s, "collection")),
        attrs.version_key.as_ref().map(|(s, _)| (*s, "version_key")),
        attrs.versioning.as_ref().map(|(s, _)| (*s, "versioning")),
        attrs
            .concurrency
            .as_ref()
            .map(|(s, _)| (*s, "optimistic_concurrency")),
        attrs
            .referenced_by
            .as_ref()
            .map(|(s, _)| (*s, "referenced_by")),
    ];
    let fields = cont.fields.iter().flat_map(|f| {
        let skip = f.attrs.skip_versioning.map(|s| (s, "skip_versioning"));
        let reference = f.attrs.reference.as_ref().map(|(s, _)| (*s, "reference"));
        skip.into_iter().chain(reference)
    });
    for (span, name) in spans.into_iter().flatten().chain(fields) {
        cx.syn_error(syn::Error::new(
            span,
            format!(
                "`{name}` is an attribute of `#[derive(Document)]`; `#[derive(Validate)]` alone makes an \
                 embedded type, which has no collection or version of its own (a `Document` already \
                 implements `Validate`: derive only `Document`)"
            ),
        ));
    }
}
