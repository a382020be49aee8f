//! The rules of an enum model, one function each: serde's internally
//! tagged form, every variant a kind (a struct variant with a field stored
//! as `_id`, or a newtype variant), one stored name per kind, and the
//! enum's attributes that an enum model supports.
//!
//! What depends on a newtype variant's type (a struct, with a field stored
//! as `_id`, with the fields an index names) the macro cannot see: the
//! index keys and partial filters are typed paths of the type's `Fields`
//! impl in the generated code (a misspelled field does not compile), and
//! the `_id` is checked when a document of the kind is inserted.

use proc_macro2::Span;

use crate::ast::enums::{EnumModel, Shape, Variant};
use crate::ast::Container;
use crate::attr::ConcurrencyAttr;
use crate::ctxt::Ctxt;

pub fn check(cx: &Ctxt, model: &EnumModel) {
    let Some(tag) = check_representation(cx, model) else {
        return;
    };
    check_tag_name(cx, model, tag);
    check_generics(cx, model);
    check_enum_attrs(cx, model);
    if model.variants.is_empty() {
        cx.error_spanned_by(
            model.ident(),
            format!(
                "`{}` has no variant: an enum model holds one kind of document per variant",
                model.ident()
            ),
        );
    }
    for (i, variant) in model.variants.iter().enumerate() {
        check_variant(cx, model, variant);
        if let Shape::Newtype(ty) = &variant.shape {
            let text = quote::quote!(#ty).to_string();
            let earlier = model.variants[..i].iter().find(|v| match &v.shape {
                Shape::Newtype(other) => quote::quote!(#other).to_string() == text,
                _ => false,
            });
            if let Some(first) = earlier {
                cx.error_spanned_by(
                    ty,
                    format!(
                        "variants `{}` and `{}` both hold `{text}`: a kind's handle \
                         (`variant::<{text}>()`) names one kind, so each newtype variant needs \
                         a type of its own",
                        first.ident, variant.ident
                    ),
                );
            }
        }
        if let Some(first) = model.variants[..i].iter().find(|v| v.name == variant.name) {
            cx.error_spanned_by(
                variant.ident,
                format!(
                    "variants `{}` and `{}` are both stored as the kind `{}`: each kind needs \
                     its own name",
                    first.ident, variant.ident, variant.name
                ),
            );
        }
    }
    check_index_names(cx, model);
}

/// Internally tagged (`tag = ".."`, no `content`, not `untagged`): the
/// only form whose documents hold their fields at the top level beside a
/// kind key. The tag, when the form is right.
fn check_representation<'m>(cx: &Ctxt, model: &'m EnumModel) -> Option<&'m str> {
    let serde = &model.serde;
    if let Some(span) = serde.untagged {
        cx.syn_error(syn::Error::new(
            span,
            "an untagged enum cannot be a model: its stored documents would not say which kind \
             they are, and a document that fits two variants would load as the first; store the \
             kind beside the fields with `#[serde(tag = \"kind\")]`",
        ));
        return None;
    }
    if let (Some(span), Some(_)) = (serde.content, &serde.tag) {
        cx.syn_error(syn::Error::new(
            span,
            "an adjacently tagged enum (`tag` with `content`) stores the variant's fields under \
             one key, without a top-level `_id`; an enum model stores them at the top level, \
             beside the kind: remove `content = ..` (`#[serde(tag = \"kind\")]`)",
        ));
        return None;
    }
    match &serde.tag {
        Some((_, tag)) => Some(tag),
        None => {
            cx.error_spanned_by(
                model.ident(),
                format!(
                    "#[derive(Document)] on an enum needs serde's internally tagged form: add \
                     `#[serde(tag = \"kind\")]` to `{}` (the kind is then stored beside the \
                     variant's fields, `_id` among them); the default, externally tagged form \
                     stores `{{\"Variant\": {{..}}}}`, a document without a top-level `_id`",
                    model.ident()
                ),
            );
            None
        }
    }
}

