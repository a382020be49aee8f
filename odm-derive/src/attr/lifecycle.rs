//! Parses the lifecycle and scale-out container attributes: `hooks` and
//! `shard_key(field, ..)`.

use syn::meta::ParseNestedMeta;
use syn::{Ident, Token};

use crate::attr::base::{empty_parens, nested_first_error};

/// `shard_key(tenant, region)`: the fields, in order.
pub fn parse_shard_key(meta: &ParseNestedMeta) -> syn::Result<Vec<Ident>> {
    let form = "expected `shard_key(field, ..)`, e.g. `shard_key(tenant_id, region)`";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(form));
    }
    if empty_parens(meta.input) {
        return Err(meta.error(
            "`shard_key()` names no field; list the shard key fields, e.g. `shard_key(tenant_id, region)`",
        ));
    }
    let mut fields = Vec::new();
    nested_first_error(meta, |field| {
        match field.path.get_ident() {
            Some(ident) if field.input.is_empty() || field.input.peek(Token![,]) => {
                fields.push(ident.clone())
            }
            _ => return Err(field.error("expected a field name")),
        }
        Ok(())
    })?;
    Ok(fields)
}
