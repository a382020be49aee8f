//! Parses the referential rules: a field's `reference(on_delete = ..)`
//! and the container's `referenced_by(Type, ..)`.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::Token;

use crate::attr::base::{empty_parens, nested_first_error, path_text};
use crate::symbol::*;

/// What deleting a target does, as written in `on_delete = ..`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OnDelete {
    Refuse,
    Cascade,
    Clear,
    Pull,
}

impl OnDelete {
    /// The variant's name in `odm::refs::OnDelete`.
    pub fn variant(self) -> &'static str {
        match self {
            OnDelete::Refuse => "Refuse",
            OnDelete::Cascade => "Cascade",
            OnDelete::Clear => "Clear",
            OnDelete::Pull => "Pull",
        }
    }
}

/// `reference(on_delete = refuse)`, with the span of the rule's word.
pub struct ReferenceAttr {
    pub on_delete: OnDelete,
    pub span: Span,
}

const REFERENCE_FORM: &str = "expected `reference(on_delete = refuse)`, \
`reference(on_delete = cascade)`, `reference(on_delete = clear)` or `reference(on_delete = pull)`";

/// `reference(on_delete = refuse | cascade | clear | pull)`.
pub fn parse_reference(meta: &ParseNestedMeta) -> syn::Result<ReferenceAttr> {
    if !meta.input.peek(syn::token::Paren) || empty_parens(meta.input) {
        return Err(meta.error(REFERENCE_FORM));
    }
    let mut rule: Option<ReferenceAttr> = None;
    nested_first_error(meta, |inner| {
        if inner.path != ON_DELETE {
            return Err(inner.error(format!(
                "unknown reference option `{}`; {REFERENCE_FORM}",
                path_text(&inner.path)
            )));
        }
        if rule.is_some() {
            return Err(inner.error("duplicate reference option `on_delete`"));
        }
        if !inner.input.peek(Token![=]) {
            return Err(inner.error(REFERENCE_FORM));
        }
        let word: syn::Ident = inner.value()?.parse()?;
        let on_delete = if word == REFUSE {
            OnDelete::Refuse
        } else if word == CASCADE {
            OnDelete::Cascade
        } else if word == CLEAR {
            OnDelete::Clear
        } else if word == PULL {
            OnDelete::Pull
        } else {
            return Err(syn::Error::new(
                word.span(),
                format!("unknown `on_delete` rule `{word}`; expected `refuse`, `cascade`, `clear` or `pull`"),
            ));
        };
        rule = Some(ReferenceAttr {
            on_delete,
            span: word.span(),
        });
        Ok(())
    })?;
    rule.ok_or_else(|| meta.error(REFERENCE_FORM))
}

/// `referenced_by(Post, blog::Comment)`: the models whose rules point at
/// this one.
pub fn parse_referenced_by(meta: &ParseNestedMeta) -> syn::Result<Vec<syn::Path>> {
    let form = "expected `referenced_by(Model, ..)`: the models with a \
`#[odm(reference(..))]` field referring to this one";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(form));
    }
    if empty_parens(meta.input) {
        return Err(meta.error(format!("`referenced_by()` names no model; {form}")));
    }
    let mut models = Vec::new();
    nested_first_error(meta, |model| {
        if !model.input.is_empty() && !model.input.peek(Token![,]) {
            return Err(model.error("expected a model type, e.g. `Post` or `blog::Post`"));
        }
        models.push(model.path.clone());
        Ok(())
    })?;
    Ok(models)
}
