//! The declared indexes, resolved to BSON names and index names: what the
//! checks inspect and the code generation writes out.

use proc_macro2::Span;

use crate::ast::Container;
use crate::attr::partial::{Cond, Term};

/// One declared index with BSON names.
pub struct Declared<'a> {
    pub name: String,
    /// Where it was declared: the field's `unique` / `index`, or `name = ".."`
    /// / the container's `index`.
    pub span: Span,
    pub keys: Vec<(String, i32)>,
    pub unique: bool,
    pub sparse: bool,
    pub partial: Vec<DeclaredTerm<'a>>,
    /// `false` when a key names no field (then the default name is wrong).
    pub complete: bool,
}

/// A partial-filter term with BSON names.
pub enum DeclaredTerm<'a> {
    /// `(BSON name, condition)`.
    Cond(String, &'a Cond),
    /// The branches of `or(..)`, each a list of conditions.
    Or(Vec<Vec<(String, &'a Cond)>>),
}

/// MongoDB's default name: `email_1`, `a_1_b_-1`.
fn default_name(keys: &[(String, i32)]) -> String {
    keys.iter()
        .map(|(field, dir)| format!("{field}_{dir}"))
        .collect::<Vec<_>>()
        .join("_")
}

impl<'a> Container<'a> {
    /// `(BSON name, cond)` for each of `conds` naming a field.
    fn named<'c>(&self, conds: &'c [Cond]) -> Vec<(String, &'c Cond)> {
        conds
            .iter()
            .filter_map(|c| self.field_named(&c.field).map(|f| (f.bson_name.clone(), c)))
            .collect()
    }

    fn partial<'c>(&self, terms: Option<&'c (Span, Vec<Term>)>) -> Vec<DeclaredTerm<'c>> {
        let terms = terms.map(|(_, terms)| terms.as_slice()).unwrap_or_default();
        let mut out = Vec::new();
        for term in terms {
            match term {
                Term::Cond(c) => out.extend(
                    self.named(std::slice::from_ref(c))
                        .into_iter()
                        .map(|(name, c)| DeclaredTerm::Cond(name, c)),
                ),
                Term::Or(branches) => out.push(DeclaredTerm::Or(
                    branches.iter().map(|b| self.named(b)).collect(),
                )),
            }
        }
        out
    }

    /// Every declared index: field ones in field order, then container
    /// ones. Names that match no field are left out (the checks report
    /// them).
    pub fn declared_indexes(&self) -> Vec<Declared<'_>> {
        let mut out = Vec::new();
        for field in &self.fields {
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
                partial: self.partial(attrs.partial.as_ref()),
                complete: true,
            });
        }
        for index in &self.attrs.indexes {
            let keys: Vec<(String, i32)> = index
                .keys
                .iter()
                .filter_map(|(ident, dir)| {
                    self.field_named(ident).map(|f| (f.bson_name.clone(), *dir))
                })
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
                partial: self.partial(index.partial.as_ref()),
                complete: keys.len() == index.keys.len(),
                keys,
            });
        }
        out
    }
}
