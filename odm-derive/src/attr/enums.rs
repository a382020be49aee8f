//! Parses what an enum model adds to a struct's attributes: serde's enum
//! representation on the enum (`tag`, `content`, `untagged`,
//! `rename_all_fields`), and each variant's serde names and `#[odm(..)]`
//! keys (`index(..)`, `validate = path`, `nested`).

use proc_macro2::Span;
use syn::{Ident, LitStr, Token};

use super::index::{self, IndexAttr};
use super::validate::ContainerRules;
use super::{no_value, recover, serialize_name, skip_serde_value};
use crate::attr::base::path_text;
use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// serde's representation of the enum, as written.
#[derive(Default)]
pub struct EnumSerde {
    /// `tag = ".."`: internally tagged, the kind key.
    pub tag: Option<(Span, String)>,
    /// `content = ".."`: adjacently tagged (with `tag`).
    pub content: Option<Span>,
    /// `untagged`.
    pub untagged: Option<Span>,
    /// `rename_all_fields = ".."`: the struct variants' field names.
    pub rename_all_fields: Option<RenameRule>,
}

fn key_span(path: &syn::Path) -> Span {
    path.get_ident().map_or_else(Span::call_site, Ident::span)
}

impl EnumSerde {
    /// Reads the enum's `#[serde(..)]`. A malformed one is serde's to
    /// report (`ContainerAttrs::parse` already deferred to it).
    pub fn parse(input: &syn::DeriveInput) -> Self {
        let mut out = EnumSerde::default();
        for attr in input.attrs.iter().filter(|a| a.path() == SERDE) {
            let _ = attr.parse_nested_meta(|meta| {
                let span = key_span(&meta.path);
                if meta.path == TAG {
                    let lit: LitStr = meta.value()?.parse()?;
                    out.tag = Some((lit.span(), lit.value()));
                    Ok(())
                } else if meta.path == CONTENT {
                    out.content = Some(span);
                    skip_serde_value(&meta)
                } else if meta.path == UNTAGGED {
                    out.untagged = Some(span);
                    Ok(())
                } else if meta.path == RENAME_ALL_FIELDS {
                    if let Some(lit) = serialize_name(&meta)? {
                        out.rename_all_fields = RenameRule::from_lit(&lit).ok();
                    }
                    Ok(())
                } else {
                    skip_serde_value(&meta)
                }
            });
        }
        out
    }
}

/// A serde key on a variant that an enum model refuses, and why.
pub struct Refused {
    pub span: Span,
    pub message: String,
}

/// One variant's attributes.
#[derive(Default)]
pub struct VariantAttrs {
    /// serde's `rename`: the stored kind name.
    pub rename: Option<String>,
    /// serde's `rename_all` on a variant: its fields' names.
    pub rename_all: Option<RenameRule>,
    /// serde keys that give a kind more than one stored form, or none.
    pub refused: Vec<Refused>,
    /// `index(..)`: indexes of this kind.
    pub indexes: Vec<IndexAttr>,
    /// `validate = path`: validators of a newtype variant's value.
    pub validate: ContainerRules,
    /// `nested`: a newtype variant's type has validators of its own.
    pub nested: Option<Span>,
}

const VARIANT_FORMS: &str = "`index(keys(field = 1, ..), unique, partial(..), name = \"..\")` \
(an index of this kind only), `validate = path::to_fn` (on a newtype variant: a validator of \
its value) and `nested` (on a newtype variant: its type derives `odm::Validate`)";

impl VariantAttrs {
    pub fn parse(cx: &Ctxt, variant: &syn::Variant) -> Self {
        let mut out = VariantAttrs::default();
        for attr in &variant.attrs {
            if attr.path() == ODM {
                let result = attr.parse_nested_meta(|meta| {
                    recover(cx, &meta, |meta| {
                        let span = key_span(&meta.path);
                        if meta.path == INDEX {
                            out.indexes.push(index::parse_container_index(cx, meta)?);
                        } else if meta.path == NESTED {
                            no_value(meta, NESTED)?;
                            if out.nested.replace(span).is_some() {
                                return Err(meta.error("duplicate odm attribute `nested`"));
                            }
                        } else if out.validate.parse(meta)? {
                        } else {
                            return Err(meta.error(format!(
                                "unknown odm variant attribute `{}`; a variant of an enum model \
                                 takes {VARIANT_FORMS}",
                                path_text(&meta.path)
                            )));
                        }
                        Ok(())
                    })
                });
                if let Err(e) = result {
                    cx.syn_error(e);
                }
            } else if attr.path() == SERDE {
                let result = attr.parse_nested_meta(|meta| {
                    let span = key_span(&meta.path);
                    let mut refuse = |message: String| out.refused.push(Refused { span, message });
                    if meta.path == RENAME {
                        let (serialize, deserialize) = rename_names(&meta)?;
                        if deserialize != serialize {
                            refuse(
                                "`rename(serialize = .., deserialize = ..)` with two names: a \
                                 kind is stored and read under one name, which every filter of \
                                 its documents holds: write `rename = \"..\"`"
                                    .to_string(),
                            );
                        }
                        if let Some(name) = serialize {
                            out.rename = Some(name);
                        }
                        Ok(())
                    } else if meta.path == RENAME_ALL {
                        if let Some(lit) = serialize_name(&meta)? {
                            out.rename_all = RenameRule::from_lit(&lit).ok();
                        }
                        Ok(())
                    } else if meta.path == ALIAS {
                        refuse(
                            "`alias` gives this kind a second stored name, which the kind's \
                             filters (`variant::<..>()`, the kind in every write) would not \
                             match; a kind has one name: remove the alias and rewrite the \
                             documents stored under it"
                                .to_string(),
                        );
                        skip_serde_value(&meta)
                    } else if let Some(word) = REFUSED_KEYS.iter().find(|w| meta.path == **w) {
                        refuse(format!(
                            "`#[serde({word})]` on a variant of an enum model: every kind is \
                             stored and read back as its own type, through its own fields; \
                             remove `{word}`"
                        ));
                        skip_serde_value(&meta)
                    } else {
                        skip_serde_value(&meta)
                    }
                });
                if result.is_err() {
                    cx.defer_to_serde();
                }
            }
        }
        out
    }
}

/// serde variant keys a kind cannot have: a skipped or catch-all variant
/// is never stored as itself, an untagged one is stored without its kind,
/// and a variant read by a function of its own is not read as its type.
const REFUSED_KEYS: &[Symbol] = &[
    SKIP,
    SKIP_SERIALIZING,
    SKIP_DESERIALIZING,
    OTHER,
    UNTAGGED,
    WITH,
    SERIALIZE_WITH,
    DESERIALIZE_WITH,
];

/// The serialize and deserialize names of `rename = ".."` or
/// `rename(serialize = "..", deserialize = "..")`.
fn rename_names(
    meta: &syn::meta::ParseNestedMeta,
) -> syn::Result<(Option<String>, Option<String>)> {
    if meta.input.peek(Token![=]) {
        let lit: LitStr = meta.value()?.parse()?;
        return Ok((Some(lit.value()), Some(lit.value())));
    }
    let (mut serialize, mut deserialize) = (None, None);
    meta.parse_nested_meta(|inner| {
        let lit: LitStr = inner.value()?.parse()?;
        if inner.path == SERIALIZE {
            serialize = Some(lit.value());
        } else if inner.path == DESERIALIZE {
            deserialize = Some(lit.value());
        }
        Ok(())
    })?;
    Ok((serialize, deserialize))
}
