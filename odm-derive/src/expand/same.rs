//! What a save needs to skip the fields that did not change without
//! serializing them (see `odm`'s `codec::same` and `model::shadow`): for a
//! document, the stored names of its top-level fields and three small
//! methods comparing and copying them one by one; for an embedded struct
//! (`#[derive(Fields)]`), `Same` compared field by field. Each field asks
//! through `Probe`, which answers "not known" for a type without `Same`
//! (or `Clone`), so any field type compiles.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Container, Field};

/// At most this many top-level fields are compared; the others are
/// serialized on every save (the bits of a `u128`).
const MAX_TRACKED: usize = 128;

/// The fields a document compares: the stored ones, in declaration order,
/// unless a field is flattened (serde then writes a map whose keys are
/// not the fields') or the container serializes through another type.
pub(super) fn tracked<'c, 'a>(cont: &'c Container<'a>) -> Vec<&'c Field<'a>> {
    if cont.fields.iter().any(|f| f.attrs.flatten) || cont.attrs.serde_into {
        return Vec::new();
    }
    cont.stored_fields().take(MAX_TRACKED).collect()
}

/// The `Schema` methods of a document: `__odm_tracked`, `__odm_sealed`,
/// `__odm_in_order`, `__odm_compares`, `__odm_tail`, `__odm_shadow`,
/// `__odm_unchanged` and `__odm_reshadow`; nothing when no field is
/// compared (the defaults compare nothing).
pub fn document_methods(cont: &Container) -> TokenStream {
    let fields = tracked(cont);
    if fields.is_empty() {
        return TokenStream::new();
    }
    let s = quote!(::odm::__private::same);
    let names = fields.iter().map(|f| &f.bson_name);
    let idents: Vec<_> = fields.iter().map(|f| f.ident).collect();
    let bits: Vec<TokenStream> = (0..fields.len()).map(|i| quote!((1u128 << #i))).collect();
    let compare = fields.iter().zip(&bits).enumerate().map(|(i, (f, bit))| {
        let ident = f.ident;
        // A sequence written in order (no `serialize_with`) may copy its
        // same first elements.
        let prefix = if f.attrs.custom_ser {
            quote!()
        } else {
            quote!(n => out.prefixes.push((#i, n)),)
        };
        // Every field of a `Same` type, scalars too (a field found
        // unchanged is passed over unread, for less than writing it); a
        // field of another type compares as "not known" (0).
        quote! {
            if only & #bit != 0 {
                match (&#s::Probe(&self.#ident)).odm_compare(&shadow.#ident) {
                    #s::SAME => out.fields |= #bit,
                    0 => {}
                    #prefix
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
            }
        }
    });
    let indexes = 0..fields.len();
    let types = fields.iter().map(|f| f.ty);
    let sealed_bits = bits.clone();
    let in_order = fields
        .iter()
        .zip(&bits)
        .filter(|(f, _)| !f.attrs.custom_ser)
        .map(|(_, bit)| bit);
    // A sequence written as its own value writes its tail itself.
    let tails = fields
        .iter()
        .enumerate()
        .filter(|(_, f)| !f.attrs.custom_ser)
        .map(|(i, f)| {
            let ident = f.ident;
            quote!(#i => (&#s::Probe(&self.#ident)).odm_tail(from, out),)
        });
    quote! {
        fn __odm_in_order() -> u128 {
            0u128 #(| #in_order)*
        }
        fn __odm_tracked() -> &'static [&'static str] {
            &[#(#names),*]
        }
        fn __odm_sealed() -> u128 {
            use #s::{ViaSealed as _, ViaUnsealed as _};
            let mut bits = 0u128;
            #(
                if (&#s::TypeProbe::<#types>::NEW).odm_sealed() {
                    bits |= #sealed_bits;
                }
            )*
            bits
        }
        fn __odm_compares(&self) -> bool {
            use #s::{ViaNothing as _, ViaSame as _};
            false #(|| (&#s::Probe(&self.#idents)).odm_tracked())*
        }
        fn __odm_tail(
            &self,
            field: usize,
            from: usize,
            out: &mut #s::TailOut<'_>,
        ) -> ::core::option::Option<bool> {
            use #s::{ViaNoTail as _, ViaTail as _};
            match field {
                #(#tails)*
                _ => ::core::option::Option::None,
            }
        }
        fn __odm_shadow(&self) -> ::core::option::Option<::odm::__private::Box<Self>> {
            use #s::{ViaClone as _, ViaNoClone as _};
            (&#s::Probe(self)).odm_clone().map(::odm::__private::Box::new)
        }
        fn __odm_unchanged(&self, shadow: &Self, only: u128, out: &mut #s::Unchanged) {
            use #s::{ViaNothing as _, ViaSame as _};
            #(#compare)*
        }
        fn __odm_reshadow(&self, shadow: &mut Self, known: &#s::Unchanged) -> u128 {
            use #s::{ViaNothing as _, ViaSame as _};
            let mut bits = known.fields;
            #(
                if known.fields & #bits == 0
                    && (&#s::Probe(&self.#idents)).odm_sync(&mut shadow.#idents, known.prefix(#indexes))
                {
                    bits |= #bits;
                }
            )*
            bits
        }
    }
}

/// `Same` for an embedded struct, field by field (a field serde skips
/// writes nothing and is not compared); nothing for a generic struct,
/// whose fields' types are not known here.
pub fn impl_same(cont: &Container) -> TokenStream {
    if !cont.original.generics.params.is_empty() {
        return TokenStream::new();
    }
    let s = quote!(::odm::__private::same);
    let ident = cont.ident;
    let idents: Vec<_> = cont
        .fields
        .iter()
        .filter(|f| !f.attrs.serde_skipped)
        .map(|f| f.ident)
        .collect();
    let types = cont
        .fields
        .iter()
        .filter(|f| !f.attrs.serde_skipped)
        .map(|f| f.ty);
    quote! {
        impl #s::Same for #ident {
            fn __odm_sealed() -> bool {
                use #s::{ViaSealed as _, ViaUnsealed as _};
                static SEALED: ::core::sync::atomic::AtomicU8 =
                    ::core::sync::atomic::AtomicU8::new(0);
                #s::sealed_struct::<Self>(&SEALED, || {
                    true #(&& (&#s::TypeProbe::<#types>::NEW).odm_sealed())*
                })
            }
            #[inline]
            fn __odm_same(&self, other: &Self) -> bool {
                use #s::{ViaNothing as _, ViaSame as _};
                true #(&& (&#s::Probe(&self.#idents)).odm_same(&other.#idents))*
            }
            fn __odm_sync_from(&mut self, from: &Self) {
                use #s::{ViaNothing as _, ViaSame as _};
                // A field that cannot be synced leaves the struct never
                // the same, which is checked after.
                #(
                    if !(&#s::Probe(&self.#idents)).odm_same(&from.#idents) {
                        (&#s::Probe(&from.#idents)).odm_sync(&mut self.#idents, 0);
                    }
                )*
            }
        }
    }
}
