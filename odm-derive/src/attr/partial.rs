//! Parses a partial filter, `partial(..)`: the conditions MongoDB accepts
//! in a `partialFilterExpression` (`in` and `or` from MongoDB 6.0 on), and
//! a compile error saying why for those it never accepts.

use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Expr, ExprLit, ExprUnary, Ident, Lit, Token, UnOp};

use crate::attr::base::{empty_parens, nested_first_error};

/// One term of a partial filter, as written; the terms are combined with
/// `$and`.
pub enum Term {
    Cond(Cond),
    /// `or(..)`: at least one branch holds; a branch is its conditions
    /// combined with `$and` (`and(a = 1, b = 2)`, or one field's operators).
    Or(Vec<Vec<Cond>>),
}

impl Term {
    /// Every condition of the term.
    pub fn conds(&self) -> Vec<&Cond> {
        match self {
            Term::Cond(c) => vec![c],
            Term::Or(branches) => branches.iter().flatten().collect(),
        }
    }
}

/// One condition of a partial filter, as written.
pub struct Cond {
    pub field: Ident,
    pub op: Op,
    pub value: Value,
}

#[derive(Clone, Copy, PartialEq)]
pub enum Op {
    Eq,
    Gt,
    Gte,
    Lt,
    Lte,
    Exists,
    Type,
    /// `in = [..]`, with a `Value::List`.
    In,
}

#[derive(Clone, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    List(Vec<Value>),
}

/// What a rejected partial-filter operator can be replaced with.
const ALTERNATIVE: &str = "To index only the documents where something is NOT true, store a field \
that is true exactly for the documents to index and write `partial(that_field = true)`; for a rule \
no index can express, serialize the check-then-write with a lock: odm::lock::KeyedMutex within one \
process, odm::lock::Leases across processes";

const ACCEPTED: &str =
    "A partialFilterExpression accepts only equality (`field = value`), `gt`, `gte`, `lt`, `lte`, \
`exists = true` and `type = \"..\"`, and from MongoDB 6.0 on `in = [..]` and `or(..)`; the conditions \
of `partial(..)` are combined with `$and`";

/// The `$type` aliases MongoDB knows.
const TYPE_ALIASES: &[&str] = &[
    "double",
    "string",
    "object",
    "array",
    "binData",
    "undefined",
    "objectId",
    "bool",
    "date",
    "null",
    "regex",
    "dbPointer",
    "javascript",
    "symbol",
    "int",
    "timestamp",
    "long",
    "decimal",
    "minKey",
    "maxKey",
    "number",
];

/// `partial(status = "ACTIVE", age(gt = 5), email(exists = true), or(..))`.
pub fn parse_partial(meta: &ParseNestedMeta) -> syn::Result<Vec<Term>> {
    let form = "expected `partial(field = value, other(gt = 5), ..)`";
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(form));
    }
    let mut terms = Vec::new();
    nested_first_error(meta, |term| {
        let Some(field) = term.path.get_ident().cloned() else {
            return Err(term.error("expected a field name"));
        };
        match logical(&term, &field) {
            Some("or") => terms.push(Term::Or(parse_or(&term)?)),
            Some("and") => {
                return Err(syn::Error::new(
                    field.span(),
                    "the conditions of `partial(..)` are already combined with `$and`: list them \
                     directly, e.g. `partial(status = \"ACTIVE\", age(gt = 5))`; `and(..)` groups \
                     conditions inside `or(..)`",
                ))
            }
            Some(other) => return Err(rejected(&field, other)),
            None => terms.extend(parse_field_term(&term, &field)?.into_iter().map(Term::Cond)),
        }
        Ok(())
    })?;
    if terms.is_empty() {
        return Err(meta.error(form));
    }
    Ok(terms)
}

/// The logical operator `term` is (`or(..)`, `and(..)`, `not(..)`, ..),
/// `None` for a field.
fn logical(term: &ParseNestedMeta, name: &Ident) -> Option<&'static str> {
    if !term.input.peek(syn::token::Paren) {
        return None;
    }
    ["or", "and", "nor", "not", "expr"]
        .into_iter()
        .find(|op| name == op)
}

/// `or(a = 1, b(gt = 2), and(c = 3, d = 4))`: the branches.
fn parse_or(meta: &ParseNestedMeta) -> syn::Result<Vec<Vec<Cond>>> {
    let form = "expected `or(field = value, other(gt = 5), and(a = 1, b = 2), ..)`";
    if empty_parens(meta.input) {
        return Err(meta.error(format!("`or()` names no condition; {form}")));
    }
    let mut branches = Vec::new();
    nested_first_error(meta, |branch| {
        let Some(field) = branch.path.get_ident().cloned() else {
            return Err(branch.error("expected a field name, or `and(..)`"));
        };
        match logical(&branch, &field) {
            Some("and") => {
                if empty_parens(branch.input) {
                    return Err(branch.error("`and()` names no condition"));
                }
                let mut conds = Vec::new();
                nested_first_error(&branch, |term| {
                    let Some(field) = term.path.get_ident().cloned() else {
                        return Err(term.error("expected a field name"));
                    };
                    match logical(&term, &field) {
                        Some(op @ ("or" | "and")) => Err(syn::Error::new(
                            field.span(),
                            format!(
                                "`{op}(..)` inside `or(and(..))` is not supported: write the \
                                 filter as `or(..)` of `and(..)` groups of field conditions"
                            ),
                        )),
                        Some(other) => Err(rejected(&field, other)),
                        None => {
                            conds.extend(parse_field_term(&term, &field)?);
                            Ok(())
                        }
                    }
                })?;
                branches.push(conds);
            }
            Some("or") => {
                return Err(syn::Error::new(
                    field.span(),
                    "an `or(..)` inside `or(..)`: list its branches in the outer `or(..)`",
                ))
            }
            Some(other) => return Err(rejected(&field, other)),
            None => branches.push(parse_field_term(&branch, &field)?),
        }
        Ok(())
    })?;
    if branches.is_empty() {
        return Err(meta.error(form));
    }
    Ok(branches)
}

