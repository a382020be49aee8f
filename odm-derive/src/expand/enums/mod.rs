//! `#[derive(Document)]` on an internally tagged enum: the `Document`
//! impl of an enum model, its `Validate` impl, and one `Kind` impl per
//! newtype variant (the variant's type -> its kind name, for
//! `model.variant::<V>()`).
//!
//! The generated code holds data and glue only: the kinds and per-kind
//! indexes in the `Meta`, one `match` per hook (validators, timestamps,
//! the generated id, the fast decoding of the variant a stored kind
//! names). A struct variant's fields are reached by name; a newtype
//! variant's type, which the macro cannot see, through serde
//! (`odm::__private::kind`) and through its `Fields` impl for index paths.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{DataEnum, DeriveInput, Ident};

mod indexes;
mod validate;

use super::meta::MetaParts;
use crate::ast::enums::{EnumModel, Shape, Variant};
use crate::ast::Field;
use crate::attr::ConcurrencyAttr;
use crate::check;
use crate::ctxt::Ctxt;

pub fn derive_enum(input: &DeriveInput, data: &DataEnum) -> TokenStream {
    let cx = Ctxt::new();
    let model = EnumModel::from_ast(&cx, input, data);
    check::enums::check(&cx, &model);
    match cx.check() {
        Ok(()) => super::wrap(impl_enum(&model)),
        Err(errors) => {
            let arrays = skip_versioning_arrays(&model);
            let stub = super::errors_with_stub(input, errors, arrays);
            // The kinds' impls hold no attribute: uses of `variant::<V>()`
            // raise no follow-on errors.
            let kinds = match input.generics.params.is_empty() {
                true => super::wrap(kind_impls(&model)),
                false => TokenStream::new(),
            };
            quote!(#stub #kinds)
        }
    }
}

fn impl_enum(model: &EnumModel) -> TokenStream {
    let ident = model.ident();
    let meta = meta(model);
    let validate = validate::validate_method(model);
    let stamp = stamp_method(model);
    let set_id = set_id_method(model);
    let decode = decode_method(model);
    let hooks = super::hooks::hook_methods(&model.base);
    let validate_impl = validate::validate_impl(model);
    let kinds = kind_impls(model);
    quote! {
        impl ::odm::__private::Schema for #ident {
            #meta
            #validate
            #stamp
            #set_id
            #decode
            #hooks
        }
        impl ::odm::__private::Document for #ident {}
        #validate_impl
        #kinds
    }
}

