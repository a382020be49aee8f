//! The `__odm_set_id` hook: writes an id odm generated on insert into the
//! field stored as `_id`, through `odm::__private::set_id` (which
//! deserializes it into the field's type).

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{parse_quote_spanned, WherePredicate};

use crate::ast::{Container, Field};

fn id_field<'c, 'a>(cont: &'c Container<'a>) -> Option<&'c Field<'a>> {
    cont.stored_fields().find(|f| f.bson_name == "_id")
}

/// `fn __odm_set_id`, spanned at the id field's type so a type that cannot
/// be deserialized is reported there.
pub fn set_id_method(cont: &Container) -> TokenStream {
    let Some(field) = id_field(cont) else {
        // check.rs reported it; this is never reached.
        return TokenStream::new();
    };
    let ty = field.ty;
    let ident = field.ident;
    quote_spanned! {ty.span()=>
        fn __odm_set_id(
            &mut self,
            id: ::odm::__private::Bson,
        ) -> ::core::result::Result<(), ::odm::__private::IdError> {
            ::odm::__private::set_id::<#ty>(&mut self.#ident, id)
        }
    }
}

/// For a generic struct, `IdType: DeserializeOwned` (the struct's own bound
/// does not state it of the field when its type is a parameter).
pub fn id_bound(cont: &Container) -> Option<WherePredicate> {
    if cont.original.generics.params.is_empty() {
        return None;
    }
    let ty = id_field(cont)?.ty;
    Some(parse_quote_spanned! {ty.span()=>
        #ty: ::odm::__private::DeserializeOwned
    })
}
