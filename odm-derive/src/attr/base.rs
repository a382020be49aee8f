//! The helpers every attribute parser shares: consuming nested lists after
//! an error, recognising `()`, naming a path, reading `name = ".."`,
//! refusing a second value. The lowest module of `attr`: it imports no
//! other.

use std::fmt::Display;

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{LitStr, Token};

use crate::ctxt::Ctxt;

/// `meta.parse_nested_meta(logic)`, except that after the first error the
/// rest of the list is consumed: syn would otherwise add an "unexpected
/// token" error for it once the caller recovers.
pub fn nested_first_error(
    meta: &ParseNestedMeta,
    mut logic: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
) -> syn::Result<()> {
    let mut first = None;
    meta.parse_nested_meta(|item| {
        let input = item.input;
        if let Err(e) = logic(item) {
            first.get_or_insert(e);
            while !input.is_empty() {
                input.parse::<proc_macro2::TokenTree>()?;
            }
        }
        Ok(())
    })?;
    first.map_or(Ok(()), Err)
}

/// Whether `input` starts with `()`.
pub fn empty_parens(input: syn::parse::ParseStream) -> bool {
    fn parens(input: syn::parse::ParseStream) -> syn::Result<bool> {
        let content;
        syn::parenthesized!(content in input);
        Ok(content.is_empty())
    }
    parens(&input.fork()).unwrap_or(false)
}

/// A path as written, `a::b`.
pub fn path_text(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}

/// The string of `name = "..."`.
pub fn string_value(meta: &ParseNestedMeta, name: impl Display) -> syn::Result<LitStr> {
    let form = || format!("expected `{name} = \"...\"`");
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(form()));
    }
    meta.value()?
        .parse::<LitStr>()
        .map_err(|e| syn::Error::new(e.span(), form()))
}

/// Fills `slot`, or reports a duplicate attribute `name` at `span`.
pub fn set_once<T>(cx: &Ctxt, slot: &mut Option<T>, span: Span, value: T, name: &str) {
    if slot.is_some() {
        cx.syn_error(syn::Error::new(
            span,
            format!("duplicate odm attribute `{name}`"),
        ));
    } else {
        *slot = Some(value);
    }
}
