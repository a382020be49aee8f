//! Rules of the referential rules' attributes: a `reference(..)` field is
//! a stored field of its own, not the `_id`; `referenced_by(..)` names each
//! model once. What depends on types (the field holds `Ref`s, `clear` is
//! on an `Option`, the target lists this model) is checked by trait
//! bounds in the generated code.

use crate::ast::Container;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container) {
    for field in &cont.fields {
        let Some((span, _)) = &field.attrs.reference else {
            continue;
        };
        let problem = if field.attrs.serde_skipped || field.attrs.flatten {
            Some("is not stored as a field of its own (serde `skip` or `flatten`)")
        } else if field.bson_name == "_id" {
            Some("is the document's `_id`, not a reference to another document")
        } else {
            None
        };
        if let Some(problem) = problem {
            cx.syn_error(syn::Error::new(
                *span,
                format!(
                    "`{}` {problem}, so it cannot hold a referential rule",
                    field.ident
                ),
            ));
        }
    }
    if let Some((_, models)) = &cont.attrs.referenced_by {
        let text = |p: &syn::Path| quote::quote!(#p).to_string();
        for (i, model) in models.iter().enumerate() {
            if models[..i].iter().any(|m| text(m) == text(model)) {
                cx.error_spanned_by(
                    model,
                    format!("`{}` is listed twice in `referenced_by(..)`", text(model)),
                );
            }
        }
    }
}
