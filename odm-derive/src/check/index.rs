//! Rules for the index attributes, one function each (called from
//! `check::check`).

use syn::Ident;

use crate::ast::Container;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container) {
    check_field_flags(cx, cont);
    check_sparse_with_partial(cx, cont);
    check_indexed_fields_stored(cx, cont);
    check_key_fields(cx, cont);
    check_partial_fields(cx, cont);
    check_names(cx, cont);
    crate::check::index_kinds::check(cx, cont);
}

/// `sparse` and `partial` qualify a field's `unique` / `index`; a field
/// has one of the two, not both.
fn check_field_flags(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        let attrs = &field.attrs.index;
        if let (Some(_), Some(index)) = (attrs.unique, attrs.index) {
            cx.syn_error(syn::Error::new(
                index,
                "`unique` already creates an index on this field; remove `index`",
            ));
        }
        if attrs.unique.is_some() || attrs.index.is_some() {
            continue;
        }
        let mut lonely = Vec::new();
        lonely.extend(attrs.sparse.map(|s| ("sparse", s)));
        lonely.extend(attrs.partial.as_ref().map(|(s, _)| ("partial", *s)));
        for (name, span) in lonely {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "`{name}` qualifies an index: write `#[odm(unique, {name}..)]` or \
                     `#[odm(index, {name}..)]` on field `{}`",
                    field.ident
                ),
            ));
        }
    }
}

/// MongoDB refuses an index that is both sparse and partial.
fn check_sparse_with_partial(cx: &Ctxt, cont: &Container) {
    let message = "an index cannot be both `sparse` and `partial(..)` (MongoDB refuses the \
                   combination); a partial filter `partial(field(exists = true))` does what \
                   `sparse` does";
    let field_pairs = cont
        .fields
        .iter()
        .map(|f| (f.attrs.index.sparse, f.attrs.index.partial.is_some()));
    let container_pairs = cont
        .attrs
        .indexes
        .iter()
        .map(|i| (i.sparse, i.partial.is_some()));
    for (sparse, partial) in field_pairs.chain(container_pairs) {
        if let (Some(span), true) = (sparse, partial) {
            cx.syn_error(syn::Error::new(span, message));
        }
    }
}

/// An index on a field that is never stored indexes nothing; `_id` is
/// unique already.
fn check_indexed_fields_stored(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        let attrs = &field.attrs.index;
        let Some(span) = attrs.unique.or(attrs.index) else {
            continue;
        };
        if field.attrs.serde_skipped || field.attrs.flatten {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "field `{}` is not stored as one BSON field (`#[serde(skip)]` or `flatten`), \
                     so it cannot be indexed",
                    field.ident
                ),
            ));
        } else if field.bson_name == "_id" {
            cx.syn_error(syn::Error::new(
                span,
                "`_id` always has a unique index (`_id_`); remove this attribute",
            ));
        }
    }
}

/// The error for a name in `keys(..)` or `partial(..)` that is no stored field.
pub(crate) fn unknown_field(cx: &Ctxt, cont: &Container, ident: &Ident, place: &str) {
    match cont.field_named(ident) {
        Some(f) if f.attrs.serde_skipped || f.attrs.flatten => cx.error_spanned_by(
            ident,
            format!("field `{ident}` in `{place}` is not stored as one BSON field (`#[serde(skip)]` or `flatten`)"),
        ),
        Some(_) => {}
        None => {
            let names: Vec<String> = cont.stored_fields().map(|f| f.ident.to_string()).collect();
            cx.error_spanned_by(
                ident,
                format!(
                    "unknown field `{ident}` in `{place}`; the fields of `{}` are: {}",
                    cont.ident,
                    names.join(", ")
                ),
            );
        }
    }
}

/// `keys(..)` names stored fields, each once.
fn check_key_fields(cx: &Ctxt, cont: &Container) {
    for index in &cont.attrs.indexes {
        for (i, (ident, _)) in index.keys.iter().enumerate() {
            unknown_field(cx, cont, ident, "index(keys(..))");
            if index.keys[..i].iter().any(|(other, _)| other == ident) {
                cx.error_spanned_by(
                    ident,
                    format!("field `{ident}` is listed twice in `keys(..)`"),
                );
            }
        }
    }
}

/// `partial(..)` names stored fields.
fn check_partial_fields(cx: &Ctxt, cont: &Container) {
    let field_conds = cont
        .fields
        .iter()
        .filter_map(|f| f.attrs.index.partial.as_ref());
    let container_conds = cont.attrs.indexes.iter().filter_map(|i| i.partial.as_ref());
    for (_, terms) in field_conds.chain(container_conds) {
        for cond in terms.iter().flat_map(|t| t.conds()) {
            unknown_field(cx, cont, &cond.field, "partial(..)");
        }
    }
}

/// Index names are unique, non-empty and not `_id_`.
fn check_names(cx: &Ctxt, cont: &Container) {
    let all: Vec<_> = cont
        .declared_indexes()
        .into_iter()
        .filter(|d| d.complete)
        .collect();
    for (i, index) in all.iter().enumerate() {
        let error = |message: String| cx.syn_error(syn::Error::new(index.span, message));
        if index.name.is_empty() {
            error("an index name must not be empty".to_string());
        } else if index.name == "_id_" {
            error(
                "`_id_` is the name of the index MongoDB keeps on `_id`; choose another name"
                    .to_string(),
            );
        } else if let Some(first) = all[..i].iter().find(|d| d.name == index.name) {
            error(format!(
                "two indexes are named `{}`; give one of them another name with `name = \"..\"`",
                first.name
            ));
        }
    }
}
