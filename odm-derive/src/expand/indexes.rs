//! The declared indexes, resolved to BSON names and default index names,
//! and the static `IndexSpec` list in the `Meta`.

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::ast::Container;
use crate::attr_index::{Cond, Op, Value};

/// One declared index with BSON names.
pub struct Declared<'a> {
    pub name: String,
    /// Where it was declared: the field's `unique` / `index`, or `name = ".."`
    /// / the container's `index`.
    pub span: Span,
    pub keys: Vec<(String, i32)>,
    pub unique: bool,
    pub sparse: bool,
    /// `(BSON name, condition)`.
    pub partial: Vec<(String, &'a Cond)>,
    /// `false` when a key names no field (then the default name is wrong).
    pub complete: bool,
}

/// MongoDB's default name: `email_1`, `a_1_b_-1`.
fn default_name(keys: &[(String, i32)]) -> String {
    keys.iter()
        .map(|(field, dir)| format!("{field}_{dir}"))
        .collect::<Vec<_>>()
        .join("_")
}

fn partial<'a>(cont: &Container, conds: Option<&'a (Span, Vec<Cond>)>) -> Vec<(String, &'a Cond)> {
    conds
        .map(|(_, conds)| conds.as_slice())
        .unwrap_or_default()
        .iter()
        .filter_map(|c| cont.field_named(&c.field).map(|f| (f.bson_name.clone(), c)))
        .collect()
}

/// Every declared index: field ones in field order, then container ones.
/// Names that match no field are left out (the checks report them).
pub fn declared<'a>(cont: &'a Container) -> Vec<Declared<'a>> {
    let mut out = Vec::new();
    for field in &cont.fields {
        let attrs = &field.attrs.index;
        let Some(span) = attrs.unique.or(attrs.index) else {
            continue;
        };
        let keys = vec![(field.bson_name.clone(), 1)];
        out.push(Declared {
            name: default_name(&keys),
            span,
            keys,
            unique: attrs.unique.is_some(),
            sparse: attrs.sparse.is_some(),
            partial: partial(cont, attrs.partial.as_ref()),
            complete: true,
        });
    }
    for index in &cont.attrs.indexes {
        let keys: Vec<(String, i32)> = index
            .keys
            .iter()
            .filter_map(|(ident, dir)| cont.field_named(ident).map(|f| (f.bson_name.clone(), *dir)))
            .collect();
        let (name, span) = match &index.name {
            Some(lit) => (lit.value(), lit.span()),
            None => (default_name(&keys), index.span),
        };
        out.push(Declared {
            name,
            span,
            unique: index.unique.is_some(),
            sparse: index.sparse.is_some(),
            partial: partial(cont, index.partial.as_ref()),
            complete: keys.len() == index.keys.len(),
            keys,
        });
    }
    out
}

fn value_tokens(value: &Value) -> TokenStream {
    match value {
        Value::Str(s) => quote!(::odm::__private::PartialValue::Str(#s)),
        Value::Int(n) => quote!(::odm::__private::PartialValue::Int(#n)),
        Value::Float(f) => quote!(::odm::__private::PartialValue::Float(#f)),
        Value::Bool(b) => quote!(::odm::__private::PartialValue::Bool(#b)),
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
    }
}

/// `&[IndexSpec { .. }, ..]` for the `Meta`.
pub fn index_specs(cont: &Container) -> TokenStream {
    let specs = declared(cont).into_iter().map(|d| {
        let name = &d.name;
        let keys = d.keys.iter().map(|(field, dir)| quote!((#field, #dir)));
        let unique = d.unique;
        let sparse = d.sparse;
        let conds = d.partial.iter().map(|(path, cond)| {
            let op = op_tokens(cond.op);
            let value = value_tokens(&cond.value);
            quote!(::odm::__private::Condition { path: #path, op: #op, value: #value })
        });
        quote! {
            ::odm::__private::IndexSpec {
                name: #name,
                keys: &[#(#keys),*],
                unique: #unique,
                sparse: #sparse,
                partial: &[#(#conds),*],
            }
        }
    });
    quote!(&[#(#specs),*])
}