/// `fn __odm_meta` with the enum's `Meta`: its kinds, and the indexes of
/// every kind.
fn meta(model: &EnumModel) -> TokenStream {
    let base = &model.base;
    let (schema, migrate) = super::meta::schema_version(base);
    let concurrency = match &base.attrs.concurrency {
        Some((_, ConcurrencyAttr::All)) => quote!(::odm::__private::Concurrency::All),
        _ => quote!(::odm::__private::Concurrency::Off),
    };
    let mut skip: Vec<String> = Vec::new();
    for (_, cont) in model.struct_variants() {
        for field in cont
            .fields
            .iter()
            .filter(|f| f.attrs.skip_versioning.is_some())
        {
            if !skip.contains(&field.bson_name) {
                skip.push(field.bson_name.clone());
            }
        }
    }
    let tag = model.tag().unwrap_or_default();
    let names = model.variants.iter().map(|v| &v.name);
    let indexes = model
        .variants
        .iter()
        .flat_map(|v| indexes::variant_indexes(model, v));
    let meta = super::meta::meta_fn(
        skip_versioning_arrays(model),
        MetaParts {
            name: model.ident().to_string(),
            collection: base.collection(),
            key: super::meta::version_key(base),
            concurrency,
            skip,
            fields: Vec::new(),
            indexes: quote!(&[#(#indexes),*]),
            timestamps: super::meta::timestamps_meta(base),
            shard_key: Vec::new(),
            hooks: base.attrs.hooks.is_some(),
            kinds: quote! {
                ::core::option::Option::Some(::odm::__private::kind::Kinds {
                    key: #tag,
                    names: &[#(#names),*],
                })
            },
            schema,
        },
    );
    quote!(#meta #migrate)
}

/// `assert_array::<T>()` for every `skip_versioning` field of a struct
/// variant.
fn skip_versioning_arrays(model: &EnumModel) -> TokenStream {
    model
        .struct_variants()
        .map(|(_, cont)| super::meta::skip_versioning_arrays(cont))
        .collect()
}

/// `Self::Variant(__value)` or `Self::Variant { a, b, .. }` binding the
/// given fields of a struct variant (by their Rust names).
fn pattern(variant: &Variant, fields: &[&Field]) -> TokenStream {
    let ident = variant.ident;
    match &variant.shape {
        Shape::Newtype(_) => quote!(Self::#ident(__value)),
        _ => {
            let names = fields.iter().map(|f| {
                let (name, binding) = (f.ident, binding(f));
                quote!(#name: #binding)
            });
            quote!(Self::#ident { #(#names,)* .. })
        }
    }
}

/// The name a struct variant's field is bound to in a [`pattern`] (apart
/// from the generated code's own names).
fn binding(field: &Field) -> Ident {
    let name = field.ident.to_string();
    format_ident!("__field_{}", name.strip_prefix("r#").unwrap_or(&name))
}

/// `fn __odm_stamp`: a struct variant's two fields written directly
/// (their types checked by `TimestampField`), a newtype variant's type
/// through serde.
fn stamp_method(model: &EnumModel) -> TokenStream {
    let Some((_, ts)) = &model.base.attrs.timestamps else {
        return TokenStream::new();
    };
    let (created_name, updated_name) = (&ts.created_at, &ts.updated_at);
    let arms = model.variants.iter().map(|variant| match &variant.shape {
        Shape::Newtype(_) => {
            let pattern = pattern(variant, &[]);
            quote! {
                #pattern => ::odm::__private::kind::stamp(
                    __value,
                    (#created_name, #updated_name),
                    created,
                    updated,
                ),
            }
        }
        Shape::Struct(cont) => {
            let find = |name: &str| cont.stored_fields().find(|f| f.bson_name == name);
            let (Some(created), Some(updated)) = (find(created_name), find(updated_name)) else {
                // check::enums reported it; never reached.
                return TokenStream::new();
            };
            let put = |field: &Field, value: TokenStream| {
                let ty = field.ty;
                let ident = binding(field);
                quote_spanned! {ty.span()=>
                    <#ty as ::odm::__private::TimestampField>::__odm_put(#ident, #value)
                }
            };
            let put_created = put(created, quote!(at));
            let put_updated = put(updated, quote!(updated));
            let pattern = pattern(variant, &[created, updated]);
            quote! {
                #pattern => {
                    if let ::core::option::Option::Some(at) = created {
                        #put_created;
                    }
                    #put_updated;
                }
            }
        }
        Shape::Other => TokenStream::new(),
    });
    quote! {
        fn __odm_stamp(
            &mut self,
            created: ::core::option::Option<::odm::__private::DateTime>,
            updated: ::odm::__private::DateTime,
        ) {
            match self {
                #(#arms)*
            }
        }
    }
}

/// `fn __odm_set_id`: into a struct variant's `_id` field, or a newtype
/// variant's type through serde (an error when it keeps no `_id`).
fn set_id_method(model: &EnumModel) -> TokenStream {
    let arms = model.variants.iter().map(|variant| match &variant.shape {
        Shape::Newtype(_) => {
            let pattern = pattern(variant, &[]);
            quote!(#pattern => ::odm::__private::kind::set_id(__value, id),)
        }
        Shape::Struct(cont) => {
            let Some(field) = cont.stored_fields().find(|f| f.bson_name == "_id") else {
                return TokenStream::new();
            };
            let ty = field.ty;
            let ident = binding(field);
            let pattern = pattern(variant, &[field]);
            quote_spanned! {ty.span()=>
                #pattern => ::odm::__private::set_id::<#ty>(#ident, id),
            }
        }
        Shape::Other => TokenStream::new(),
    });
    quote! {
        fn __odm_set_id(
            &mut self,
            id: ::odm::__private::Bson,
        ) -> ::core::result::Result<(), ::odm::__private::IdError> {
            match self {
                #(#arms)*
            }
        }
    }
}

/// `fn __odm_fast_decode`: the newtype variant the stored kind names,
/// decoded as its type on the fast path; a struct variant (and anything
/// the fast path gives up on) goes through serde's own decoding.
fn decode_method(model: &EnumModel) -> TokenStream {
    let tag = model.tag().unwrap_or_default();
    let arms = model
        .variants
        .iter()
        .filter_map(|variant| match &variant.shape {
            Shape::Newtype(ty) => {
                let (name, ident) = (&variant.name, variant.ident);
                Some(quote! {
                    #name => __decoder.decode::<#ty>().map(|(v, seen)| (Self::#ident(v), seen)),
                })
            }
            _ => None,
        });
    quote! {
        fn __odm_fast_decode<'__a>(
            bytes: &'__a [u8],
            skip: ::odm::__private::kind::Hidden,
        ) -> ::core::option::Option<(Self, ::odm::__private::kind::Seen<'__a>)> {
            ::odm::__private::kind::decode_kind(bytes, skip, #tag, |__kind, __decoder| {
                match __kind {
                    #(#arms)*
                    _ => ::core::option::Option::None,
                }
            })
        }
    }
}

/// `impl Kind<Enum> for V` for each newtype variant `Variant(V)`.
fn kind_impls(model: &EnumModel) -> TokenStream {
    let ident = model.ident();
    // One impl per type: a type held twice is an error already reported.
    let mut seen = Vec::new();
    model
        .variants
        .iter()
        .filter_map(|variant| match &variant.shape {
            Shape::Newtype(ty) if !seen.contains(&quote!(#ty).to_string()) => {
                seen.push(quote!(#ty).to_string());
                let (name, v) = (&variant.name, variant.ident);
                let span = ty.span();
                Some(quote_spanned! {span=>
                    impl ::odm::__private::kind::Kind<#ident> for #ty {
                        const NAME: &'static str = #name;
                        fn into_model(self) -> #ident {
                            #ident::#v(self)
                        }
                    }
                })
            }
            _ => None,
        })
        .collect()
}
