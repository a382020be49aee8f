//! Parses the index kinds and their options: the key kinds of
//! `keys(title = "text", loc = "2dsphere", h = "hashed")`, `wildcard`,
//! `expire_after = secs` (TTL), the text options `weights(..)`,
//! `default_language`, `language_override`, and `collation(..)`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, Ident, Token};

use crate::attr::base::{nested_first_error, path_text, set_once, string_value};
use crate::attr::partial::{literal, Value};
use crate::ctxt::Ctxt;

/// One key of an index: a direction or a kind.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    Asc,
    Desc,
    Text,
    Sphere,
    Hashed,
}

impl KeyKind {
    /// How MongoDB writes it in a default index name: `1`, `-1`, `text`, ..
    pub fn name_part(self) -> &'static str {
        match self {
            KeyKind::Asc => "1",
            KeyKind::Desc => "-1",
            KeyKind::Text => "text",
            KeyKind::Sphere => "2dsphere",
            KeyKind::Hashed => "hashed",
        }
    }

    /// The kind a key's value names, if it is one.
    pub fn from_value(value: &Value) -> Option<KeyKind> {
        match value {
            Value::Int(1) => Some(KeyKind::Asc),
            Value::Int(-1) => Some(KeyKind::Desc),
            Value::Str(s) if s == "text" => Some(KeyKind::Text),
            Value::Str(s) if s == "2dsphere" => Some(KeyKind::Sphere),
            Value::Str(s) if s == "hashed" => Some(KeyKind::Hashed),
            _ => None,
        }
    }
}

/// `collation(locale = "en", strength = 2, ..)` as written.
pub struct CollationAttr {
    pub locale: String,
    pub strength: Option<i32>,
    pub case_level: Option<bool>,
    pub case_first: Option<String>,
    pub numeric_ordering: Option<bool>,
}

/// The kind options of one index, each with where it was written.
#[derive(Default)]
pub struct KindAttrs {
    pub expire_after: Option<(Span, i64)>,
    pub weights: Option<(Span, Vec<(Ident, i32)>)>,
    pub default_language: Option<(Span, String)>,
    pub language_override: Option<(Span, String)>,
    pub collation: Option<(Span, CollationAttr)>,
    /// `wildcard` (`None`) or `wildcard(field)`.
    pub wildcard: Option<(Span, Option<Ident>)>,
}

const FIELD_KEYS: &[&str] = &["expire_after", "collation"];
const CONTAINER_KEYS: &[&str] = &[
    "expire_after",
    "collation",
    "weights",
    "default_language",
    "language_override",
    "wildcard",
];

fn is_one_of(meta: &ParseNestedMeta, keys: &[&str]) -> bool {
    meta.path
        .get_ident()
        .is_some_and(|i| keys.iter().any(|k| i == k))
}

impl KindAttrs {
    /// `true` when `meta` is a kind option a field's `#[odm(..)]` takes.
    pub fn accepts_field(meta: &ParseNestedMeta) -> bool {
        is_one_of(meta, FIELD_KEYS)
    }

    /// `true` when `meta` is a kind option the container's `index(..)` takes.
    pub fn accepts_container(meta: &ParseNestedMeta) -> bool {
        is_one_of(meta, CONTAINER_KEYS)
    }

    /// Parses one kind option.
    pub fn parse(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<()> {
        let span = meta
            .path
            .get_ident()
            .map_or_else(Span::call_site, Ident::span);
        let key = path_text(&meta.path);
        match key.as_str() {
            "expire_after" => {
                let form = "expected `expire_after = seconds`: a TTL index removes a document \
                            that many seconds after the date in the field";
                let n = int_value(meta, form)?;
                if !(0..=i64::from(i32::MAX)).contains(&n.0) {
                    return Err(syn::Error::new(
                        n.1,
                        "`expire_after` is a number of seconds from 0 to 2147483647",
                    ));
                }
                set_once(
                    cx,
                    &mut self.expire_after,
                    span,
                    (span, n.0),
                    "expire_after",
                );
            }
            "weights" => {
                let weights = parse_weights(meta)?;
                set_once(cx, &mut self.weights, span, (span, weights), "weights");
            }
            "default_language" | "language_override" => {
                let lit = string_value(meta, &key)?;
                if lit.value().is_empty() {
                    return Err(syn::Error::new(lit.span(), format!("`{key}` is empty")));
                }
                let slot = if key == "default_language" {
                    &mut self.default_language
                } else {
                    &mut self.language_override
                };
                set_once(cx, slot, span, (span, lit.value()), &key);
            }
            "collation" => {
                let collation = parse_collation(meta)?;
                set_once(
                    cx,
                    &mut self.collation,
                    span,
                    (span, collation),
                    "collation",
                );
            }
            _ => {
                let path =
                    if meta.input.peek(syn::token::Paren) {
                        let mut field = None;
                        nested_first_error(meta, |inner| {
                            match inner.path.get_ident() {
                                Some(ident) if field.is_none() && inner.input.is_empty() => {
                                    field = Some(ident.clone())
                                }
                                _ => return Err(inner.error(
                                    "expected `wildcard` (every field) or `wildcard(field)` (the \
                                     paths under one field)",
                                )),
                            }
                            Ok(())
                        })?;
                        field
                    } else if meta.input.peek(Token![=]) {
                        return Err(meta.error(
                        "expected `wildcard` (every field) or `wildcard(field)` (the paths under \
                         one field)",
                    ));
                    } else {
                        None
                    };
                set_once(cx, &mut self.wildcard, span, (span, path), "wildcard");
            }
        }
        Ok(())
    }
}

fn int_value(meta: &ParseNestedMeta, form: &str) -> syn::Result<(i64, Span)> {
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(form));
    }
    let expr: Expr = meta.value()?.parse()?;
    match literal(&expr) {
        Some(Value::Int(n)) => Ok((n, syn::spanned::Spanned::span(&expr))),
        _ => Err(syn::Error::new_spanned(&expr, form)),
    }
}

