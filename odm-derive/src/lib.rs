//! `#[derive(Document)]` for `odm`. See the `odm` crate for the guide.
//!
//! The macro parses the struct and its `#[odm(...)]` / `#[serde(...)]`
//! attributes into its own AST, checks every rule (reporting all mistakes
//! at once), and generates data: the collection, the versioning rules and
//! the field names. Every algorithm lives in the `odm` runtime.
//!
//! The modules are one-way layers (tests/layers_derive.rs keeps them so):
//! `case`, `ctxt`, `symbol` (utilities) ← `attr`, `ast` (parse) ← `check`
//! ← `expand` (generate). A module imports only its own layer and those
//! below it.

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;
mod symbol;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `odm::Document`. Attributes: see the `odm` crate documentation.
#[proc_macro_derive(Document, attributes(odm))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive_document(&input).into()
}

/// Derives `odm::Validate` for an embedded sub-document: the same field
/// attributes (`validate = path`, `min`, `max`, `min_len`, `max_len`,
/// `one_of(..)`, `required`, `nested`) and container `validate = path`
/// as a document. A field holding it is marked `#[odm(nested)]`.
#[proc_macro_derive(Validate, attributes(odm))]
pub fn derive_validate(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::validate::derive_validate(&input).into()
}

/// Derives `odm::Fields` for an embedded sub-document: typed paths of its
/// fields (`Post::fields().comments().text()`), named like the Rust fields,
/// stored names after serde's renames. Reads only serde's attributes. A
/// struct without type parameters also gets the part-for-part comparison
/// a save uses to skip unchanged values without serializing them.
#[proc_macro_derive(Fields, attributes(odm))]
pub fn derive_fields(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::fields::derive_fields(&input).into()
}