/// The kind key is a plain field name that no odm key uses.
fn check_tag_name(cx: &Ctxt, model: &EnumModel, tag: &str) {
    let span = model
        .serde
        .tag
        .as_ref()
        .map_or_else(Span::call_site, |(s, _)| *s);
    let error = |message: String| cx.syn_error(syn::Error::new(span, message));
    if tag.is_empty() || tag.starts_with('$') || tag.contains('.') {
        error(
            "the kind key must be a plain field name: non-empty, no `.`, no leading `$`"
                .to_string(),
        );
    } else if tag == "_id" {
        error("the kind key cannot be `_id`, which holds each document's id".to_string());
    } else if Some(tag.to_string()) == model.base.version_key() {
        error(format!(
            "the kind key cannot be `{tag}`, the version key; rename one of them"
        ));
    } else if tag == "__fence" {
        error("the kind key cannot be `__fence`, odm's fencing token field".to_string());
    } else if tag == "__refs" {
        error("the kind key cannot be `__refs`, odm's reference counter field".to_string());
    } else if model.base.attrs.schema.version.is_some() && tag == schema_key(model) {
        error(format!(
            "the kind key cannot be `{tag}`, the schema version key; rename one of them"
        ));
    }
}

/// The schema version key of a model that declares a schema version.
fn schema_key<'a>(model: &'a EnumModel<'_>) -> &'a str {
    model
        .base
        .attrs
        .schema
        .key
        .as_ref()
        .map_or("__sv", |(_, key)| key.as_str())
}

fn check_generics(cx: &Ctxt, model: &EnumModel) {
    if let Some(param) = model.base.original.generics.params.first() {
        cx.error_spanned_by(
            param,
            "an enum model cannot be generic: each kind's handle (`variant::<V>()`) is the type \
             of one variant; use a struct model for a generic document",
        );
    }
}

/// The enum's own attributes that name fields, which differ per kind.
fn check_enum_attrs(cx: &Ctxt, model: &EnumModel) {
    let attrs = &model.base.attrs;
    if let Some((span, ConcurrencyAttr::Include(_) | ConcurrencyAttr::Exclude(_))) =
        &attrs.concurrency
    {
        cx.syn_error(syn::Error::new(
            *span,
            "`optimistic_concurrency(include(..))` / `exclude(..)` name fields, which differ per \
             kind of an enum model: declare `optimistic_concurrency` whole (every save checks the \
             version), or none (a change of kind is checked either way)",
        ));
    }
    if let Some((span, _)) = &attrs.shard_key {
        cx.syn_error(syn::Error::new(
            *span,
            "`shard_key(..)` is not supported on an enum model: its fields differ per kind",
        ));
    }
    for index in &attrs.indexes {
        cx.syn_error(syn::Error::new(
            index.span,
            "an index of an enum model is declared on the variant whose fields it names: \
             `#[odm(index(keys(..), ..))]` on a variant is an index of that kind (partial on \
             the kind key); a struct variant's fields also take `#[odm(unique)]` / \
             `#[odm(index)]`",
        ));
    }
    if let Some((span, _)) = &attrs.referenced_by {
        cx.syn_error(syn::Error::new(*span, REFS_ON_ENUMS));
    }
    super::check_versioning_off(cx, &model.base);
    super::schema::check(cx, &model.base);
    for (_, cont) in model.struct_variants() {
        super::check_versioning_off_fields(cx, &model.base, cont);
    }
}

fn check_variant(cx: &Ctxt, model: &EnumModel, variant: &Variant) {
    for refused in &variant.attrs.refused {
        cx.syn_error(syn::Error::new(refused.span, &refused.message));
    }
    match &variant.shape {
        // serde refuses a tuple variant in an internally tagged enum itself.
        Shape::Other if matches!(variant.original.fields, syn::Fields::Unnamed(_)) => {
            cx.defer_to_serde()
        }
        Shape::Other => cx.error_spanned_by(
            variant.original,
            format!(
                "unit variant `{v}` holds no document: every kind of an enum model is a \
                 struct variant with a field stored as `_id` (`{v} {{ #[serde(rename = \"_id\")] \
                 id: ObjectId, .. }}`) or a newtype variant of a struct holding one (`{v}({v})`)",
                v = variant.ident
            ),
        ),
        Shape::Newtype(_) => check_newtype_indexes(cx, variant),
        Shape::Struct(cont) => check_struct_variant(cx, model, variant, cont),
    }
}

