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

/// The parts of a model's `Meta`, as tokens: the struct's and the enum
/// model's derive fill them in, [`meta_fn`] writes the one literal.
pub struct MetaParts {
    pub name: String,
    pub collection: String,
    /// The version key: `Option<&str>`.
    pub key: TokenStream,
    pub concurrency: TokenStream,
    pub skip: Vec<String>,
    /// `(rust, bson)` pairs.
    pub fields: Vec<TokenStream>,
    /// `&[IndexSpec, ..]`.
    pub indexes: TokenStream,
    pub timestamps: TokenStream,
    pub shard_key: Vec<String>,
    pub hooks: bool,
    /// `Option<Kinds>`.
    pub kinds: TokenStream,
    /// `Option<SchemaVersion>` (see [`schema_version`]).
    pub schema: TokenStream,
}

/// `fn __odm_meta` returning the model's `static META`, after the
/// `checks` (type assertions of the generated code).
pub fn meta_fn(checks: TokenStream, m: MetaParts) -> TokenStream {
    let MetaParts {
        name,
        collection,
        key,
        concurrency,
        skip,
        fields,
        indexes,
        timestamps,
        shard_key,
        hooks,
        kinds,
        schema,
    } = m;
    quote! {
        fn __odm_meta() -> &'static ::odm::__private::Meta {
            #checks
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
                kinds: #kinds,
                schema: #schema,
            };
            &META
        }
    }
}

/// The version key as `Option<&str>` tokens.
pub fn version_key(cont: &Container) -> TokenStream {
    match cont.version_key() {
        Some(key) => quote!(::core::option::Option::Some(#key)),
        None => quote!(::core::option::Option::None),
    }
}

/// The `timestamps` of the `Meta`: `Option<Timestamps>` tokens.
pub fn timestamps_meta(cont: &Container) -> TokenStream {
    match &cont.attrs.timestamps {
        Some((_, ts)) => {
            let (created, updated, server_clock) =
                (&ts.created_at, &ts.updated_at, ts.server_clock);
            quote! {
                ::core::option::Option::Some(::odm::__private::Timestamps {
                    created_at: #created,
                    updated_at: #updated,
                    server_clock: #server_clock,
                })
            }
        }
        None => quote!(::core::option::Option::None),
    }
}

pub fn impl_document(cont: &Container) -> TokenStream {
    let ident = cont.ident;
    let mut generics = super::bounds::with_document_bounds(cont.original, false);
    if let Some(bound) = super::id::id_bound(cont) {
        generics.make_where_clause().predicates.push(bound);
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = cont.original.generics.split_for_impl();
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
    let skip: Vec<String> = cont
        .fields
        .iter()
        .filter(|f| f.attrs.skip_versioning.is_some())
        .map(|f| f.bson_name.clone())
        .collect();
    let fields = cont
        .stored_fields()
        .map(|f| {
            let rust = f.ident.to_string();
            let bson = &f.bson_name;
            quote!((#rust, #bson))
        })
        .collect();
    let validate = super::validate::document_method(cont);
    let field_check = super::validate::field_check_method(cont);
    let stamp = stamp_method(cont);
    let set_id = super::id::set_id_method(cont);
    let shard_key = match &cont.attrs.shard_key {
        Some((_, idents)) => bson_names(cont, idents),
        None => Vec::new(),
    };
    let hook_methods = super::hooks::hook_methods(cont);
    let (schema, migrate) = schema_version(cont);
    let meta = meta_fn(
        skip_versioning_arrays(cont),
        MetaParts {
            name: ident.to_string(),
            collection: cont.collection(),
            key: version_key(cont),
            concurrency,
            skip,
            fields,
            indexes: super::indexes::index_specs(cont),
            timestamps: timestamps_meta(cont),
            shard_key,
            hooks: cont.attrs.hooks.is_some(),
            kinds: quote!(::core::option::Option::None),
            schema,
        },
    );
    let guard = super::references::guard_method(cont);
    let same = super::same::document_methods(cont);
    quote! {
        impl #impl_generics ::odm::__private::Schema for #ident #ty_generics #where_clause {
            #validate
            #field_check
            #meta
            #migrate
            #stamp
            #set_id
            #hook_methods
            #same
        }
        impl #impl_generics ::odm::__private::Document for #ident #ty_generics #where_clause {
            #guard
        }
    }
}

/// The `schema_version` metadata and the `__odm_migrate` method calling
/// the model's `migrate` function. The function is taken as a pointer of
/// the one signature, spanned at the path, so a function of another
/// signature is reported there.
pub fn schema_version(cont: &Container) -> (TokenStream, TokenStream) {
    let schema = &cont.attrs.schema;
    let (Some((_, version)), Some((_, path))) = (&schema.version, &schema.migrate) else {
        // Neither, or check.rs reported the missing one.
        return (quote!(::core::option::Option::None), TokenStream::new());
    };
    let key = schema.key.as_ref().map_or("__sv", |(_, key)| key.as_str());
    let meta = quote! {
        ::core::option::Option::Some(::odm::__private::SchemaVersion {
            key: #key,
            current: #version,
        })
    };
    // The local is named at the call site, as its use below is: spanned
    // at the path, it would be another binding for hygiene when the
    // derive runs inside a `macro_rules!` expansion. The rest is spanned
    // at the path, where a wrong signature is reported.
    let local = proc_macro2::Ident::new("step", proc_macro2::Span::call_site());
    let step = quote_spanned! {path.span()=>
        let #local: fn(
            &mut ::odm::__private::BsonDocument,
            u32,
        ) -> ::core::result::Result<(), ::odm::__private::MigrationError> = #path;
    };
    let method = quote! {
        fn __odm_migrate(
            doc: &mut ::odm::__private::BsonDocument,
            from: u32,
        ) -> ::core::result::Result<(), ::odm::__private::MigrationError> {
            #step
            step(doc, from)
        }
    };
    (meta, method)
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

/// The `__odm_stamp` hook writing the two `timestamps` fields. The trait
/// call is spanned at each field's type, so a field of the wrong type is
/// reported there.
fn stamp_method(cont: &Container) -> TokenStream {
    let Some((_, ts)) = &cont.attrs.timestamps else {
        return TokenStream::new();
    };
    let find = |name: &str| cont.stored_fields().find(|f| f.bson_name == name);
    let (Some(created), Some(updated)) = (find(&ts.created_at), find(&ts.updated_at)) else {
        // check.rs reported it; this is never reached.
        return TokenStream::new();
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
    quote! {
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
    }
}
