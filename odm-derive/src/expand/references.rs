//! The `Linked` impl: the model's id type, its reference fields under a
//! rule, the models whose rules point at it; and the `__odm_guard` method
//! that hands a model with rules the versions of its writes and deletes
//! that apply them. Data and glue: the rules' code is `odm::refs`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Container, Field};
use crate::attr::references::OnDelete;

/// The fields with `reference(..)`, in order.
fn rule_fields<'c, 'a>(cont: &'c Container<'a>) -> Vec<&'c Field<'a>> {
    cont.fields
        .iter()
        .filter(|f| f.attrs.reference.is_some())
        .collect()
}

/// Whether the model has referential rules, on either side.
pub fn has_rules(cont: &Container) -> bool {
    cont.attrs.referenced_by.is_some() || !rule_fields(cont).is_empty()
}

/// `fn __odm_guard` of the `Document` impl, for a model with rules;
/// nothing otherwise (the trait's default: no rules). Spanned at the first
/// rule, where a model that is not `Clone` is reported.
pub fn guard_method(cont: &Container) -> TokenStream {
    if !has_rules(cont) {
        return TokenStream::new();
    }
    let span = match (&cont.attrs.referenced_by, rule_fields(cont).first()) {
        (Some((span, _)), _) => *span,
        (None, Some(field)) => field.attrs.reference.as_ref().map(|(s, _)| *s).unwrap(),
        (None, None) => unreachable!("has_rules"),
    };
    let r = quote!(::odm::__private::refs);
    quote_spanned! {span=>
        fn __odm_guard(
            op: ::core::any::TypeId,
        ) -> ::core::option::Option<&'static (dyn ::core::any::Any + ::core::marker::Send + ::core::marker::Sync)> {
            #r::guard::<Self>(op)
        }
    }
}

/// `impl Linked` (and `ReferencedBy<A>` for each listed `A`).
pub fn impl_linked(cont: &Container, stub: bool) -> TokenStream {
    let ident = cont.ident;
    let r = quote!(::odm::__private::refs);
    let mut generics = super::bounds::with_document_bounds(cont.original, stub);
    let id = cont.stored_fields().find(|f| f.bson_name == "_id");
    if let (Some(id), false) = (id, cont.original.generics.params.is_empty()) {
        let ty = id.ty;
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote! {
                #ty: ::odm::__private::Serialize
                    + ::odm::__private::DeserializeOwned
                    + ::core::marker::Send
                    + ::core::marker::Sync
                    + 'static
            });
    }
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let (_, ty_generics, _) = cont.original.generics.split_for_impl();
    let (id_ty, id_body) = match (id, stub) {
        (Some(id), false) => {
            let (ty, field) = (id.ty, id.ident);
            (quote!(#ty), quote!(&self.#field))
        }
        _ => (quote!(()), quote!(::core::unreachable!())),
    };
    if stub {
        return quote! {
            impl #impl_generics #r::Linked for #ident #ty_generics #where_clause {
                type Id = ();
                fn __odm_id(&self) -> &() { #id_body }
            }
        };
    }
    let fields = rule_fields(cont);
    let rules = fields.iter().map(|f| rule(f));
    let refs = fields.iter().enumerate().map(|(i, f)| {
        let (ty, field) = (f.ty, f.ident);
        let (_, attr) = f.attrs.reference.as_ref().expect("a rule field");
        let span = attr.span;
        let kind = match attr.on_delete {
            OnDelete::Clear => quote_spanned!(span=> let _ = #r::check_clear::<#ty>;),
            OnDelete::Pull => quote_spanned!(span=> let _ = #r::check_pull::<#ty>;),
            OnDelete::Refuse | OnDelete::Cascade => TokenStream::new(),
        };
        let listed = quote_spanned!(ty.span()=> let _ = #r::check_rule::<#ty, Self>;);
        let ids = quote_spanned! {ty.span()=>
            <#ty as #r::RefField>::each_id(&self.#field, &mut |id| each(#i, id));
        };
        quote!(#kind #listed #ids)
    });
    let referrers = cont
        .attrs
        .referenced_by
        .iter()
        .flat_map(|(_, models)| models.iter())
        .collect::<Vec<_>>();
    let listed = referrers.iter().map(|model| {
        quote_spanned! {model.span()=>
            impl #impl_generics #r::ReferencedBy<#model> for #ident #ty_generics #where_clause {}
        }
    });
    let entries = referrers
        .iter()
        .map(|model| quote_spanned!(model.span()=> #r::referrer::<#model>()));
    quote! {
        impl #impl_generics #r::Linked for #ident #ty_generics #where_clause {
            type Id = #id_ty;
            fn __odm_id(&self) -> &Self::Id {
                #id_body
            }
            const RULES: &'static [#r::Rule] = &[#(#rules),*];
            const REFERRERS: &'static [#r::Referrer] = &[#(#entries),*];
            fn __odm_refs(
                &self,
                each: &mut dyn ::core::ops::FnMut(usize, &::odm::__private::Bson),
            ) {
                #(#refs)*
            }
        }
        #(#listed)*
    }
}

/// The `Rule` of one reference field.
fn rule(field: &Field) -> TokenStream {
    let r = quote!(::odm::__private::refs);
    let ty = field.ty;
    let path = &field.bson_name;
    let (_, attr) = field.attrs.reference.as_ref().expect("a rule field");
    let variant = syn::Ident::new(attr.on_delete.variant(), attr.span);
    let target = quote_spanned!(ty.span()=> <#ty as #r::RefField>::Target);
    // Spanned at the field's type: a type that holds no refs is reported
    // there, once.
    quote_spanned! {ty.span()=>
        #r::Rule {
            path: #path,
            on_delete: #r::OnDelete::#variant,
            shape: <#ty as #r::RefField>::SHAPE,
            target: ::core::any::TypeId::of::<#target>,
            target_meta: <#target as ::odm::__private::Schema>::__odm_meta,
        }
    }
}
