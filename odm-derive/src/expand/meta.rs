//! The `Document` impl with the model's metadata.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Container;
use crate::attr::ConcurrencyAttr;

/// BSON names of the fields named by `idents`.
fn bson_names(cont: &Container, idents: &[syn::Ident]) -> Vec<String> {
    idents
        .iter()
        .filter_map(|i| cont.field_named(i))
        .map(|f| f.bson_name.clone())
        .collect()
}

pub fn impl_document(cont: &Container) -> TokenStream {
    let ident = cont.ident;
    let generics = super::bounds::with_document_bounds(cont.original, false);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = cont.original.generics.split_for_impl();
    let name = ident.to_string();
    let collection = cont.collection();
    let key = match cont.version_key() {
        Some(key) => quote!(::core::option::Option::Some(#key)),
        None => quote!(::core::option::Option::None),
    };
    let concurrency = match &cont.attrs.concurrency {
        None => quote!(::odm::__private::Concurrency::Off),
        Some((_, ConcurrencyAttr::All)) => quote!(::odm::__private::Concurrency::All),
        Some((_, ConcurrencyAttr::Include(idents))) => {
            let names = bson_names(cont, idents);
            quote!(::odm::__private::Concurrency::Include(&[#(#names),*]))
        }
        Some((_, ConcurrencyAttr::Exclude(idents))) => {
            let names = bson_names(cont, idents);
            quote!(::odm::__private::Concurrency::Exclude(&[#(#names),*]))
        }
    };
    let skip: Vec<&str> = cont
        .fields
        .iter()
        .filter(|f| f.attrs.skip_versioning.is_some())
        .map(|f| f.bson_name.as_str())
        .collect();
    let fields = cont.stored_fields().map(|f| {
        let rust = f.ident.to_string();
        let bson = &f.bson_name;
        quote!((#rust, #bson))
    });
    let indexes = super::indexes::index_specs(cont);
    let validate = super::validate::document_method(cont);
    quote! {
        impl #impl_generics ::odm::__private::Document for #ident #ty_generics #where_clause {
            #validate
            fn __odm_meta() -> &'static ::odm::__private::Meta {
                static META: ::odm::__private::Meta = ::odm::__private::Meta {
                    name: #name,
                    collection: #collection,
                    versioning: ::odm::__private::Versioning {
                        key: #key,
                        concurrency: #concurrency,
                        skip: &[#(#skip),*],
                    },
                    fields: &[#(#fields),*],
                    indexes: #indexes,
                };
                &META
            }
        }
    }
}
