//! Parses the validation keys of `#[odm(...)]`: on a field `validate = path`
//! (repeatable), `min = n`, `max = n`, `min_len = n`, `max_len = n`,
//! `one_of("A", ..)`, `required`, `nested`; on the container
//! `validate = path` (repeatable).

use proc_macro2::Span;
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprPath, Lit, LitStr, Token, UnOp};

use crate::ctxt::Ctxt;
use crate::symbol::*;

/// The number of `min = n` / `max = n`.
#[derive(Clone, Copy)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    /// `self > other`, exactly for two integers, else as `f64`.
    pub fn greater_than(self, other: Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a > b,
            (a, b) => a.as_f64() > b.as_f64(),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::Float(x) => x,
        }
    }
}

/// A number literal as written, with its span.
pub struct NumLit {
    pub value: Number,
    pub tokens: proc_macro2::TokenStream,
    pub text: String,
}

pub enum RuleKind {
    Min(NumLit),
    Max(NumLit),
    MinLen(usize),
    MaxLen(usize),
    OneOf(Vec<LitStr>),
    Required,
    Nested,
    Custom(ExprPath),
}

/// One validation key on a field; `span` is the key's.
pub struct Rule {
    pub span: Span,
    pub kind: RuleKind,
}

impl RuleKind {
    pub fn name(&self) -> &'static str {
        match self {
            RuleKind::Min(_) => MIN.0,
            RuleKind::Max(_) => MAX.0,
            RuleKind::MinLen(_) => MIN_LEN.0,
            RuleKind::MaxLen(_) => MAX_LEN.0,
            RuleKind::OneOf(_) => ONE_OF.0,
            RuleKind::Required => REQUIRED.0,
            RuleKind::Nested => NESTED.0,
            RuleKind::Custom(_) => VALIDATE.0,
        }
    }
}

/// The validation keys of one field, in the order written.
#[derive(Default)]
pub struct FieldRules {
    pub rules: Vec<Rule>,
}

impl FieldRules {
    /// Parses `meta` when it is a validation key; `Ok(false)` when it is not.
    pub fn parse(&mut self, cx: &Ctxt, meta: &ParseNestedMeta) -> syn::Result<bool> {
        let span = match meta.path.get_ident() {
            Some(ident) => ident.span(),
            None => return Ok(false),
        };
        let kind = if meta.path == VALIDATE {
            RuleKind::Custom(validator_path(meta)?)
        } else if meta.path == MIN {
            RuleKind::Min(number(meta, MIN)?)
        } else if meta.path == MAX {
            RuleKind::Max(number(meta, MAX)?)
        } else if meta.path == MIN_LEN {
            RuleKind::MinLen(length(meta, MIN_LEN)?)
        } else if meta.path == MAX_LEN {
            RuleKind::MaxLen(length(meta, MAX_LEN)?)
        } else if meta.path == ONE_OF {
            RuleKind::OneOf(choices(meta)?)
        } else if meta.path == REQUIRED {
            flag(meta, REQUIRED)?;
            RuleKind::Required
        } else if meta.path == NESTED {
            flag(meta, NESTED)?;
            RuleKind::Nested
        } else {
            return Ok(false);
        };
        let repeatable = matches!(kind, RuleKind::Custom(_));
        if !repeatable && self.rules.iter().any(|r| r.kind.name() == kind.name()) {
            cx.syn_error(syn::Error::new(
                span,
                format!("duplicate odm attribute `{}`", kind.name()),
            ));
        } else {
            self.rules.push(Rule { span, kind });
        }
        Ok(true)
    }
}

/// The container's `validate = path` keys, in the order written.
#[derive(Default)]
pub struct ContainerRules {
    pub validators: Vec<ExprPath>,
}

impl ContainerRules {
    /// Parses `meta` when it is `validate`; `Ok(false)` when it is not.
    pub fn parse(&mut self, meta: &ParseNestedMeta) -> syn::Result<bool> {
        if meta.path != VALIDATE {
            return Ok(false);
        }
        self.validators.push(validator_path(meta)?);
        Ok(true)
    }
}

