//! Parses the schema version keys of the container's `#[odm(...)]`:
//! `schema_version = N`, `migrate = path::to_fn` and `schema_key = "name"`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprPath, Lit, Token};

use super::base::{set_once, string_value};
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// The schema version keys as written, each with the span of its value.
#[derive(Default)]
pub struct SchemaAttrs {
    /// `schema_version = N`.
    pub version: Option<(Span, u32)>,
    /// `migrate = path`.
    pub migrate: Option<(Span, ExprPath)>,
    /// `schema_key = "name"`.
    pub key: Option<(Span, String)>,
}

impl SchemaAttrs {
    /// Parses `meta` when it is one of the schema version keys; `Ok(false)`
    /// when it is not.
    pub fn parse(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<bool> {
        if meta.path == SCHEMA_VERSION {
            let form =
                "expected `schema_version = N`, a whole number from 1 (e.g. `schema_version = 2`)";
            if !meta.input.peek(Token![=]) {
                return Err(meta.error(form));
            }
            let value: Expr = meta.value()?.parse()?;
            let span = syn::spanned::Spanned::span(&value);
            let version = match &value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Int(lit), ..
                }) => lit.base10_parse::<u32>().ok(),
                _ => None,
            };
            // A bad value is reported, and stands for a version: no
            // follow-on error about `migrate` lacking one.
            if version.is_none() {
                cx.syn_error(syn::Error::new(span, form));
            }
            let version = version.unwrap_or(1);
            set_once(
                cx,
                &mut self.version,
                span,
                (span, version),
                SCHEMA_VERSION.0,
            );
        } else if meta.path == MIGRATE {
            let path = migrate_path(cx, meta)?;
            let span = syn::spanned::Spanned::span(&path);
            set_once(cx, &mut self.migrate, span, (span, path), MIGRATE.0);
        } else if meta.path == SCHEMA_KEY {
            let lit = string_value(meta, SCHEMA_KEY)?;
            let key = lit.value();
            if key.is_empty() || key.starts_with('$') || key.contains('.') || key == "_id" {
                cx.error_spanned_by(
                    &lit,
                    "a schema key must be a plain field name: non-empty, no `.`, no leading `$`, not `_id`",
                );
            }
            set_once(
                cx,
                &mut self.key,
                lit.span(),
                (lit.span(), key),
                SCHEMA_KEY.0,
            );
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

/// `migrate = path::to_fn`: a path, not a string or an expression. A
/// value that is not one is reported, and stands for a path: no follow-on
/// error about `schema_version` lacking its steps.
fn migrate_path(cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<ExprPath> {
    let form = "expected `migrate = path::to_fn`, e.g. `migrate = Self::upgrade`";
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(form));
    }
    let expr: Expr = meta.value()?.parse()?;
    let message = match &expr {
        Expr::Path(path) if path.attrs.is_empty() => return Ok(path.clone()),
        Expr::Lit(lit) if matches!(lit.lit, Lit::Str(_)) => {
            "`migrate` names a function, not a string: remove the quotes (`migrate = Self::upgrade`)"
        }
        _ => {
            "`migrate` is a path to a function (`migrate = Self::upgrade`), not an expression: \
             put the steps in a `fn(&mut bson::Document, from: u32) -> Result<(), MigrationError>` \
             and name it here"
        }
    };
    cx.error_spanned_by(&expr, message);
    Ok(syn::parse_quote!(migrate))
}
