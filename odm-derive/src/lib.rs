//! `#[derive(Document)]` for `odm`. See the `odm` crate for the guide.
//!
//! The macro parses the struct and its `#[odm(...)]` / `#[serde(...)]`
//! attributes into its own AST, checks every rule (reporting all mistakes
//! at once), and generates data: the collection, the versioning rules and
//! the field names. Every algorithm lives in the `odm` runtime.

mod ast;
mod attr;
mod attr_index;
mod case;
mod check;
mod check_index;
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
