//! Rules of `schema_version = N` / `migrate = path` / `schema_key =
//! "name"`: the version and the steps go together, versions start at 1,
//! and the schema key is a field of odm's, under no other name's.
//! (The signature of `migrate` is checked by the generated code, spanned
//! at the path.)

use crate::ast::Container;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, cont: &Container) {
    let schema = &cont.attrs.schema;
    match (&schema.version, &schema.migrate) {
        (Some((span, _)), None) => cx.syn_error(syn::Error::new(
            *span,
            "`schema_version` needs `migrate = path::to_fn`: the function that upgrades a stored \
             document one step, `fn(&mut bson::Document, from: u32) -> Result<(), MigrationError>`",
        )),
        (None, Some((span, _))) => cx.syn_error(syn::Error::new(
            *span,
            "`migrate` needs `schema_version = N`: the model's schema version, which stored \
             documents are upgraded to on load",
        )),
        _ => {}
    }
    if let Some((span, 0)) = schema.version {
        cx.syn_error(syn::Error::new(
            span,
            "`schema_version` starts at 1: a stored document without a schema version is at \
             version 0, and `migrate` upgrades it to 1",
        ));
    }
    let Some((span, key)) = &schema.key else {
        if schema.version.is_some() {
            check_free(cx, cont, "__sv");
        }
        return;
    };
    if schema.version.is_none() {
        cx.syn_error(syn::Error::new(
            *span,
            "`schema_key` names the field of `schema_version`, which is not declared: add \
             `schema_version = N, migrate = path::to_fn` or remove `schema_key`",
        ));
    }
    if cont.version_key().as_deref() == Some(key.as_str()) || key == "__fence" || key == "__refs" {
        cx.syn_error(syn::Error::new(
            *span,
            format!("the schema key `{key}` is already a key of odm's (the version key, the fence or the reference counter): choose another name"),
        ));
    }
    check_free(cx, cont, key);
}

/// No field may be stored under the schema key's name.
fn check_free(cx: &Ctxt, cont: &Container, key: &str) {
    for field in cont.stored_fields().filter(|f| f.bson_name == key) {
        let span = field
            .attrs
            .rename_span
            .unwrap_or_else(|| field.ident.span());
        cx.syn_error(syn::Error::new(
            span,
            format!(
                "field `{}` is stored as `{key}`, the schema version key; the schema version is \
                 kept by odm: remove the field or set `#[odm(schema_key = \"...\")]`",
                field.ident
            ),
        ));
    }
}
