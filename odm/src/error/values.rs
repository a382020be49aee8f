//! The one policy for values in odm's texts: the error texts and the
//! command log show the shape of what was sent (keys, operators, paths,
//! names of collections and indexes, `_id`s, versions, fencing tokens) and
//! never a stored or sent value (an email, a token, a filter's argument, a
//! duplicated key), unless values are switched on for debugging.
//!
//! The switch is the command log's: values are shown while a `tracing`
//! subscriber is enabled at `TRACE` for the target `odm::command` (where
//! the command log emits its events with values). It is read when a text
//! is written, so an error displayed under such a subscriber shows its
//! values, and the same error displayed elsewhere does not.
//!
//! The pure rules here (the shape of a document, the masking of a
//! server's or serde's message) take the decision as an argument and are
//! unit tested on their own.

use std::borrow::Cow;
use std::fmt;

use mongodb::bson::{Bson, Document};

/// The target whose `TRACE` level switches values on (the command log's).
pub(crate) const TARGET: &str = "odm::command";

/// What a hidden value is written as.
pub(crate) const HIDDEN: &str = "?";

/// Whether texts show values now: a subscriber is enabled at `TRACE` for
/// the target `odm::command`, the switch of the command log's values.
///
/// Off by default. To see values while debugging, enable that target at
/// `TRACE` (with `tracing-subscriber`'s env filter:
/// `RUST_LOG=odm::command=trace`); the command log then shows each
/// command's values, and every [`Error`](crate::Error)'s text shows the
/// values it carries (a filter's arguments, a duplicated key, the value a
/// validator refused, a lease's key). Programs read those through the
/// errors' accessors, which always return them.
pub fn values_shown() -> bool {
    tracing::enabled!(target: TARGET, tracing::Level::TRACE)
}

/// `d` as text: with its values when `values`, else its shape (every value
/// `?`), keeping a top-level `_id` that is a plain identifier (an
/// ObjectId, a string or a number) when `keep_id`.
pub(crate) fn document_text(d: &Document, values: bool, keep_id: bool) -> String {
    if values {
        return d.to_string();
    }
    let mut out = String::new();
    shape_of_doc(d, keep_id, &mut out);
    out
}

/// The shape of `d`: its keys and operators, every value `?` (a top-level
/// identifier `_id` kept when `keep_id`).
pub(crate) fn shape_of_doc(d: &Document, keep_id: bool, out: &mut String) {
    out.push('{');
    for (i, (key, value)) in d.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        out.push_str(key);
        out.push_str(": ");
        if keep_id && key == "_id" && is_identifier(value) {
            out.push_str(&value.to_string());
        } else {
            shape_of_value(value, out);
        }
    }
    out.push_str(if d.is_empty() { "}" } else { " }" });
}

fn shape_of_value(value: &Bson, out: &mut String) {
    match value {
        Bson::Document(d) => shape_of_doc(d, false, out),
        Bson::Array(items) if items.iter().any(|v| matches!(v, Bson::Document(_))) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { " " } else { ", " });
                shape_of_value(item, out);
            }
            out.push_str(" ]");
        }
        _ => out.push_str(HIDDEN),
    }
}

fn is_identifier(value: &Bson) -> bool {
    matches!(
        value,
        Bson::ObjectId(_) | Bson::String(_) | Bson::Int32(_) | Bson::Int64(_)
    )
}

/// A server's message with the values it quotes masked: the key after
/// `dup key:` (a duplicate key, E11000) becomes `{ ... }`; everything else
/// the server says is kept.
pub(crate) fn server_message(message: &str, values: bool) -> Cow<'_, str> {
    if values {
        return Cow::Borrowed(message);
    }
    match message.find("dup key:") {
        Some(at) => {
            let end = at + "dup key:".len();
            // The key runs to its closing brace; text after it is kept.
            let rest = &message[end..];
            let after = closing_brace(rest).map_or("", |close| &rest[close + 1..]);
            Cow::Owned(format!("{} {{ {HIDDEN} }}{after}", &message[..end]))
        }
        None => Cow::Borrowed(message),
    }
}