/// `field = value` or `field(op = value, ..)`: its conditions.
fn parse_field_term(term: &ParseNestedMeta, field: &Ident) -> syn::Result<Vec<Cond>> {
    if term.input.peek(Token![=]) {
        let value = parse_value(term)?;
        return Ok(vec![Cond {
            field: field.clone(),
            op: Op::Eq,
            value,
        }]);
    }
    if !term.input.peek(syn::token::Paren) {
        return Err(term.error(format!(
            "expected `{field} = value` (equality) or `{field}(gt = value)`"
        )));
    }
    let mut conds = Vec::new();
    nested_first_error(term, |op| {
        conds.push(parse_operator(field, &op)?);
        Ok(())
    })?;
    if conds.is_empty() {
        return Err(term.error(format!("expected an operator such as `{field}(gt = 5)`")));
    }
    Ok(conds)
}

/// One `op = value` inside `field(..)`.
fn parse_operator(field: &Ident, meta: &ParseNestedMeta) -> syn::Result<Cond> {
    let Some(op_ident) = meta.path.get_ident() else {
        return Err(meta.error("expected an operator such as `gt = 5`"));
    };
    let name = op_ident.to_string();
    let op = match name.as_str() {
        "eq" => Op::Eq,
        "gt" => Op::Gt,
        "gte" => Op::Gte,
        "lt" => Op::Lt,
        "lte" => Op::Lte,
        "exists" => Op::Exists,
        "type" => Op::Type,
        "in" => Op::In,
        _ => return Err(rejected(op_ident, &name)),
    };
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(format!("expected `{name} = value`")));
    }
    let value = if op == Op::In {
        parse_list(meta)?
    } else {
        parse_value(meta)?
    };
    match (op, &value) {
        (Op::Exists, Value::Bool(true)) => {}
        (Op::Exists, Value::Bool(false)) => return Err(rejected(op_ident, "exists = false")),
        (Op::Exists, _) => return Err(meta.error("expected `exists = true`")),
        (Op::Type, Value::Str(alias)) if TYPE_ALIASES.contains(&alias.as_str()) => {}
        (Op::Type, _) => {
            return Err(syn::Error::new(
                op_ident.span(),
                format!(
                    "`type` takes a MongoDB type alias in quotes, one of: {}",
                    TYPE_ALIASES.join(", ")
                ),
            ))
        }
        _ => {}
    }
    Ok(Cond {
        field: field.clone(),
        op,
        value,
    })
}

/// The error for an operator a partial index cannot use.
fn rejected(at: &Ident, op: &str) -> syn::Error {
    let message = match op {
        "exists = false" | "ne" | "nin" | "not" | "nor" => format!(
            "`{op}` cannot be used in a partial index: MongoDB refuses negations (`$ne`, `$nin`, \
             `$not`, `$nor`, `$exists: false`) in a partialFilterExpression on every version. \
             {ACCEPTED}. {ALTERNATIVE}"
        ),
        "regex" | "expr" => format!(
            "`{op}` cannot be used in a partial index: MongoDB refuses `${op}` in a \
             partialFilterExpression on every version. {ACCEPTED}. {ALTERNATIVE}"
        ),
        _ => format!(
            "unknown partial-filter operator `{op}`. {ACCEPTED}; write e.g. `{at}(gt = 5)`. \
             {ALTERNATIVE}"
        ),
    };
    syn::Error::new(at.span(), message)
}

/// `in = ["A", "B"]`: a non-empty list of literals.
fn parse_list(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let form = "expected `in = [value, ..]`: a list of literals (strings, integers, floats, bools)";
    let input = meta.value()?;
    if !input.peek(syn::token::Bracket) {
        let expr: Expr = input.parse()?;
        return Err(syn::Error::new_spanned(&expr, form));
    }
    let content;
    let bracket = syn::bracketed!(content in input);
    let elems = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    if elems.is_empty() {
        return Err(syn::Error::new(
            bracket.span.join(),
            "`in = []` matches no document; list at least one value",
        ));
    }
    let values = elems
        .iter()
        .map(|e| literal(e).ok_or_else(|| syn::Error::new_spanned(e, form)))
        .collect::<syn::Result<Vec<Value>>>()?;
    Ok(Value::List(values))
}

fn parse_value(meta: &ParseNestedMeta) -> syn::Result<Value> {
    let expr: Expr = meta.value()?.parse()?;
    literal(&expr).ok_or_else(|| {
        syn::Error::new_spanned(
            &expr,
            "expected a literal: a string, an integer, a float or a bool",
        )
    })
}

/// A string, integer, float or bool literal, possibly negated.
pub fn literal(expr: &Expr) -> Option<Value> {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(s) => Some(Value::Str(s.value())),
            Lit::Int(i) => i.base10_parse::<i64>().ok().map(Value::Int),
            Lit::Float(f) => f
                .base10_parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Value::Float),
            Lit::Bool(b) => Some(Value::Bool(b.value)),
            _ => None,
        },
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match literal(expr)? {
            Value::Int(n) => Some(Value::Int(-n)),
            Value::Float(f) => Some(Value::Float(-f)),
            _ => None,
        },
        Expr::Group(g) => literal(&g.expr),
        _ => None,
    }
}