/// A newtype variant's indexes name its type's fields through typed
/// paths: keys and partial filters, not the options that list fields
/// beside the keys.
fn check_newtype_indexes(cx: &Ctxt, variant: &Variant) {
    for index in &variant.attrs.indexes {
        let kinds = &index.kinds;
        let listed = [
            kinds.weights.as_ref().map(|(s, _)| (*s, "weights(..)")),
            kinds.wildcard.as_ref().map(|(s, _)| (*s, "wildcard")),
        ];
        for (span, what) in listed.into_iter().flatten() {
            cx.syn_error(syn::Error::new(
                span,
                format!(
                    "`{what}` is not supported on an index of a newtype variant (its fields are                      another type's); make `{}` a struct variant to use it",
                    variant.ident
                ),
            ));
        }
    }
}

fn check_struct_variant(cx: &Ctxt, model: &EnumModel, variant: &Variant, cont: &Container) {
    if !cont.stored_fields().any(|f| f.bson_name == "_id") {
        cx.error_spanned_by(
            variant.ident,
            format!(
                "variant `{v}` has no `_id` field: each kind stores its own id; mark the id \
                 field with `#[serde(rename = \"_id\")]` (`{v} {{ #[serde(rename = \"_id\")] \
                 id: ObjectId, .. }}`), or make `{v}` a newtype variant of a struct that holds \
                 one",
                v = variant.ident
            ),
        );
    }
    if let Some(span) = variant.attrs.nested {
        cx.syn_error(syn::Error::new(
            span,
            "`nested` runs the validators of a newtype variant's type; a struct variant's \
             fields take their own rules (`#[odm(min = ..)]`, `#[odm(nested)]` on a field)",
        ));
    }
    if let Some(path) = cont.attrs.validate.validators.first() {
        cx.error_spanned_by(
            path,
            format!(
                "`validate = ..` on a variant takes a newtype variant's value; a struct variant \
                 has no type of its own: put the validator on the enum (`#[odm(validate = ..)]` \
                 on `{}` takes `&{}`)",
                model.ident(),
                model.ident()
            ),
        );
    }
    if let Some(key) = model.base.version_key() {
        super::check_no_field_stored_as(cx, cont, &key);
    }
    for field in &cont.fields {
        if let Some((span, _)) = &field.attrs.reference {
            cx.syn_error(syn::Error::new(*span, REFS_ON_ENUMS));
        }
    }
    super::index::check(cx, cont);
    super::validate::check(cx, cont);
    check_timestamps(cx, model, cont);
}

/// Referential rules hold between struct models only: a rule on an enum
/// model's field, or an enum model as a rule's target, would otherwise be
/// accepted and never enforced.
const REFS_ON_ENUMS: &str = "referential rules (`reference(on_delete = ..)` on a field, \
     `referenced_by(..)` on the target) are not supported on enum models: a `Ref` field of a \
     kind is stored and loaded, but deleting its target is not checked; declare the rule \
     between struct models";

/// `timestamps` on the enum: every struct variant holds both fields (a
/// newtype variant's type is written through serde, see
/// `odm::__private::kind::stamp`).
fn check_timestamps(cx: &Ctxt, model: &EnumModel, cont: &Container) {
    let Some((span, ts)) = &model.base.attrs.timestamps else {
        return;
    };
    for name in [&ts.created_at, &ts.updated_at] {
        if cont.stored_fields().all(|f| &f.bson_name != name) {
            cx.syn_error(syn::Error::new(
                *span,
                format!(
                    "`timestamps` needs a field stored as `{name}` in every kind; variant `{}` \
                     has none: add one of type `Option<odm::bson::DateTime>`",
                    cont.ident
                ),
            ));
        }
    }
}

/// Explicit index names are unique across the kinds (default names hold
/// the kind).
fn check_index_names(cx: &Ctxt, model: &EnumModel) {
    let mut seen: Vec<String> = Vec::new();
    let explicit = model.variants.iter().flat_map(|v| {
        let declared: Vec<&crate::attr::index::IndexAttr> = match &v.shape {
            Shape::Struct(cont) => cont.attrs.indexes.iter().collect(),
            _ => v.attrs.indexes.iter().collect(),
        };
        declared.into_iter().filter_map(|i| i.name.as_ref())
    });
    for name in explicit {
        if seen.contains(&name.value()) {
            cx.error_spanned_by(
                name,
                format!(
                    "two indexes are named `{}`; give one of them another name",
                    name.value()
                ),
            );
        }
        seen.push(name.value());
    }
}
