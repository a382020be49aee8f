//! Parses `#[odm(...)]` and the `#[serde(...)]` keys that change BSON names.
//!
//! The parse layer: `base` holds the helpers every parser shares, the
//! other submodules parse one attribute group each, and this module ties
//! them into the container's and the fields' attributes. Nothing here
//! reads the checks or the code generation.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Ident, LitBool, LitStr, Token};

mod base;
pub mod enums;
pub mod index;
pub mod index_kinds;
mod lifecycle;
pub mod partial;
pub mod paths;
pub mod references;
pub mod schema;
pub mod validate;

use self::base::{empty_parens, nested_first_error, path_text, string_value};
use self::index::{FieldIndexAttrs, IndexAttr};
use self::paths::ListedPath;
use self::schema::SchemaAttrs;
use self::validate::{ContainerRules, FieldRules};
use crate::case::RenameRule;
use crate::ctxt::Ctxt;
use crate::symbol::*;

/// One attribute value, remembering where it was written; a second one is
/// an error.
pub struct Attr<'c, T> {
    cx: &'c Ctxt,
    name: Symbol,
    value: Option<(Span, T)>,
}

impl<'c, T> Attr<'c, T> {
    fn none(cx: &'c Ctxt, name: Symbol) -> Self {
        Attr {
            cx,
            name,
            value: None,
        }
    }

    fn set(&mut self, span: Span, value: T) {
        if self.value.is_some() {
            self.cx.syn_error(syn::Error::new(
                span,
                format!("duplicate odm attribute `{}`", self.name),
            ));
        } else {
            self.value = Some((span, value));
        }
    }

    fn get(self) -> Option<(Span, T)> {
        self.value
    }
}

/// `optimistic_concurrency` as written.
pub enum ConcurrencyAttr {
    All,
    Include(Vec<ListedPath>),
    Exclude(Vec<ListedPath>),
}

/// The container's `#[odm(...)]` and serde attributes.
pub struct ContainerAttrs {
    pub collection: Option<(Span, String)>,
    pub version_key: Option<(Span, String)>,
    pub versioning: Option<(Span, bool)>,
    pub concurrency: Option<(Span, ConcurrencyAttr)>,
    pub timestamps: Option<(Span, TimestampsAttr)>,
    /// `hooks`: the model implements `odm::Hooks`.
    pub hooks: Option<(Span, ())>,
    /// `shard_key(..)`: its fields, in order.
    pub shard_key: Option<(Span, Vec<Ident>)>,
    pub rename_all: Option<RenameRule>,
    /// serde's `into` or `remote`: the struct is serialized through
    /// another type, whose fields need not be this one's.
    pub serde_into: bool,
    /// The `index(..)` attributes, in order.
    pub indexes: Vec<IndexAttr>,
    /// `validate = path` cross-field validators.
    pub validate: ContainerRules,
    /// `schema_version = N`, `migrate = path`, `schema_key = "name"`.
    pub schema: SchemaAttrs,
    /// `referenced_by(..)`: the models whose rules point at this one.
    pub referenced_by: Option<(Span, Vec<syn::Path>)>,
}

/// `timestamps` as written: the BSON names of the two fields and the clock.
pub struct TimestampsAttr {
    pub created_at: String,
    pub updated_at: String,
    pub server_clock: bool,
}

const CONTAINER_FORMS: &str = "`collection = \"name\"`, `version_key = \"name\"`, \
`versioning = false`, `optimistic_concurrency`, \
`optimistic_concurrency(include(field, ..))`, `optimistic_concurrency(exclude(field, ..))`, \
`index(keys(field = 1, ..), unique, sparse, partial(..), name = \"..\", expire_after = secs, \
collation(..), weights(..))`, \
`validate = path::to_fn`, `timestamps`, \
`timestamps(created_at = \"name\", updated_at = \"name\", server_clock)`, `hooks`, `shard_key(field, ..)`, \
`schema_version = N`, `migrate = path::to_fn`, `schema_key = \"name\"`, \
`referenced_by(Model, ..)`";

const FIELD_FORMS: &str = "`skip_versioning`, `unique`, `index`, `sparse`, `partial(..)`, \
`expire_after = secs`, `collation(locale = \"..\", ..)`, \
`validate = path::to_fn`, `min = n`, `max = n`, `min_len = n`, `max_len = n`, \
`one_of(\"A\", \"B\")`, `required`, `nested`, `reference(on_delete = refuse | cascade | clear | pull)`";

