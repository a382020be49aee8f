//! The indexes of an enum model's kinds: every index declared on a
//! variant (or a struct variant's field) is partial on the kind key and
//! named after its kind; a newtype variant's keys and partial filter are
//! its type's typed paths.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{Ident, Type};

use crate::ast::enums::{EnumModel, Shape, Variant};
use crate::ast::index::Declared;
use crate::attr::index::IndexAttr;
use crate::attr::partial::{Cond, Term};
use crate::expand::indexes::{cond_at, key_tokens, keys_of, spec_tokens};

/// The partial filter term `{kind: name}` that makes an index one kind's.
fn kind_term(model: &EnumModel, variant: &Variant) -> TokenStream {
    let tag = model.tag().unwrap_or_default();
    let name = &variant.name;
    quote! {
        ::odm::__private::Term::Cond(::odm::__private::Condition {
            path: #tag,
            op: ::odm::__private::PartialOp::Eq,
            value: ::odm::__private::PartialValue::Str(#name),
        })
    }
}

/// The `IndexSpec`s of one kind: partial on the kind, named as declared
/// or MongoDB's default name followed by `_<kind>`.
pub fn variant_indexes(model: &EnumModel, variant: &Variant) -> Vec<TokenStream> {
    let kind = kind_term(model, variant);
    match &variant.shape {
        Shape::Struct(cont) => cont
            .declared_indexes()
            .into_iter()
            .map(|d| {
                let name = match d.named {
                    true => d.name.clone(),
                    false => format!("{}_{}", d.name, variant.name),
                };
                spec_tokens(&d, quote!(#name), keys_of(&d), vec![kind.clone()])
            })
            .collect(),
        Shape::Newtype(ty) => variant
            .attrs
            .indexes
            .iter()
            .map(|index| newtype_index(variant, ty, index, kind.clone()))
            .collect(),
        Shape::Other => Vec::new(),
    }
}

/// The BSON path of the field `ident` of the newtype variant's type `ty`,
/// as a constant expression of its typed paths (a misspelled field does
/// not compile, and `ty` must derive `odm::Fields`).
fn field_path(ty: &Type, ident: &Ident) -> TokenStream {
    quote_spanned! {ident.span()=>
        ::odm::__private::fields::path(&::odm::__private::fields::root::<#ty>().#ident())
    }
}

/// One index of a newtype variant: keys and partial filter through `ty`'s
/// typed paths; the default name joined at compile time.
fn newtype_index(
    variant: &Variant,
    ty: &Type,
    index: &IndexAttr,
    kind: TokenStream,
) -> TokenStream {
    let keys: Vec<TokenStream> = index
        .keys
        .iter()
        .map(|(ident, k)| {
            let path = field_path(ty, ident);
            let k = key_tokens(*k);
            quote!((#path, #k))
        })
        .collect();
    let name = match &index.name {
        Some(lit) => quote!(#lit),
        None => {
            let mut parts: Vec<TokenStream> = Vec::new();
            for (i, (ident, k)) in index.keys.iter().enumerate() {
                let separator = if i == 0 { "" } else { "_" };
                let path = field_path(ty, ident);
                let dir = format!("_{}", k.name_part());
                parts.push(quote!(#separator));
                parts.push(path);
                parts.push(quote!(#dir));
            }
            let suffix = format!("_{}", variant.name);
            parts.push(quote!(#suffix));
            quote!({
                const NAME: &::odm::__private::fields::Joined =
                    &::odm::__private::fields::Joined::concat(&[#(#parts),*]);
                NAME.as_str()
            })
        }
    };
    let cond = |c: &Cond| cond_at(field_path(ty, &c.field), c);
    let mut terms = vec![kind];
    for term in index.partial.iter().flat_map(|(_, terms)| terms) {
        terms.push(match term {
            Term::Cond(c) => {
                let c = cond(c);
                quote!(::odm::__private::Term::Cond(#c))
            }
            Term::Or(branches) => {
                let branches = branches.iter().map(|b| {
                    let conds = b.iter().map(cond);
                    quote!(&[#(#conds),*])
                });
                quote!(::odm::__private::Term::Or(&[#(#branches),*]))
            }
        });
    }
    let options = Declared {
        name: String::new(),
        span: index.span,
        keys: Vec::new(),
        unique: index.unique.is_some(),
        sparse: index.sparse.is_some(),
        partial: Vec::new(),
        expire_after: index.kinds.expire_after.map(|(_, n)| n),
        weights: Vec::new(),
        default_language: index
            .kinds
            .default_language
            .as_ref()
            .map(|(_, s)| s.as_str()),
        language_override: index
            .kinds
            .language_override
            .as_ref()
            .map(|(_, s)| s.as_str()),
        collation: index.kinds.collation.as_ref().map(|(_, c)| c),
        complete: true,
        named: index.name.is_some(),
    };
    spec_tokens(&options, name, keys, terms)
}
