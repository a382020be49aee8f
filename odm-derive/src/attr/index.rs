//! Parses the index attributes: the field keys `unique`, `index`, `sparse`,
//! `partial(..)` and the container key `index(keys(..), ..)`; the partial
//! filter itself is `attr::partial`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, Ident, LitStr, Token};

use crate::attr::base::{nested_first_error, path_text, set_once};
use crate::attr::index_kinds::{KeyKind, KindAttrs};
use crate::attr::partial::{literal, parse_partial, Term};
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// A field's `unique`, `index`, `sparse`, `partial(..)`.
#[derive(Default)]
pub struct FieldIndexAttrs {
    pub unique: Option<Span>,
    pub index: Option<Span>,
    pub sparse: Option<Span>,
    pub partial: Option<(Span, Vec<Term>)>,
    /// `expire_after`, `collation(..)`.
    pub kinds: KindAttrs,
}

/// A container `index(keys(..), unique, sparse, partial(..), name = "..")`.
pub struct IndexAttr {
    pub span: Span,
    /// Where `keys(..)` was written, and the keys; empty for `wildcard`.
    pub keys_span: Option<Span>,
    pub keys: Vec<(Ident, KeyKind)>,
    pub unique: Option<Span>,
    pub sparse: Option<Span>,
    pub partial: Option<(Span, Vec<Term>)>,
    pub name: Option<LitStr>,
    /// TTL, text options, collation, wildcard.
    pub kinds: KindAttrs,
}

/// The form of the container key, for error messages.
const CONTAINER_INDEX_FORM: &str =
    "`index(keys(field = 1, other = -1), unique, sparse, partial(..), name = \"..\")`; a key is \
     1, -1, \"text\", \"2dsphere\" or \"hashed\"; other options: `expire_after = secs`, \
     `weights(field = n, ..)`, `default_language = \"..\"`, `language_override = \"..\"`, \
     `collation(locale = \"..\", ..)`, and `wildcard` / `wildcard(field)` instead of `keys(..)`";

fn key_span(meta: &ParseNestedMeta) -> Span {
    meta.path
        .get_ident()
        .map_or_else(Span::call_site, Ident::span)
}

fn no_value(meta: &ParseNestedMeta, name: &str, hint: &str) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!("`{name}` takes no value: write `{name}`{hint}")));
    }
    Ok(())
}

impl FieldIndexAttrs {
    /// `true` when `meta` is one of the field's index keys.
    pub fn accepts(meta: &ParseNestedMeta) -> bool {
        meta.path == UNIQUE
            || meta.path == INDEX
            || meta.path == SPARSE
            || meta.path == PARTIAL
            || KindAttrs::accepts_field(meta)
    }

    /// Parses one index key of a field's `#[odm(..)]`.
    pub fn parse_key(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<()> {
        let span = key_span(meta);
        if meta.path == UNIQUE {
            no_value(meta, "unique", "")?;
            set_once(cx, &mut self.unique, span, span, "unique");
        } else if meta.path == INDEX {
            no_value(
                meta,
                "index",
                " on a field; a compound index is a container attribute: \
                 `#[odm(index(keys(a = 1, b = -1)))]` on the struct",
            )?;
            set_once(cx, &mut self.index, span, span, "index");
        } else if meta.path == SPARSE {
            no_value(meta, "sparse", "")?;
            set_once(cx, &mut self.sparse, span, span, "sparse");
        } else if meta.path == PARTIAL {
            let conds = parse_partial(meta)?;
            set_once(cx, &mut self.partial, span, (span, conds), "partial");
        } else {
            self.kinds.parse(cx, meta)?;
        }
        Ok(())
    }
}

/// The container's `index(..)`.
pub fn parse_container_index(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<IndexAttr> {
    let span = key_span(meta);
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!("expected {CONTAINER_INDEX_FORM}")));
    }
    let mut keys: Option<(Span, Vec<(Ident, KeyKind)>)> = None;
    let mut kinds = KindAttrs::default();
    let mut unique = None;
    let mut sparse = None;
    let mut partial = None;
    let mut name = None;
    nested_first_error(meta, |inner| {
        let inner_span = key_span(&inner);
        if inner.path == KEYS {
            let parsed = parse_keys(&inner)?;
            set_once(cx, &mut keys, inner_span, (inner_span, parsed), "keys");
        } else if inner.path == UNIQUE {
            no_value(&inner, "unique", "")?;
            set_once(cx, &mut unique, inner_span, inner_span, "unique");
        } else if inner.path == SPARSE {
            no_value(&inner, "sparse", "")?;
            set_once(cx, &mut sparse, inner_span, inner_span, "sparse");
        } else if inner.path == PARTIAL {
            let conds = parse_partial(&inner)?;
            set_once(cx, &mut partial, inner_span, (inner_span, conds), "partial");
        } else if inner.path == NAME {
            let form = "expected `name = \"index name\"`";
            if !inner.input.peek(Token![=]) {
                return Err(inner.error(form));
            }
            let lit: LitStr = inner
                .value()?
                .parse()
                .map_err(|e| syn::Error::new(e.span(), form))?;
            set_once(cx, &mut name, inner_span, lit, "name");
        } else if KindAttrs::accepts_container(&inner) {
            kinds.parse(cx, &inner)?;
        } else {
            return Err(inner.error(format!(
                "unknown index option `{}`; expected {CONTAINER_INDEX_FORM}",
                path_text(&inner.path)
            )));
        }
        Ok(())
    })?;
    let (keys_span, keys) = match (keys, &kinds.wildcard) {
        (Some((at, _)), Some(_)) => {
            return Err(syn::Error::new(
                at,
                "a wildcard index has no `keys(..)`: `wildcard` indexes every field, \
                 `wildcard(field)` the paths under one field",
            ))
        }
        (Some((at, keys)), None) => (Some(at), keys),
        (None, Some(_)) => (None, Vec::new()),
        (None, None) => {
            return Err(syn::Error::new(
                span,
                format!("`index(..)` needs its keys: {CONTAINER_INDEX_FORM}"),
            ))
        }
    };
    Ok(IndexAttr {
        span,
        keys_span,
        keys,
        kinds,
        unique,
        sparse,
        partial,
        name,
    })
}

/// `keys(a = 1, b = -1, title = "text")`.
fn parse_keys(meta: &ParseNestedMeta) -> syn::Result<Vec<(Ident, KeyKind)>> {
    let form = "expected `keys(field = 1, other = -1)` (1 ascending, -1 descending, or \
                \"text\", \"2dsphere\", \"hashed\")";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(form));
    }
    let mut keys = Vec::new();
    nested_first_error(meta, |key| {
        let Some(ident) = key.path.get_ident().cloned() else {
            return Err(key.error("expected a field name"));
        };
        if !key.input.peek(Token![=]) {
            return Err(key.error(format!(
                "expected `{ident} = 1` (ascending), `{ident} = -1` (descending), or `{ident} = \"text\"`, \
                 `\"2dsphere\"`, `\"hashed\"`"
            )));
        }
        let expr: Expr = key.value()?.parse()?;
        match literal(&expr).as_ref().and_then(KeyKind::from_value) {
            Some(kind) => keys.push((ident, kind)),
            None => {
                return Err(syn::Error::new_spanned(
                    &expr,
                    "an index key is 1 (ascending), -1 (descending), \"text\", \"2dsphere\" or \"hashed\"",
                ))
            }
        }
        Ok(())
    })?;
    if keys.is_empty() {
        return Err(meta.error(form));
    }
    Ok(keys)
}
