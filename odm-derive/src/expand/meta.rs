//! The `Document` impl with the model's metadata.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

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

/// The dotted BSON paths of the listed paths, as constant expressions.
fn bson_paths(cont: &Container, paths: &[crate::attr::paths::ListedPath]) -> Vec<TokenStream> {
    paths
        .iter()
        .map(|p| super::fields::listed_path(cont, p))
        .collect()
}

pub fn impl_document(cont: &Container) -> TokenStream {
    let ident = cont.ident;
    let mut generics = super::bounds::with_document_bounds(cont.original, false);
    if let Some(bound) = super::id::id_bound(cont) {
        generics.make_where_clause().predicates.push(bound);
    }
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
        Some((_, ConcurrencyAttr::Include(paths))) => {
            let names = bson_paths(cont, paths);
            quote!(::odm::__private::Concurrency::Include(&[#(#names),*]))
        }
        Some((_, ConcurrencyAttr::Exclude(paths))) => {
            let names = bson_paths(cont, paths);
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
    let arrays = skip_versioning_arrays(cont);
    let indexes = super::indexes::index_specs(cont);
    let validate = super::validate::document_method(cont);
    let field_check = super::validate::field_check_method(cont);
    let (timestamps, stamp) = timestamps(cont);
    let set_id = super::id::set_id_method(cont);
    let shard_key = match &cont.attrs.shard_key {
        Some((_, idents)) => bson_names(cont, idents),
        None => Vec::new(),
    };
    let hooks = cont.attrs.hooks.is_some();
    let hook_methods = super::hooks::hook_methods(cont);
    let guard = super::references::guard_method(cont);
    quote! {
        impl #impl_generics ::odm::__private::Schema for #ident #ty_generics #where_clause {
            #validate
            #field_check
            fn __odm_meta() -> &'static ::odm::__private::Meta {
                #arrays
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
                    timestamps: #timestamps,
                    shard_key: &[#(#shard_key),*],
                    hooks: #hooks,
                };
                &META
            }
            #stamp
            #set_id
            #hook_methods
        }
        impl #impl_generics ::odm::__private::Document for #ident #ty_generics #where_clause {
            #guard
        }
    }
}

/// `assert_array::<FieldType>()` for every `skip_versioning` field,
/// spanned at the type so a type that is no `BsonArray` is reported there.
pub fn skip_versioning_arrays(cont: &Container) -> TokenStream {
    cont.fields
        .iter()
        .filter(|f| f.attrs.skip_versioning.is_some())
        .map(|f| {
            let ty = f.ty;
            quote_spanned!(ty.span()=> ::odm::__private::assert_array::<#ty>();)
        })
        .collect()
}

/// The `timestamps` metadata and the `__odm_stamp` hook writing the two
/// fields. The trait call is spanned at each field's type, so a field of the
/// wrong type is reported there.
fn timestamps(cont: &Container) -> (TokenStream, TokenStream) {
    let Some((_, ts)) = &cont.attrs.timestamps else {
        return (quote!(::core::option::Option::None), TokenStream::new());
    };
    let find = |name: &str| cont.stored_fields().find(|f| f.bson_name == name);
    let (Some(created), Some(updated)) = (find(&ts.created_at), find(&ts.updated_at)) else {
        // check.rs reported it; this is never reached.
        return (quote!(::core::option::Option::None), TokenStream::new());
    };
    let put = |field: &crate::ast::Field, value: TokenStream| {
        let ty = field.ty;
        let ident = field.ident;
        quote_spanned! {ty.span()=>
            <#ty as ::odm::__private::TimestampField>::__odm_put(&mut self.#ident, #value)
        }
    };
    let put_created = put(created, quote!(at));
    let put_updated = put(updated, quote!(updated));
    let (created_name, updated_name) = (&ts.created_at, &ts.updated_at);
    let server_clock = ts.server_clock;
    let meta = quote! {
        ::core::option::Option::Some(::odm::__private::Timestamps {
            created_at: #created_name,
            updated_at: #updated_name,
            server_clock: #server_clock,
        })
    };
    let stamp = quote! {
        fn __odm_stamp(
            &mut self,
            created: ::core::option::Option<::odm::__private::DateTime>,
            updated: ::odm::__private::DateTime,
        ) {
            if let ::core::option::Option::Some(at) = created {
                #put_created;
            }
            #put_updated;
        }
    };
    (meta, stamp)
}