fn no_value(meta: &ParseNestedMeta, name: Symbol) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!("`{name}` takes no value: write `{name}`")));
    }
    Ok(())
}

impl ContainerAttrs {
    pub fn parse(cx: &Ctxt, input: &syn::DeriveInput) -> Self {
        let mut collection = Attr::none(cx, COLLECTION);
        let mut version_key = Attr::none(cx, VERSION_KEY);
        let mut versioning = Attr::none(cx, VERSIONING);
        let mut concurrency = Attr::none(cx, OPTIMISTIC_CONCURRENCY);
        let mut timestamps = Attr::none(cx, TIMESTAMPS);
        let mut hooks = Attr::none(cx, HOOKS);
        let mut shard_key = Attr::none(cx, SHARD_KEY);
        let mut referenced_by = Attr::none(cx, REFERENCED_BY);
        let mut rename_all = None;
        let mut serde_into = false;
        let mut indexes = Vec::new();
        let mut validate = ContainerRules::default();
        let mut schema = SchemaAttrs::default();

        for attr in &input.attrs {
            if attr.path() == ODM {
                let result = attr.parse_nested_meta(|meta| {
                    recover(cx, &meta, |meta| {
                        let span = meta.path.get_ident().map_or_else(Span::call_site, Ident::span);
                        if meta.path == COLLECTION {
                            let lit = string_value(meta, COLLECTION)?;
                            if lit.value().is_empty() || lit.value().contains('$') {
                                cx.error_spanned_by(&lit, "a collection name must be non-empty and must not contain `$`");
                            }
                            collection.set(span, lit.value());
                        } else if meta.path == VERSION_KEY {
                            let lit = string_value(meta, VERSION_KEY)?;
                            let key = lit.value();
                            if key.is_empty() || key.starts_with('$') || key.contains('.') || key == "_id" {
                                cx.error_spanned_by(&lit, "a version key must be a plain field name: non-empty, no `.`, no leading `$`, not `_id`");
                            }
                            version_key.set(span, key);
                        } else if meta.path == VERSIONING {
                            let form = "expected `versioning = false`";
                            if !meta.input.peek(Token![=]) {
                                return Err(meta.error(form));
                            }
                            let lit: LitBool = meta
                                .value()?
                                .parse()
                                .map_err(|e| syn::Error::new(e.span(), form))?;
                            versioning.set(span, lit.value);
                        } else if meta.path == OPTIMISTIC_CONCURRENCY {
                            concurrency.set(span, parse_concurrency(meta)?);
                        } else if meta.path == INDEX {
                            indexes.push(index::parse_container_index(cx, meta)?);
                        } else if meta.path == TIMESTAMPS {
                            timestamps.set(span, parse_timestamps(meta)?);
                        } else if meta.path == HOOKS {
                            no_value(meta, HOOKS)?;
                            hooks.set(span, ());
                        } else if meta.path == SHARD_KEY {
                            shard_key.set(span, lifecycle::parse_shard_key(meta)?);
                        } else if meta.path == REFERENCED_BY {
                            referenced_by.set(span, references::parse_referenced_by(meta)?);
                        } else if validate.parse(meta)? || schema.parse(cx, meta)? {
                        } else {
                            return Err(meta.error(format!(
                                "unknown odm container attribute `{}`; expected one of {CONTAINER_FORMS}",
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
                // serde's own derive reports a malformed `#[serde(..)]`;
                // repeating it would only add noise, so just stub the impl.
                let result = attr.parse_nested_meta(|meta| {
                    if meta.path == RENAME_ALL {
                        if let Some(lit) = serialize_name(&meta)? {
                            rename_all = Some(RenameRule::from_lit(&lit)?);
                        }
                        Ok(())
                    } else if meta.path == INTO || meta.path == REMOTE {
                        serde_into = true;
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

        ContainerAttrs {
            collection: collection.get(),
            version_key: version_key.get(),
            versioning: versioning.get(),
            concurrency: concurrency.get(),
            timestamps: timestamps.get(),
            hooks: hooks.get(),
            shard_key: shard_key.get(),
            rename_all,
            serde_into,
            indexes,
            validate,
            schema,
            referenced_by: referenced_by.get(),
        }
    }
}

impl ContainerAttrs {
    /// The attributes of a struct variant of an enum model, as a
    /// container of its fields: its indexes and validators, nothing else.
    pub fn of_variant(indexes: Vec<IndexAttr>, validate: ContainerRules) -> Self {
        ContainerAttrs {
            collection: None,
            version_key: None,
            versioning: None,
            concurrency: None,
            timestamps: None,
            hooks: None,
            shard_key: None,
            rename_all: None,
            serde_into: false,
            indexes,
            validate,
            schema: SchemaAttrs::default(),
            referenced_by: None,
        }
    }
}

/// `optimistic_concurrency`, `(include(a, b))` or `(exclude(a, b))`.
fn parse_concurrency(meta: &ParseNestedMeta) -> syn::Result<ConcurrencyAttr> {
    if meta.input.peek(Token![=]) {
        return Err(meta.error(
            "expected `optimistic_concurrency`, `optimistic_concurrency(include(field, ..))` \
             or `optimistic_concurrency(exclude(field, ..))`",
        ));
    }
    if !meta.input.peek(syn::token::Paren) {
        return Ok(ConcurrencyAttr::All);
    }
    let mut mode: Option<ConcurrencyAttr> = None;
    nested_first_error(meta, |inner| {
        let is_include = inner.path == INCLUDE;
        if !is_include && inner.path != EXCLUDE {
            return Err(inner.error(format!(
                "unknown optimistic_concurrency option `{}`; expected `include(field, ..)` or `exclude(field, ..)`",
                path_text(&inner.path)
            )));
        }
        if mode.is_some() {
            return Err(inner.error(
                "optimistic_concurrency takes one list: `include(..)` or `exclude(..)`, not both",
            ));
        }
        let mut fields = Vec::new();
        let which = if is_include { "include" } else { "exclude" };
        if !inner.input.peek(syn::token::Paren) {
            return Err(inner.error(format!(
                "expected a list of fields, e.g. `{which}(status, avatar)`"
            )));
        }
        if empty_parens(inner.input) {
            return Err(inner.error(format!(
                "`{which}()` names no field; list the fields, e.g. `{which}(status, avatar)`"
            )));
        }
        nested_first_error(&inner, |field| {
            fields.push(paths::parse_listed(&field)?);
            Ok(())
        })?;
        mode = Some(if is_include {
            ConcurrencyAttr::Include(fields)
        } else {
            ConcurrencyAttr::Exclude(fields)
        });
        Ok(())
    })?;
    mode.ok_or_else(|| {
        meta.error("expected `include(field, ..)` or `exclude(field, ..)` inside the parentheses")
    })
}

/// `timestamps` or `timestamps(created_at = "..", updated_at = "..",
/// server_clock)`; the names are BSON names, `createdAt` / `updatedAt`
/// unless given.
fn parse_timestamps(meta: &ParseNestedMeta) -> syn::Result<TimestampsAttr> {
    let form = "expected `timestamps` or `timestamps(created_at = \"name\", updated_at = \"name\", server_clock)`";
    if meta.input.peek(Token![=]) {
        return Err(meta.error(form));
    }
    let mut created_at: Option<String> = None;
    let mut updated_at: Option<String> = None;
    let mut server_clock = false;
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            if inner.path == SERVER_CLOCK {
                if server_clock {
                    return Err(inner.error("duplicate timestamps option `server_clock`"));
                }
                if !inner.input.is_empty() && !inner.input.peek(Token![,]) {
                    return Err(inner.error("`server_clock` takes no value"));
                }
                server_clock = true;
                return Ok(());
            }
            let (slot, name) = if inner.path == CREATED_AT {
                (&mut created_at, CREATED_AT)
            } else if inner.path == UPDATED_AT {
                (&mut updated_at, UPDATED_AT)
            } else {
                return Err(inner.error(format!(
                    "unknown timestamps option `{}`; {form}",
                    path_text(&inner.path)
                )));
            };
            let lit = string_value(&inner, name)?;
            let value = lit.value();
            if value.is_empty() || value.starts_with('$') || value.contains('.') || value == "_id" {
                return Err(syn::Error::new(
                    lit.span(),
                    "a timestamp field name must be a plain field name: non-empty, no `.`, no leading `$`, not `_id`",
                ));
            }
            if slot.is_some() {
                return Err(inner.error(format!("duplicate timestamps option `{name}`")));
            }
            *slot = Some(value);
            Ok(())
        })?;
    }
    Ok(TimestampsAttr {
        created_at: created_at.unwrap_or_else(|| "createdAt".to_string()),
        updated_at: updated_at.unwrap_or_else(|| "updatedAt".to_string()),
        server_clock,
    })
}

/// A field's `#[odm(...)]` and serde attributes.
pub struct FieldAttrs {
    pub skip_versioning: Option<Span>,
    pub rename: Option<String>,
    /// Where the serialized `rename` was written.
    pub rename_span: Option<Span>,
    pub serde_skipped: bool,
    pub flatten: bool,
    /// serde's `with` / `deserialize_with`: the field's type alone does not
    /// say how it is read.
    pub custom_de: bool,
    /// serde's `with` / `serialize_with`: the field's value alone does not
    /// say how it is written (a sequence need not be written in order).
    pub custom_ser: bool,
    /// `unique`, `index`, `sparse`, `partial(..)`.
    pub index: FieldIndexAttrs,
    /// Validation keys, in the order written.
    pub validate: FieldRules,
    /// `reference(on_delete = ..)`: a referential rule.
    pub reference: Option<(Span, references::ReferenceAttr)>,
}

impl FieldAttrs {
    pub fn parse(cx: &Ctxt, field: &syn::Field) -> Self {
        let mut skip_versioning = Attr::none(cx, SKIP_VERSIONING);
        let mut reference = Attr::none(cx, REFERENCE);
        let mut rename = None;
        let mut rename_span = None;
        let mut serde_skipped = false;
        let mut flatten = false;
        let mut custom_de = false;
        let mut custom_ser = false;
        let mut index = FieldIndexAttrs::default();
        let mut validate = FieldRules::default();
        for attr in &field.attrs {
            if attr.path() == ODM {
                let result = attr.parse_nested_meta(|meta| {
                    recover(cx, &meta, |meta| {
                        let span = meta
                            .path
                            .get_ident()
                            .map_or_else(Span::call_site, Ident::span);
                        if meta.path == SKIP_VERSIONING {
                            no_value(meta, SKIP_VERSIONING)?;
                            skip_versioning.set(span, ());
                        } else if meta.path == REFERENCE {
                            reference.set(span, references::parse_reference(meta)?);
                        } else if FieldIndexAttrs::accepts(meta) {
                            index.parse_key(cx, meta)?;
                        } else if validate.parse(cx, meta)? {
                        } else {
                            return Err(meta.error(format!(
                                "unknown odm field attribute `{}`; expected {FIELD_FORMS}",
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
                // serde's own derive reports a malformed `#[serde(..)]`;
                // repeating it would only add noise, so just stub the impl.
                let result = attr.parse_nested_meta(|meta| {
                    if meta.path == RENAME {
                        if let Some(lit) = serialize_name(&meta)? {
                            rename = Some(lit.value());
                            rename_span = Some(lit.span());
                        }
                        Ok(())
                    } else if meta.path == SKIP || meta.path == SKIP_SERIALIZING {
                        serde_skipped = true;
                        skip_serde_value(&meta)
                    } else if meta.path == FLATTEN {
                        flatten = true;
                        skip_serde_value(&meta)
                    } else if meta.path.is_ident("with") || meta.path.is_ident("deserialize_with") {
                        custom_de = true;
                        custom_ser |= meta.path.is_ident("with");
                        skip_serde_value(&meta)
                    } else if meta.path.is_ident("serialize_with") {
                        custom_ser = true;
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
        FieldAttrs {
            skip_versioning: skip_versioning.get().map(|(span, ())| span),
            rename,
            rename_span,
            serde_skipped,
            flatten,
            custom_de,
            custom_ser,
            index,
            validate,
            reference: reference.get(),
        }
    }
}

/// The serialized name of serde's `rename = ".."` or `rename(serialize = "..")`.
fn serialize_name(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(Token![=]) {
        return meta.value()?.parse().map(Some);
    }
    let mut name = None;
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            if inner.path == SERIALIZE {
                name = Some(inner.value()?.parse()?);
                Ok(())
            } else {
                skip_serde_value(&inner)
            }
        })?;
    }
    Ok(name)
}

/// Consumes the value of a serde key odm does not read.
fn skip_serde_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<proc_macro2::TokenStream>()?;
    }
    Ok(())
}

/// Runs `parse` on one `key ...` of an `#[odm(..)]` list. On an error it
/// records it, skips the rest of that key up to the next `,`, and lets the
/// caller go on, so every bad key of the list is reported in one compile.
fn recover(
    cx: &Ctxt,
    meta: &ParseNestedMeta,
    parse: impl FnOnce(&ParseNestedMeta) -> syn::Result<()>,
) -> syn::Result<()> {
    if let Err(e) = parse(meta) {
        cx.syn_error(e);
        while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
            meta.input.parse::<proc_macro2::TokenTree>()?;
        }
    }
    Ok(())
}