/// `validate = path::to_fn`: a path, not a string or an expression.
fn validator_path(meta: &ParseNestedMeta) -> syn::Result<ExprPath> {
    let form = "expected `validate = path::to_fn`, e.g. `validate = Self::check` or `validate = rules::https_url`";
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(form));
    }
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Path(path) if path.attrs.is_empty() => Ok(path),
        Expr::Lit(lit) if matches!(lit.lit, Lit::Str(_)) => Err(syn::Error::new_spanned(
            lit,
            "a validator is a path to a function, not a string: remove the quotes \
             (`validate = path::to_fn`)",
        )),
        other => Err(syn::Error::new_spanned(
            other,
            "a validator is a path to a function (`validate = Self::check`), not an expression: \
             put the logic in a `fn` and name it here",
        )),
    }
}

/// `min = n` / `max = n`: an integer or float literal, maybe negative.
fn number(meta: &ParseNestedMeta, name: Symbol) -> syn::Result<NumLit> {
    let form = format!("expected `{name} = n` with a number literal, e.g. `{name} = 0`");
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(form));
    }
    let expr: Expr = meta.value()?.parse()?;
    let (negative, lit) = match &expr {
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(l) => (true, &l.lit),
            _ => return Err(syn::Error::new_spanned(&expr, form)),
        },
        Expr::Lit(l) => (false, &l.lit),
        _ => return Err(syn::Error::new_spanned(&expr, form)),
    };
    let sign = if negative { "-" } else { "" };
    let value = match lit {
        Lit::Int(i) => {
            let text = format!("{sign}{}", i.base10_digits());
            let n: i128 = text.parse().map_err(|_| {
                syn::Error::new_spanned(
                    &expr,
                    format!("`{name} = {text}` does not fit any integer type"),
                )
            })?;
            Number::Int(n)
        }
        Lit::Float(f) => {
            let x: f64 = f.base10_parse()?;
            if !x.is_finite() {
                return Err(syn::Error::new_spanned(
                    &expr,
                    format!("`{name}` must be finite"),
                ));
            }
            Number::Float(if negative { -x } else { x })
        }
        _ => return Err(syn::Error::new_spanned(&expr, form)),
    };
    let tokens = expr.to_token_stream();
    let text = tokens.to_string().replace(' ', "");
    Ok(NumLit {
        value,
        tokens,
        text,
    })
}

/// `min_len = n` / `max_len = n`: a non-negative integer literal.
fn length(meta: &ParseNestedMeta, name: Symbol) -> syn::Result<usize> {
    let form = format!("expected `{name} = n` with a non-negative integer, e.g. `{name} = 1`");
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(form));
    }
    let expr: Expr = meta.value()?.parse()?;
    match &expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<usize>(),
            _ => Err(syn::Error::new_spanned(&expr, form)),
        },
        _ => Err(syn::Error::new_spanned(&expr, form)),
    }
}

/// `one_of("A", "B")`: one or more distinct string literals.
fn choices(meta: &ParseNestedMeta) -> syn::Result<Vec<LitStr>> {
    let form = "expected `one_of(\"A\", \"B\")` with string literals";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(form));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let items = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    let mut out: Vec<LitStr> = Vec::new();
    for item in items {
        match item {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                if out.iter().any(|o| o.value() == s.value()) {
                    return Err(syn::Error::new_spanned(s, "this choice is listed twice"));
                }
                out.push(s);
            }
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "expected a string literal, e.g. \"APPROVED\"",
                ))
            }
        }
    }
    if out.is_empty() {
        return Err(meta.error("`one_of()` lists no choice; every value would fail"));
    }
    Ok(out)
}

fn flag(meta: &ParseNestedMeta, name: Symbol) -> syn::Result<()> {
    if meta.input.peek(Token![=]) || meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!("`{name}` takes no value: write `{name}`")));
    }
    Ok(())
}
