//! The static `IndexSpec` list in the `Meta`.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::index::{Declared, DeclaredTerm};
use crate::ast::Container;
use crate::attr::index_kinds::{CollationAttr, KeyKind};
use crate::attr::partial::{Cond, Op, Value};

pub fn value_tokens(value: &Value) -> TokenStream {
    match value {
        Value::Str(s) => quote!(::odm::__private::PartialValue::Str(#s)),
        Value::Int(n) => quote!(::odm::__private::PartialValue::Int(#n)),
        Value::Float(f) => quote!(::odm::__private::PartialValue::Float(#f)),
        Value::Bool(b) => quote!(::odm::__private::PartialValue::Bool(#b)),
        Value::List(items) => {
            let items = items.iter().map(value_tokens);
            quote!(::odm::__private::PartialValue::List(&[#(#items),*]))
        }
    }
}

fn op_tokens(op: Op) -> TokenStream {
    match op {
        Op::Eq => quote!(::odm::__private::PartialOp::Eq),
        Op::Gt => quote!(::odm::__private::PartialOp::Gt),
        Op::Gte => quote!(::odm::__private::PartialOp::Gte),
        Op::Lt => quote!(::odm::__private::PartialOp::Lt),
        Op::Lte => quote!(::odm::__private::PartialOp::Lte),
        Op::Exists => quote!(::odm::__private::PartialOp::Exists),
        Op::Type => quote!(::odm::__private::PartialOp::Type),
        Op::In => quote!(::odm::__private::PartialOp::In),
    }
}

fn cond_tokens(path: &str, cond: &Cond) -> TokenStream {
    cond_at(quote!(#path), cond)
}

/// A condition whose path is the constant expression `path`.
pub fn cond_at(path: TokenStream, cond: &Cond) -> TokenStream {
    let op = op_tokens(cond.op);
    let value = value_tokens(&cond.value);
    quote!(::odm::__private::Condition { path: #path, op: #op, value: #value })
}

pub fn term_tokens(term: &DeclaredTerm) -> TokenStream {
    match term {
        DeclaredTerm::Cond(path, cond) => {
            let cond = cond_tokens(path, cond);
            quote!(::odm::__private::Term::Cond(#cond))
        }
        DeclaredTerm::Or(branches) => {
            let branches = branches.iter().map(|branch| {
                let conds = branch.iter().map(|(path, cond)| cond_tokens(path, cond));
                quote!(&[#(#conds),*])
            });
            quote!(::odm::__private::Term::Or(&[#(#branches),*]))
        }
    }
}

pub fn key_tokens(kind: KeyKind) -> TokenStream {
    match kind {
        KeyKind::Asc => quote!(::odm::__private::IndexKey::Asc),
        KeyKind::Desc => quote!(::odm::__private::IndexKey::Desc),
        KeyKind::Text => quote!(::odm::__private::IndexKey::Text),
        KeyKind::Sphere => quote!(::odm::__private::IndexKey::Sphere),
        KeyKind::Hashed => quote!(::odm::__private::IndexKey::Hashed),
    }
}

pub fn option_tokens<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

pub fn collation_tokens(collation: Option<&CollationAttr>) -> TokenStream {
    let Some(c) = collation else {
        return quote!(::core::option::Option::None);
    };
    let locale = &c.locale;
    let strength = option_tokens(c.strength);
    let case_level = option_tokens(c.case_level);
    let case_first = option_tokens(c.case_first.as_deref());
    let numeric_ordering = option_tokens(c.numeric_ordering);
    quote! {
        ::core::option::Option::Some(::odm::__private::Collation {
            locale: #locale,
            strength: #strength,
            case_level: #case_level,
            case_first: #case_first,
            numeric_ordering: #numeric_ordering,
        })
    }
}

/// `&[IndexSpec { .. }, ..]` for the `Meta`.
pub fn index_specs(cont: &Container) -> TokenStream {
    let specs = cont.declared_indexes().into_iter().map(|d| {
        let name = &d.name;
        spec_tokens(&d, quote!(#name), keys_of(&d), Vec::new())
    });
    quote!(&[#(#specs),*])
}

/// The `(BSON name, kind)` keys of `d`, as tokens.
pub fn keys_of(d: &Declared) -> Vec<TokenStream> {
    d.keys
        .iter()
        .map(|(field, kind)| {
            let kind = key_tokens(*kind);
            quote!((#field, #kind))
        })
        .collect()
}

/// One `IndexSpec { .. }` of `d`, named `name` (a constant expression),
/// with `keys` (`(path, kind)` tokens), its partial filter `first` (more
/// terms, as tokens) and then its own; the other options are `d`'s.
pub fn spec_tokens(
    d: &Declared,
    name: TokenStream,
    keys: Vec<TokenStream>,
    first: Vec<TokenStream>,
) -> TokenStream {
    {
        let expire_after = option_tokens(d.expire_after);
        let weights = d.weights.iter().map(|(field, w)| quote!((#field, #w)));
        let default_language = option_tokens(d.default_language);
        let language_override = option_tokens(d.language_override);
        let collation = collation_tokens(d.collation);
        let unique = d.unique;
        let sparse = d.sparse;
        let terms = first.into_iter().chain(d.partial.iter().map(term_tokens));
        quote! {
            ::odm::__private::IndexSpec {
                name: #name,
                keys: &[#(#keys),*],
                unique: #unique,
                sparse: #sparse,
                partial: &[#(#terms),*],
                expire_after: #expire_after,
                text: ::odm::__private::TextOptions {
                    weights: &[#(#weights),*],
                    default_language: #default_language,
                    language_override: #language_override,
                },
                collation: #collation,
            }
        }
    }
}