fn bool_value(meta: &ParseNestedMeta, name: &str) -> syn::Result<bool> {
    let form = format!("expected `{name} = true` or `{name} = false`");
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(&form));
    }
    let lit: syn::LitBool = meta
        .value()?
        .parse()
        .map_err(|e| syn::Error::new(e.span(), &form))?;
    Ok(lit.value)
}

/// `weights(title = 10, body = 2)`.
fn parse_weights(meta: &ParseNestedMeta) -> syn::Result<Vec<(Ident, i32)>> {
    let form =
        "expected `weights(field = 10, other = 2)`: the weight of each text field, 1 to 99999";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(form));
    }
    let mut weights = Vec::new();
    nested_first_error(meta, |w| {
        let Some(ident) = w.path.get_ident().cloned() else {
            return Err(w.error("expected a field name"));
        };
        let (n, span) = int_value(&w, form)?;
        if !(1..=99_999).contains(&n) {
            return Err(syn::Error::new(span, "a text weight is from 1 to 99999"));
        }
        weights.push((ident, n as i32));
        Ok(())
    })?;
    if weights.is_empty() {
        return Err(meta.error(form));
    }
    Ok(weights)
}

/// `collation(locale = "en", strength = 2, case_level = true,
/// case_first = "upper", numeric_ordering = true)`.
fn parse_collation(meta: &ParseNestedMeta) -> syn::Result<CollationAttr> {
    let form = "expected `collation(locale = \"en\", strength = 2)`; options: `locale` (required), \
                `strength = 1..5`, `case_level = bool`, `case_first = \"upper\" | \"lower\" | \"off\"`, \
                `numeric_ordering = bool`";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(form));
    }
    let mut locale = None;
    let mut out = CollationAttr {
        locale: String::new(),
        strength: None,
        case_level: None,
        case_first: None,
        numeric_ordering: None,
    };
    nested_first_error(meta, |opt| {
        let name = path_text(&opt.path);
        match name.as_str() {
            "locale" => {
                let lit = string_value(&opt, "locale")?;
                if lit.value().is_empty() {
                    return Err(syn::Error::new(
                        lit.span(),
                        "`locale` is empty; write a locale such as \"en\", or \"simple\" for binary comparison",
                    ));
                }
                locale = Some(lit.value());
            }
            "strength" => {
                let (n, span) =
                    int_value(&opt, "expected `strength = 1..5` (2: case-insensitive)")?;
                if !(1..=5).contains(&n) {
                    return Err(syn::Error::new(span, "a collation strength is from 1 to 5"));
                }
                out.strength = Some(n as i32);
            }
            "case_level" => out.case_level = Some(bool_value(&opt, "case_level")?),
            "numeric_ordering" => {
                out.numeric_ordering = Some(bool_value(&opt, "numeric_ordering")?)
            }
            "case_first" => {
                let lit = string_value(&opt, "case_first")?;
                if !["upper", "lower", "off"].contains(&lit.value().as_str()) {
                    return Err(syn::Error::new(
                        lit.span(),
                        "`case_first` is \"upper\", \"lower\" or \"off\"",
                    ));
                }
                out.case_first = Some(lit.value());
            }
            _ => return Err(opt.error(format!("unknown collation option `{name}`; {form}"))),
        }
        Ok(())
    })?;
    let Some(locale) = locale else {
        return Err(meta.error(format!("a collation needs its `locale`; {form}")));
    };
    out.locale = locale;
    Ok(out)
}
