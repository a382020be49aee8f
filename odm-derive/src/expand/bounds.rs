//! The where clause of the generated impls.
//!
//! `Document` has supertraits (`Serialize`, `DeserializeOwned`, `Send`,
//! `Sync`, `Unpin`, `'static`). For a generic struct rustc cannot prove
//! them for every `T`, so the impl states them of the struct itself:
//! `impl<T> Document for Wrapper<T> where Wrapper<T>: Serialize + ...`,
//! which holds exactly for the `T`s serde's own bounds allow.

use syn::{parse_quote, DeriveInput, Generics};

/// The struct's generics plus the supertraits of `Document` on the struct.
///
/// `higher_ranked` writes the bound as `for<'__odm> Type: ...`: rustc then
/// checks it where the impl is used, not on the impl itself, which is what
/// the stub emitted next to a derive error needs (a type whose serde derive
/// failed must not add errors of its own). Otherwise the bound is added
/// only for generic structs: on a plain struct it would hide rustc's clear
/// "`User: Serialize` is not satisfied" behind a trivial-bound error.
pub fn with_document_bounds(input: &DeriveInput, higher_ranked: bool) -> Generics {
    let mut generics = input.generics.clone();
    if !higher_ranked && generics.params.is_empty() {
        return generics;
    }
    let ident = &input.ident;
    let (_, ty_generics, _) = input.generics.split_for_impl();
    let binder = if higher_ranked {
        Some(quote::quote!(for<'__odm>))
    } else {
        None
    };
    generics.make_where_clause().predicates.push(parse_quote! {
        #binder #ident #ty_generics: ::odm::__private::Serialize
            + ::odm::__private::DeserializeOwned
            + ::core::marker::Send
            + ::core::marker::Sync
            + ::core::marker::Unpin
            + 'static
    });
    generics
}