/// A key as the server writes it, `{ email: "a@b.c", n: 1 }`, with each
/// value masked: `{ email: ?, n: ? }`. `None` when it is not of that form.
pub(crate) fn masked_key_text(key: &str) -> Option<String> {
    let inner = key.trim().strip_prefix('{')?.strip_suffix('}')?;
    let mut names = Vec::new();
    let mut rest = inner;
    loop {
        let (name, after) = rest.split_once(':')?;
        let name = name.trim();
        if name.is_empty() || name.contains(['{', '}', '"', '\'', ',']) {
            return None;
        }
        names.push(name);
        // The value runs to the next comma outside quotes and braces.
        match value_end(after) {
            Some(comma) => rest = &after[comma + 1..],
            None => break,
        }
    }
    let fields: Vec<String> = names.iter().map(|n| format!("{n}: {HIDDEN}")).collect();
    Some(format!("{{ {} }}", fields.join(", ")))
}

/// The position of the first character outside quotes (single or double,
/// backslash escapes honoured) for which `stop` says so.
fn first_unquoted(s: &str, mut stop: impl FnMut(char) -> bool) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if c == '"' || c == '\'' {
            quote = Some(c);
        } else if stop(c) {
            return Some(i);
        }
    }
    None
}

/// The position of the comma ending the value at the start of `s`.
fn value_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    first_unquoted(s, |c| {
        match c {
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return true,
            _ => {}
        }
        false
    })
}

/// The position of the brace closing the first `{` in `s`, quotes aware.
fn closing_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    first_unquoted(s, |c| {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => return true,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        false
    })
}

/// serde's message with the value it quotes masked: `invalid type: string
/// "abc", expected i32` becomes `invalid type: string ?, expected i32`,
/// and likewise for `invalid value:` and `unknown variant`. The kinds, the
/// expectations, field and variant names of the type are kept.
pub(crate) fn serde_message(message: &str, values: bool) -> Cow<'_, str> {
    if values {
        return Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    let mut changed = false;
    while let Some(start) = next_quoted_value(rest) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        let Some(len) = quoted_len(&rest[start..], quote) else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(HIDDEN);
        rest = &rest[start + len..];
        changed = true;
    }
    if !changed {
        return Cow::Borrowed(message);
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Where the next value serde quotes starts: after `invalid type: <kind> `,
/// `invalid value: <kind> ` or `unknown variant `, the first `"` or `` ` ``.
fn next_quoted_value(s: &str) -> Option<usize> {
    const MARKS: [&str; 3] = ["invalid type: ", "invalid value: ", "unknown variant "];
    let (at, mark) = MARKS
        .iter()
        .filter_map(|m| s.find(m).map(|at| (at, *m)))
        .min_by_key(|(at, _)| *at)?;
    let from = at + mark.len();
    // The value is quoted before the `, expected` that ends it.
    let end = s[from..].find(", expected").map_or(s.len(), |e| from + e);
    s[from..end].find(['"', '`']).map(|q| from + q)
}

/// The length of the quoted text at the start of `s` (quotes included).
fn quoted_len(s: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        if escaped {
            escaped = false;
        } else if c == '\\' && quote == '"' {
            escaped = true;
        } else if c == quote {
            return Some(i + c.len_utf8());
        }
    }
    None
}

/// A value written only when values are shown; else `?`.
pub(crate) struct Value<'a, T: fmt::Display + ?Sized>(pub &'a T, pub bool);

impl<T: fmt::Display + ?Sized> fmt::Display for Value<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.1 {
            self.0.fmt(f)
        } else {
            f.write_str(HIDDEN)
        }
    }
}

#[cfg(test)]
#[path = "values_tests.rs"]
mod tests;
