//! Rules across attributes, one function each. Every rule records its
//! error and lets the others run, so one compile reports every mistake.
//!
//! The checks read the parsed model (`ast`) only. What depends on types
//! (a `skip_versioning` field is an array, a `timestamps` field a
//! `DateTime`) is checked by trait bounds in the generated code.

pub mod enums;
mod index;
mod index_kinds;
mod lifecycle;
mod paths;
mod references;
mod schema;
mod timestamps;
pub mod validate;

use crate::ast::Container;
use crate::attr::ConcurrencyAttr;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container) {
    check_id(cx, cont);
    check_versioning_off(cx, cont);
    check_concurrency_fields(cx, cont);
    check_version_key_free(cx, cont);
    index::check(cx, cont);
    validate::check(cx, cont);
    check_timestamps(cx, cont);
    lifecycle::check(cx, cont);
    schema::check(cx, cont);
    timestamps::check_date_types(cx, cont);
    references::check(cx, cont);
}

/// `timestamps` needs two distinct stored fields under its BSON names; their
/// types are checked by the generated code (`DateTime` or `Option<DateTime>`).
fn check_timestamps(cx: &Ctxt, cont: &Container) {
    let Some((span, ts)) = &cont.attrs.timestamps else {
        return;
    };
    if ts.created_at == ts.updated_at {
        cx.syn_error(syn::Error::new(
            *span,
            format!(
                "`timestamps` needs two different fields, but both are named `{}`",
                ts.created_at
            ),
        ));
        return;
    }
    for (which, name) in [
        ("created_at", &ts.created_at),
        ("updated_at", &ts.updated_at),
    ] {
        if cont.stored_fields().all(|f| &f.bson_name != name) {
            cx.syn_error(syn::Error::new(
                *span,
                format!(
                    "`timestamps` needs a field stored as `{name}` (its {which}), of type \
                     `odm::bson::DateTime` or `Option<odm::bson::DateTime>`: e.g. \
                     `#[serde(rename = \"{name}\")] pub {which}: Option<DateTime>`, or rename it with \
                     `#[odm(timestamps({which} = \"...\"))]`"
                ),
            ));
        }
    }
}

/// A document needs a field stored as `_id`.
fn check_id(cx: &Ctxt, cont: &Container) {
    if !cont.stored_fields().any(|f| f.bson_name == "_id") {
        cx.error_spanned_by(
            cont.ident,
            format!(
                "`{}` has no `_id` field: mark the id field with `#[serde(rename = \"_id\")]`",
                cont.ident
            ),
        );
    }
}

/// `versioning = false` leaves nothing for `optimistic_concurrency`,
/// `version_key` or `skip_versioning` to work on.
fn check_versioning_off(cx: &Ctxt, cont: &Container) {
    let Some((_, false)) = cont.attrs.versioning else {
        return;
    };
    if let Some((span, _)) = &cont.attrs.concurrency {
        cx.syn_error(syn::Error::new(
            *span,
            "`optimistic_concurrency` needs the version key, but `versioning = false` removes it; \
             remove one of the two",
        ));
    }
    if let Some((span, _)) = &cont.attrs.version_key {
        cx.syn_error(syn::Error::new(
            *span,
            "`version_key` has no effect with `versioning = false`; remove one of the two",
        ));
    }
    check_versioning_off_fields(cx, cont, cont);
}

/// With `versioning = false` on `base`, no field of `cont` (`base` itself,
/// or a struct variant of the enum `base`) is `skip_versioning`.
fn check_versioning_off_fields(cx: &Ctxt, base: &Container, cont: &Container) {
    let Some((_, false)) = base.attrs.versioning else {
        return;
    };
    for field in &cont.fields {
        if let Some(span) = field.attrs.skip_versioning {
            cx.syn_error(syn::Error::new(
                span,
                "`skip_versioning` has no effect with `versioning = false`; remove it",
            ));
        }
    }
}

/// `include(..)` / `exclude(..)` paths start at fields of the struct; the
/// rest of each path is checked by `check::paths`.
fn check_concurrency_fields(cx: &Ctxt, cont: &Container) {
    let (which, paths) = match &cont.attrs.concurrency {
        Some((_, ConcurrencyAttr::Include(paths))) => ("include", paths),
        Some((_, ConcurrencyAttr::Exclude(paths))) => ("exclude", paths),
        _ => return,
    };
    for ident in paths.iter().map(|p| &p.first) {
        if cont.field_named(ident).is_none() {
            let names: Vec<String> = cont.fields.iter().map(|f| f.ident.to_string()).collect();
            cx.error_spanned_by(
                ident,
                format!(
                    "unknown field `{ident}` in `optimistic_concurrency({which}(..))`; the fields of `{}` are: {}",
                    cont.ident,
                    names.join(", ")
                ),
            );
        }
    }
    paths::check(cx, cont, which, paths);
}

/// No field may be stored under the version key's name.
fn check_version_key_free(cx: &Ctxt, cont: &Container) {
    if let Some(key) = cont.version_key() {
        check_no_field_stored_as(cx, cont, &key);
    }
}

/// No field of `cont` is stored as `key`, the version key.
fn check_no_field_stored_as(cx: &Ctxt, cont: &Container, key: &str) {
    for field in cont.stored_fields() {
        if field.bson_name == key {
            let span = field
                .attrs
                .rename_span
                .unwrap_or_else(|| field.ident.span());
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "field `{}` is stored as `{key}`, the version key; the version is kept by odm \
                     (`Doc::version()`): remove the field or set `#[odm(version_key = \"...\")]`",
                    field.ident
                ),
            ));
        }
    }
}
