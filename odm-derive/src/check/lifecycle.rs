//! Rules of `shard_key(..)`: each entry names a stored field, once, and
//! not the field `timestamps` stamps on every save that writes.

use crate::ast::Container;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container) {
    let Some((_, idents)) = &cont.attrs.shard_key else {
        return;
    };
    for (i, ident) in idents.iter().enumerate() {
        match cont.field_named(ident) {
            None => {
                let names: Vec<String> = cont.fields.iter().map(|f| f.ident.to_string()).collect();
                cx.error_spanned_by(
                    ident,
                    format!(
                        "unknown field `{ident}` in `shard_key(..)`; the fields of `{}` are: {}",
                        cont.ident,
                        names.join(", ")
                    ),
                );
            }
            Some(f) if f.attrs.serde_skipped || f.attrs.flatten => cx.error_spanned_by(
                ident,
                format!(
                    "`{ident}` is not stored as a field of its own (serde `skip` or `flatten`), \
                     so it cannot be part of the shard key"
                ),
            ),
            Some(f) if f.bson_name == "_id" => {}
            Some(f) if stamped(cont).is_some_and(|name| name == f.bson_name) => cx
                .error_spanned_by(
                    ident,
                    format!(
                        "`{ident}` is stamped by `timestamps` on every save that writes \
                         (stored as `{}`, its updated_at field), so it cannot be part of the \
                         shard key, which a save never changes",
                        f.bson_name
                    ),
                ),
            Some(_) => {}
        }
        if idents[..i].contains(ident) {
            cx.error_spanned_by(
                ident,
                format!("field `{ident}` is listed twice in `shard_key(..)`"),
            );
        }
    }
}

/// The BSON name of the field `timestamps` writes on every save.
fn stamped<'c>(cont: &'c Container) -> Option<&'c str> {
    let (_, ts) = cont.attrs.timestamps.as_ref()?;
    Some(&ts.updated_at)
}
