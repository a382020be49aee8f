//! The declared indexes, resolved to BSON names and index names: what the
//! checks inspect and the code generation writes out.

use proc_macro2::Span;

use crate::ast::Container;
use crate::attr::index_kinds::{CollationAttr, KeyKind, KindAttrs};
use crate::attr::partial::{Cond, Term};

/// One declared index with BSON names.
pub struct Declared<'a> {
    pub name: String,
    /// Where it was declared: the field's `unique` / `index`, or `name = ".."`
    /// / the container's `index`.
    pub span: Span,
    pub keys: Vec<(String, KeyKind)>,
    pub unique: bool,
    pub sparse: bool,
    pub partial: Vec<DeclaredTerm<'a>>,
    /// `expire_after`, seconds.
    pub expire_after: Option<i64>,
    /// `(BSON name, weight)` of the text fields given a weight.
    pub weights: Vec<(String, i32)>,
    pub default_language: Option<&'a str>,
    pub language_override: Option<&'a str>,
    pub collation: Option<&'a CollationAttr>,
    /// `false` when a key names no field (then the default name is wrong).
    pub complete: bool,
    /// Named with `name = ".."` (not MongoDB's default name).
    pub named: bool,
}

/// A partial-filter term with BSON names.
pub enum DeclaredTerm<'a> {
    /// `(BSON name, condition)`.
    Cond(String, &'a Cond),
    /// The branches of `or(..)`, each a list of conditions.
    Or(Vec<Vec<(String, &'a Cond)>>),
}

/// MongoDB's default name: `email_1`, `a_1_b_-1`.
fn default_name(keys: &[(String, KeyKind)]) -> String {
    keys.iter()
        .map(|(field, kind)| format!("{field}_{}", kind.name_part()))
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

    /// The kind options of an index, with BSON names.
    #[allow(clippy::type_complexity)]
    fn kind_options<'c>(
        &self,
        kinds: &'c KindAttrs,
    ) -> (
        Option<i64>,
        Vec<(String, i32)>,
        Option<&'c str>,
        Option<&'c str>,
        Option<&'c CollationAttr>,
    ) {
        let weights = kinds
            .weights
            .iter()
            .flat_map(|(_, w)| w)
            .filter_map(|(ident, w)| self.field_named(ident).map(|f| (f.bson_name.clone(), *w)))
            .collect();
        (
            kinds.expire_after.map(|(_, n)| n),
            weights,
            kinds.default_language.as_ref().map(|(_, s)| s.as_str()),
            kinds.language_override.as_ref().map(|(_, s)| s.as_str()),
            kinds.collation.as_ref().map(|(_, c)| c),
        )
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
            let keys = vec![(field.bson_name.clone(), KeyKind::Asc)];
            let (expire_after, weights, default_language, language_override, collation) =
                self.kind_options(&attrs.kinds);
            out.push(Declared {
                expire_after,
                weights,
                default_language,
                language_override,
                collation,
                name: default_name(&keys),
                span,
                keys,
                unique: attrs.unique.is_some(),
                sparse: attrs.sparse.is_some(),
                partial: self.partial(attrs.partial.as_ref()),
                complete: true,
                named: false,
            });
        }
        for index in &self.attrs.indexes {
            let mut keys: Vec<(String, KeyKind)> = index
                .keys
                .iter()
                .filter_map(|(ident, dir)| {
                    self.field_named(ident).map(|f| (f.bson_name.clone(), *dir))
                })
                .collect();
            let mut complete = keys.len() == index.keys.len();
            if let Some((_, path)) = &index.kinds.wildcard {
                let prefix = match path {
                    None => Some(String::new()),
                    Some(ident) => self.field_named(ident).map(|f| format!("{}.", f.bson_name)),
                };
                complete = prefix.is_some();
                keys = vec![(format!("{}$**", prefix.unwrap_or_default()), KeyKind::Asc)];
            }
            let (expire_after, weights, default_language, language_override, collation) =
                self.kind_options(&index.kinds);
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
                complete,
                named: index.name.is_some(),
                keys,
                expire_after,
                weights,
                default_language,
                language_override,
                collation,
            });
        }
        out
    }
}
