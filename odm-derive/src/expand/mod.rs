//! Code generation: the `Document` impl, holding data and a little glue.

mod bounds;
mod enums;
pub mod fields;
mod hooks;
mod id;
mod indexes;
mod meta;
mod references;
pub mod same;
pub mod validate;

use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ast::Container;
use crate::check;
use crate::ctxt::Ctxt;

pub fn derive_document(input: &DeriveInput) -> TokenStream {
    if let syn::Data::Enum(data) = &input.data {
        return enums::derive_enum(input, data);
    }
    let cx = Ctxt::new();
    let container = Container::from_ast(&cx, input);
    if let Some(container) = &container {
        check::check(&cx, container);
    }
    match (cx.check(), container) {
        (Ok(()), Some(container)) => {
            let document = meta::impl_document(&container);
            let validate = validate::impl_validate(&container);
            let fields = fields::impl_fields(&container);
            let members = fields::members(&container);
            let linked = references::impl_linked(&container, false);
            wrap(quote!(#document #validate #fields #members #linked))
        }
        // The type checks of the generated code are independent of the
        // attribute errors: report them in the same compile. The paths are
        // right even when an attribute is not, so uses of `T::fields()`
        // raise no follow-on errors.
        (Err(errors), Some(container)) => {
            let type_checks = meta::skip_versioning_arrays(&container);
            let stub = errors_with_stub(input, errors, type_checks);
            let fields = fields::impl_fields(&container);
            let members = fields::members(&container);
            let fields = wrap(quote!(#fields #members));
            let linked = wrap(references::impl_linked(&container, true));
            quote!(#stub #fields #linked)
        }
        (Err(errors), None) => errors_with_stub(input, errors, Default::default()),
        (Ok(()), None) => unreachable!("a missing container always records an error"),
    }
}

fn wrap(body: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_attributes, unused_qualifications, clippy::all)]
        const _: () = {
            #body
        };
    }
}

/// The errors, plus an impl whose body never runs, so uses of the type as
/// a `Document` raise no follow-on errors.
///
/// Its where clause is higher-ranked (see `bounds`), so a type that is not
/// (or, after a serde error, no longer) `Serialize` adds no error either.
fn errors_with_stub(
    input: &DeriveInput,
    errors: Vec<syn::Error>,
    type_checks: TokenStream,
) -> TokenStream {
    let compile_errors = errors.iter().map(syn::Error::to_compile_error);
    let ident = &input.ident;
    let generics = bounds::with_document_bounds(input, true);
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let validate_stub = validate::stub(input);
    let stub = wrap(quote! {
        impl #impl_generics ::odm::__private::Schema for #ident #ty_generics #where_clause {
            fn __odm_meta() -> &'static ::odm::__private::Meta {
                #type_checks
                ::core::unreachable!()
            }
        }
        impl #impl_generics ::odm::__private::Document for #ident #ty_generics #where_clause {}
        #validate_stub
    });
    quote! {
        #(#compile_errors)*
        #stub
    }
}
