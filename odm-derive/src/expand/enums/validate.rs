//! An enum model's validators: the `Validate` impl running the rules of
//! the kind a value is (a newtype variant's `nested` and `validate =
//! path`, a struct variant's field rules), then the enum's own.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::{binding, pattern};
use crate::ast::enums::{EnumModel, Shape, Variant};
use crate::ast::Field;

/// Whether the enum runs any validator.
fn has_rules(model: &EnumModel) -> bool {
    !model.base.attrs.validate.validators.is_empty()
        || model.variants.iter().any(|v| match &v.shape {
            Shape::Newtype(_) => {
                v.attrs.nested.is_some() || !v.attrs.validate.validators.is_empty()
            }
            Shape::Struct(cont) => cont
                .fields
                .iter()
                .any(|f| !f.attrs.validate.rules.is_empty()),
            Shape::Other => false,
        })
}

pub fn validate_method(model: &EnumModel) -> TokenStream {
    match has_rules(model) {
        true => crate::expand::validate::validate_method(),
        false => TokenStream::new(),
    }
}

/// `impl Validate`: the validators of the kind the value is (a newtype
/// variant's `nested` and `validate = path`, a struct variant's field
/// rules), then the enum's own.
pub fn validate_impl(model: &EnumModel) -> TokenStream {
    let ident = model.ident();
    let v = quote!(::odm::__private::validate);
    let (path, errors) = match has_rules(model) {
        true => (quote!(__path), quote!(__errors)),
        false => (quote!(_), quote!(_)),
    };
    let mut helpers = TokenStream::new();
    let mut arms = Vec::new();
    for variant in &model.variants {
        let mut body = TokenStream::new();
        let mut bound: Vec<&Field> = Vec::new();
        match &variant.shape {
            Shape::Newtype(_) => {
                if let Some(span) = variant.attrs.nested {
                    body.extend(quote_spanned!(span=> #v::nested(__value, __path, __errors);));
                }
                for check in &variant.attrs.validate.validators {
                    body.extend(
                        quote_spanned!(check.span()=> #v::container(__value, #check, __path, __errors);),
                    );
                }
            }
            Shape::Struct(cont) => {
                for field in cont
                    .fields
                    .iter()
                    .filter(|f| !f.attrs.validate.rules.is_empty())
                {
                    let helper = rules_helper(variant, field);
                    helpers.extend(rules_fn(&helper, field));
                    let name = &field.bson_name;
                    let member = binding(field);
                    let at = match field.attrs.flatten {
                        true => quote!(__path),
                        false => quote!(&__path.field(#name)),
                    };
                    body.extend(quote!(Self::#helper(#member, #at, __errors);));
                    bound.push(field);
                }
            }
            Shape::Other => {}
        }
        if body.is_empty() {
            continue;
        }
        let pattern = pattern(variant, &bound);
        arms.push(quote!(#pattern => { #body }));
    }
    let matched = match arms.is_empty() {
        true => TokenStream::new(),
        false => quote! {
            #[allow(unreachable_patterns)]
            match self {
                #(#arms)*
                _ => {}
            }
        },
    };
    let container =
        model.base.attrs.validate.validators.iter().map(
            |check| quote_spanned!(check.span()=> #v::container(self, #check, __path, __errors);),
        );
    quote! {
        impl #ident {
            #helpers
        }
        impl ::odm::__private::validate::Validate for #ident {
            fn validate_at(
                &self,
                #path: &::odm::__private::validate::Path<'_>,
                #errors: &mut ::odm::__private::ValidationErrors,
            ) {
                #matched
                #(#container)*
            }
        }
    }
}

/// The name of the function running one struct variant field's rules.
fn rules_helper(variant: &Variant, field: &Field) -> Ident {
    let name = field.ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    format_ident!("__odm_rules_{}_{}", variant.ident, name)
}

/// One function running a field's rules on a `&FieldType`, so each rule
/// is type-checked (and any error reported) at its attribute.
fn rules_fn(helper: &Ident, field: &Field) -> TokenStream {
    let ty = field.ty;
    let at = quote!(__path);
    let calls = field.attrs.validate.rules.iter().map(|rule| {
        let value = quote_spanned!(rule.span=> __value);
        crate::expand::validate::rule_call(rule, value, &at)
    });
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code)]
        fn #helper(
            __value: &#ty,
            __path: &::odm::__private::validate::Path<'_>,
            __errors: &mut ::odm::__private::ValidationErrors,
        ) {
            #(#calls)*
        }
    }
}
