//! The rules on `optimistic_concurrency` paths beyond their first field
//! (checked in `check`). Deeper field segments are checked by the compiler,
//! through the typed paths of each type (see `expand::fields`).

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};

use crate::ast::Container;
use crate::attr::paths::{ListedPath, Seg};
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container, which: &str, paths: &[ListedPath]) {
    check_listed_once(cx, which, paths);
    for path in paths {
        check_first_field(cx, cont, path);
        check_field_after_keys(cx, path);
    }
}

/// The tokens of a path, for errors spanning all of it.
pub fn tokens(path: &ListedPath) -> TokenStream {
    let first = &path.first;
    let rest = path.rest.iter().map(|seg| match seg {
        Seg::Field(ident) => ident.to_token_stream(),
        Seg::Key(lit) => lit.to_token_stream(),
        Seg::Any(star) => star.to_token_stream(),
    });
    quote!(#first #(. #rest)*)
}

/// No path listed twice, or under another listed one (which covers it).
fn check_listed_once(cx: &Ctxt, which: &str, paths: &[ListedPath]) {
    let segments: Vec<Vec<String>> = paths.iter().map(ListedPath::segments).collect();
    for (i, path) in paths.iter().enumerate() {
        let mine = &segments[i];
        let above = segments
            .iter()
            .position(|other| other.len() < mine.len() && mine.starts_with(other));
        if let Some(j) = above {
            cx.error_spanned_by(
                tokens(path),
                format!(
                    "`{}` is already in `{which}(..)` through `{}`, which covers everything under it",
                    path.text(),
                    paths[j].text()
                ),
            );
        } else if segments[..i].contains(mine) {
            cx.error_spanned_by(
                tokens(path),
                format!("field `{}` is listed twice", path.text()),
            );
        }
    }
}

/// A field segment right after a key is a field of the map's values; after
/// two keys in a row the macro cannot tell whose field it would be.
fn check_field_after_keys(cx: &Ctxt, path: &ListedPath) {
    let is_key = |seg: &Seg| !matches!(seg, Seg::Field(_));
    for (i, seg) in path.rest.iter().enumerate() {
        if let Seg::Field(ident) = seg {
            if i >= 2 && is_key(&path.rest[i - 1]) && is_key(&path.rest[i - 2]) {
                cx.error_spanned_by(
                    ident,
                    format!(
                        "`{ident}` follows two map keys in a row, so it cannot be checked as a field; \
                         write it as a key: `\"{ident}\"`"
                    ),
                );
            }
        }
    }
}

/// The first field is stored, is not a flattened field named alone, and
/// when the path goes deeper its type does not use the struct's generic
/// parameters (the path is a constant, computed outside the generic impl).
fn check_first_field(cx: &Ctxt, cont: &Container, path: &ListedPath) {
    let Some(field) = cont.field_named(&path.first) else {
        return; // reported by `check`
    };
    let ident = &path.first;
    if field.attrs.serde_skipped {
        cx.error_spanned_by(
            ident,
            format!(
                "`{ident}` is not stored (`#[serde(skip)]`), so no save ever changes it; remove it from the list"
            ),
        );
        return;
    }
    if field.attrs.flatten && path.rest.is_empty() {
        cx.error_spanned_by(
            ident,
            format!(
                "`{ident}` is flattened (`#[serde(flatten)]`): its fields are stored in the document itself; \
                 list them as `{ident}.field`"
            ),
        );
        return;
    }
    if (field.attrs.flatten || !path.rest.is_empty()) && uses_generics(cont, field.ty) {
        cx.error_spanned_by(
            tokens(path),
            format!(
                "the path `{}` goes into `{ident}`, whose type uses a generic parameter of `{}`; \
                 a listed path deeper than a field needs the field's type to be concrete",
                path.text(),
                cont.ident
            ),
        );
    }
}

/// Whether `ty` names a type or const parameter of the struct.
fn uses_generics(cont: &Container, ty: &syn::Type) -> bool {
    let params: Vec<String> = cont
        .original
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .chain(
            cont.original
                .generics
                .const_params()
                .map(|p| p.ident.to_string()),
        )
        .collect();
    fn walk(tokens: TokenStream, params: &[String]) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(ident) => params.contains(&ident.to_string()),
            TokenTree::Group(group) => walk(group.stream(), params),
            _ => false,
        })
    }
    !params.is_empty() && walk(ty.to_token_stream(), &params)
}
