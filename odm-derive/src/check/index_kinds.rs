//! Rules for the index kinds, one function each (called from
//! `check::index::check`): the combinations MongoDB refuses are compile
//! errors at the option that makes them wrong.

use proc_macro2::Span;

use crate::ast::Container;
use crate::attr::index_kinds::{KeyKind, KindAttrs};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container) {
    check_lonely_field_options(cx, cont);
    for index in &cont.attrs.indexes {
        let keys: Vec<KeyKind> = index.keys.iter().map(|(_, k)| *k).collect();
        let wildcard = index.kinds.wildcard.is_some();
        check_ttl(cx, &index.kinds, &keys, wildcard);
        check_text_options(cx, cont, index);
        check_hashed(cx, &keys, index.unique, index.keys_span);
        if let (Some(unique), true) = (index.unique, wildcard) {
            cx.syn_error(syn::Error::new(
                unique,
                "a wildcard index cannot be `unique` (MongoDB refuses it); declare a unique \
                 index on the fields that must be unique",
            ));
        }
        if let Some((_, Some(field))) = &index.kinds.wildcard {
            crate::check::index::unknown_field(cx, cont, field, "wildcard(..)");
        }
    }
    check_one_text_index(cx, cont);
}

/// A field's `expire_after` / `collation` qualify its `unique` / `index`.
fn check_lonely_field_options(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        let attrs = &field.attrs.index;
        if attrs.unique.is_some() || attrs.index.is_some() {
            continue;
        }
        let mut lonely = Vec::new();
        lonely.extend(attrs.kinds.expire_after.map(|(s, _)| ("expire_after", s)));
        lonely.extend(
            attrs
                .kinds
                .collation
                .as_ref()
                .map(|(s, _)| ("collation", *s)),
        );
        for (name, span) in lonely {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "`{name}` qualifies an index: write `#[odm(index, {name}..)]` or \
                     `#[odm(unique, {name}..)]` on field `{}`",
                    field.ident
                ),
            ));
        }
    }
}

/// A TTL index has one ascending or descending key.
fn check_ttl(cx: &Ctxt, kinds: &KindAttrs, keys: &[KeyKind], wildcard: bool) {
    let Some((span, _)) = kinds.expire_after else {
        return;
    };
    let problem = if wildcard {
        Some("a wildcard index".to_string())
    } else if keys.len() > 1 {
        Some(format!("a compound index ({} keys)", keys.len()))
    } else {
        keys.iter()
            .find(|k| !matches!(k, KeyKind::Asc | KeyKind::Desc))
            .map(|kind| format!("a \"{}\" key", kind.name_part()))
    };
    if let Some(problem) = problem {
        cx.syn_error(syn::Error::new(
            span,
            format!(
                "`expire_after` makes a TTL index, which MongoDB builds only on one field with \
                 direction 1 or -1 (a date, or an array of dates), not on {problem}; declare it \
                 on the date field: `#[odm(index, expire_after = 3600)]`"
            ),
        ));
    }
}

/// `weights`, `default_language` and `language_override` need a text key;
/// each weight names one.
fn check_text_options(cx: &Ctxt, cont: &Container, index: &crate::attr::index::IndexAttr) {
    let text: Vec<String> = index
        .keys
        .iter()
        .filter(|(_, k)| *k == KeyKind::Text)
        .map(|(i, _)| i.to_string())
        .collect();
    let kinds = &index.kinds;
    if text.is_empty() {
        let options = [
            kinds.weights.as_ref().map(|(s, _)| ("weights", *s)),
            kinds
                .default_language
                .as_ref()
                .map(|(s, _)| ("default_language", *s)),
            kinds
                .language_override
                .as_ref()
                .map(|(s, _)| ("language_override", *s)),
        ];
        for (name, span) in options.into_iter().flatten() {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "`{name}` is a text index option, but this index has no text key; write \
                     `keys(field = \"text\")`"
                ),
            ));
        }
        return;
    }
    for (ident, _) in kinds.weights.iter().flat_map(|(_, w)| w) {
        if !text.iter().any(|t| ident == t) {
            crate::check::index::unknown_field(cx, cont, ident, "weights(..)");
            if cont.field_named(ident).is_some() {
                cx.error_spanned_by(
                    ident,
                    format!(
                        "text weight on `{ident}`, which is not a text key of this index; its \
                         text keys: {}",
                        text.join(", ")
                    ),
                );
            }
        }
    }
}

/// A hashed key: one per index, never unique.
fn check_hashed(cx: &Ctxt, keys: &[KeyKind], unique: Option<Span>, keys_span: Option<Span>) {
    let hashed = keys.iter().filter(|k| **k == KeyKind::Hashed).count();
    if hashed == 0 {
        return;
    }
    if let Some(span) = unique {
        cx.syn_error(syn::Error::new(
            span,
            "a hashed index cannot be `unique` (MongoDB refuses it); declare the uniqueness on \
             an ascending index of the same field",
        ));
    }
    if hashed > 1 {
        cx.syn_error(syn::Error::new(
            keys_span.unwrap_or_else(Span::call_site),
            "an index has at most one \"hashed\" key",
        ));
    }
}

/// MongoDB keeps at most one text index per collection.
fn check_one_text_index(cx: &Ctxt, cont: &Container) {
    let text = cont
        .attrs
        .indexes
        .iter()
        .filter(|i| i.keys.iter().any(|(_, k)| *k == KeyKind::Text));
    for index in text.skip(1) {
        cx.syn_error(syn::Error::new(
            index.span,
            "a collection has at most one text index; put every text field in the keys of one \
             `index(keys(a = \"text\", b = \"text\"))`",
        ));
    }
}
