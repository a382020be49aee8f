//! The parsed enum model: the enum's own attributes (a [`Container`]
//! without fields), serde's representation, and one [`Variant`] per kind.

use syn::{DataEnum, DeriveInput, Fields, Ident, Type};

use crate::ast::{named_fields, Container};
use crate::attr::enums::{EnumSerde, VariantAttrs};
use crate::attr::ContainerAttrs;
use crate::ctxt::Ctxt;

pub struct EnumModel<'a> {
    /// The enum's `#[odm(..)]` (collection, versioning, ...), as a
    /// container with no fields of its own.
    pub base: Container<'a>,
    pub serde: EnumSerde,
    pub variants: Vec<Variant<'a>>,
}

/// One variant: one kind of document.
pub struct Variant<'a> {
    pub original: &'a syn::Variant,
    pub ident: &'a Ident,
    /// The stored kind: the variant's serde name.
    pub name: String,
    pub attrs: VariantAttrs,
    pub shape: Shape<'a>,
}

/// What a variant holds.
pub enum Shape<'a> {
    /// `Click(Click)`: a struct the macro does not see.
    Newtype(&'a Type),
    /// `Click { .. }`: its fields as a container (with the variant's
    /// indexes and validators as its attributes).
    Struct(Box<Container<'a>>),
    /// `Click` or `Click(A, B)`: nothing a document can be made of.
    Other,
}

impl<'a> EnumModel<'a> {
    pub fn from_ast(cx: &Ctxt, input: &'a DeriveInput, data: &'a DataEnum) -> EnumModel<'a> {
        let attrs = ContainerAttrs::parse(cx, input);
        let serde = EnumSerde::parse(input);
        let rename_all = attrs.rename_all;
        let variants = data
            .variants
            .iter()
            .map(|variant| {
                let mut attrs = VariantAttrs::parse(cx, variant);
                let ident = &variant.ident;
                let name = match (&attrs.rename, rename_all) {
                    (Some(name), _) => name.clone(),
                    (None, Some(rule)) => rule.apply_to_variant(&ident.to_string()),
                    (None, None) => ident.to_string(),
                };
                let shape = match &variant.fields {
                    Fields::Unnamed(one) if one.unnamed.len() == 1 => {
                        Shape::Newtype(&one.unnamed[0].ty)
                    }
                    Fields::Named(named) => {
                        let rule = attrs.rename_all.or(serde.rename_all_fields);
                        let fields = named_fields(cx, named, rule);
                        let container_attrs = ContainerAttrs::of_variant(
                            std::mem::take(&mut attrs.indexes),
                            std::mem::take(&mut attrs.validate),
                        );
                        Shape::Struct(Box::new(Container::of_variant(
                            input,
                            ident,
                            container_attrs,
                            fields,
                        )))
                    }
                    _ => Shape::Other,
                };
                Variant {
                    original: variant,
                    ident,
                    name,
                    attrs,
                    shape,
                }
            })
            .collect();
        EnumModel {
            base: Container::of_variant(input, &input.ident, attrs, Vec::new()),
            serde,
            variants,
        }
    }

    pub fn ident(&self) -> &'a Ident {
        self.base.ident
    }

    /// The kind key: serde's `tag`.
    pub fn tag(&self) -> Option<&str> {
        self.serde.tag.as_ref().map(|(_, tag)| tag.as_str())
    }

    /// The struct variants' containers.
    pub fn struct_variants(&self) -> impl Iterator<Item = (&Variant<'a>, &Container<'a>)> {
        self.variants.iter().filter_map(|v| match &v.shape {
            Shape::Struct(cont) => Some((v, &**cont)),
            _ => None,
        })
    }
}
