//! Parses one path of `optimistic_concurrency(include(..))` /
//! `exclude(..)`: a field, then `.`-separated segments, each a field of the
//! type before it, a map key in quotes, or `*` for any key:
//! `status`, `profile.first_name`, `prefs."dark mode"`, `prefs.*.enabled`.

use syn::meta::ParseNestedMeta;
use syn::{Ident, LitStr, Token};

/// One listed path, as written.
pub struct ListedPath {
    /// The struct's field the path starts at.
    pub first: Ident,
    pub rest: Vec<Seg>,
}

/// A segment after the first.
pub enum Seg {
    /// A field of the type before it (checked through its typed paths).
    Field(Ident),
    /// A map key, taken as written.
    Key(LitStr),
    /// `*`: any one map key.
    Any(Token![*]),
}

impl ListedPath {
    /// The path as written, to compare listed paths and name them in errors.
    pub fn text(&self) -> String {
        let mut text = unraw(&self.first);
        for seg in &self.rest {
            text.push('.');
            match seg {
                Seg::Field(ident) => text.push_str(&unraw(ident)),
                Seg::Key(lit) => text.push_str(&format!("{:?}", lit.value())),
                Seg::Any(_) => text.push('*'),
            }
        }
        text
    }

    /// The segments as compared: a field and a key of the same text are
    /// the same segment only when the key is the field's BSON name, which
    /// is not known here, so they stay apart.
    pub fn segments(&self) -> Vec<String> {
        std::iter::once(unraw(&self.first))
            .chain(self.rest.iter().map(|seg| match seg {
                Seg::Field(ident) => unraw(ident),
                Seg::Key(lit) => format!("{:?}", lit.value()),
                Seg::Any(_) => "*".to_string(),
            }))
            .collect()
    }
}

fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").unwrap_or(&text).to_string()
}

const SEGMENT_FORMS: &str = "a field name, a map key in quotes (`\"key\"`) or `*` (any key)";

/// `field(.segment)*`, up to the next `,`.
pub fn parse_listed(meta: &ParseNestedMeta) -> syn::Result<ListedPath> {
    let first = match meta.path.get_ident() {
        Some(ident) => ident.clone(),
        None => return Err(meta.error("expected a field name")),
    };
    let input = meta.input;
    let mut rest = Vec::new();
    while input.peek(Token![.]) {
        let dot: Token![.] = input.parse()?;
        let seg = if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            check_key(&lit)?;
            Seg::Key(lit)
        } else if input.peek(Token![*]) {
            Seg::Any(input.parse()?)
        } else if input.peek(Ident) {
            Seg::Field(input.parse()?)
        } else if input.peek(syn::Lit) {
            let lit: syn::Lit = input.parse()?;
            return Err(syn::Error::new(
                lit.span(),
                "array positions are not written in a listed path: \
                 `comments.text` covers the `text` of every comment",
            ));
        } else {
            return Err(syn::Error::new(
                dot.span,
                format!("expected {SEGMENT_FORMS} after `.`"),
            ));
        };
        rest.push(seg);
    }
    if !(input.is_empty() || input.peek(Token![,])) {
        return Err(meta.error(format!(
            "expected a field name, or a path of fields: `profile.first_name`, with {SEGMENT_FORMS} as segments"
        )));
    }
    Ok(ListedPath { first, rest })
}

/// A key is one segment of a path: not empty, no `.`, no leading `$`.
fn check_key(lit: &LitStr) -> syn::Result<()> {
    let key = lit.value();
    if key.is_empty() || key.contains('.') || key.starts_with('$') {
        return Err(syn::Error::new(
            lit.span(),
            "a map key in a path must be non-empty, without `.` and without a leading `$` \
             (a key that is not a path segment cannot be written by a path)",
        ));
    }
    Ok(())
}
