//! The parsed model: a `Container` of `Field`s, each keeping its syn node
//! for spans.

pub mod enums;
pub mod index;

use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::attr::{ContainerAttrs, FieldAttrs};
use crate::case;
use crate::ctxt::Ctxt;

pub struct Container<'a> {
    pub original: &'a DeriveInput,
    pub ident: &'a Ident,
    pub attrs: ContainerAttrs,
    pub fields: Vec<Field<'a>>,
}

pub struct Field<'a> {
    /// The whole field, for spans of checks that need more than the name.
    #[allow(dead_code)]
    pub original: &'a syn::Field,
    pub ident: &'a Ident,
    pub ty: &'a Type,
    pub attrs: FieldAttrs,
    /// The name in the stored document, after serde's renames.
    pub bson_name: String,
}

impl<'a> Container<'a> {
    /// `None` (with the error recorded) unless the input is a struct with
    /// named fields.
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput) -> Option<Container<'a>> {
        let attrs = ContainerAttrs::parse(cx, input);
        let named = match &input.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(named) => named,
                Fields::Unnamed(_) | Fields::Unit => {
                    cx.error_spanned_by(
                        &input.ident,
                        "#[derive(Document)] needs a struct with named fields, one of them serialized as `_id`; \
                         a tuple or unit struct cannot be stored as a document",
                    );
                    return None;
                }
            },
            Data::Enum(data) => {
                cx.error_spanned_by(
                    data.enum_token,
                    "#[derive(Document)] supports structs with named fields only, not enums: \
                     store the enum as a field of a struct",
                );
                return None;
            }
            Data::Union(data) => {
                cx.error_spanned_by(
                    data.union_token,
                    "#[derive(Document)] supports structs with named fields only, not unions",
                );
                return None;
            }
        };
        let fields = named_fields(cx, named, attrs.rename_all);
        Some(Container {
            original: input,
            ident: &input.ident,
            attrs,
            fields,
        })
    }

    /// A struct variant of an enum model as a container of its fields:
    /// `ident` is the variant's, `attrs` what the variant declares (its
    /// indexes and validators; nothing of the enum's own).
    pub fn of_variant(
        original: &'a DeriveInput,
        ident: &'a Ident,
        attrs: ContainerAttrs,
        fields: Vec<Field<'a>>,
    ) -> Container<'a> {
        Container {
            original,
            ident,
            attrs,
            fields,
        }
    }

    /// The collection: as declared, or `user_profiles` for `UserProfile`.
    pub fn collection(&self) -> String {
        match &self.attrs.collection {
            Some((_, name)) => name.clone(),
            None => format!("{}s", case::snake(&self.ident.to_string())),
        }
    }

    /// The fields that appear in the stored document.
    pub fn stored_fields(&self) -> impl Iterator<Item = &Field<'a>> {
        self.fields
            .iter()
            .filter(|f| !f.attrs.serde_skipped && !f.attrs.flatten)
    }

    pub fn field_named(&self, ident: &Ident) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.ident == ident)
    }

    /// The version key, `None` with `versioning = false`.
    pub fn version_key(&self) -> Option<String> {
        match (&self.attrs.versioning, &self.attrs.version_key) {
            (Some((_, false)), _) => None,
            (_, Some((_, key))) => Some(key.clone()),
            _ => Some("__v".to_string()),
        }
    }
}

/// The fields of a struct (or a struct variant), their BSON names after
/// serde's `rename` and then `rename` rule.
pub fn named_fields<'a>(
    cx: &Ctxt,
    named: &'a syn::FieldsNamed,
    rename_all: Option<crate::case::RenameRule>,
) -> Vec<Field<'a>> {
    named
        .named
        .iter()
        .map(|field| {
            let ident = field.ident.as_ref().expect("named field");
            let attrs = FieldAttrs::parse(cx, field);
            let rust_name = ident.to_string();
            let rust_name = rust_name.strip_prefix("r#").unwrap_or(&rust_name);
            let bson_name = match (&attrs.rename, rename_all) {
                (Some(rename), _) => rename.clone(),
                (None, Some(rule)) => rule.apply(rust_name),
                (None, None) => rust_name.to_string(),
            };
            Field {
                original: field,
                ident,
                ty: &field.ty,
                attrs,
                bson_name,
            }
        })
        .collect()
}
