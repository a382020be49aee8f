//! A `timestamps` field of a `chrono` or `time` date type must name its
//! serde helper: odm stamps it with a BSON date, which serde alone (text)
//! cannot read back, so without the helper every stamped document would
//! fail to load. Told here, at compile time, with the helper to add.

use syn::{GenericArgument, PathArguments, Type};

use crate::ast::{Container, Field};
use crate::ctxt::Ctxt;

pub fn check_date_types(cx: &Ctxt, cont: &Container) {
    let Some((_, ts)) = &cont.attrs.timestamps else {
        return;
    };
    let stamped = cont
        .stored_fields()
        .filter(|f| f.bson_name == ts.created_at || f.bson_name == ts.updated_at);
    for field in stamped.filter(|f| !f.attrs.custom_de) {
        if let Some(helper) = helper(field) {
            cx.error_spanned_by(
                field.ty,
                format!(
                    "`timestamps` stamps `{}` with a BSON date, which serde alone cannot read \
                     into this type (it stores it as text): add \
                     `#[serde(with = \"odm::time::{helper}\")]` to the field{}",
                    field.ident,
                    if helper.ends_with("_option") {
                        " (with `default`, to load a document without it)"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
}

/// The `odm::time` helper of a `chrono::DateTime<..>` or
/// `time::OffsetDateTime` field (or an `Option` of one), by its type as
/// written; `None` for any other type (`odm::bson::DateTime` among them).
fn helper(field: &Field) -> Option<&'static str> {
    let (inner, optional) = match option_of(field.ty) {
        Some(inner) => (inner, true),
        None => (field.ty, false),
    };
    let base = date_kind(inner)?;
    Some(match (base, optional) {
        ("chrono", false) => "chrono_datetime",
        ("chrono", true) => "chrono_datetime_option",
        (_, false) => "offset_datetime",
        (_, true) => "offset_datetime_option",
    })
}

/// The `T` of `Option<T>`.
fn option_of(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(inner) if args.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// `"chrono"` for `DateTime<..>` (bson's `DateTime` has no parameter),
/// `"time"` for `OffsetDateTime`.
fn date_kind(ty: &Type) -> Option<&'static str> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident == "OffsetDateTime" {
        return Some("time");
    }
    let generic = matches!(last.arguments, PathArguments::AngleBracketed(_));
    (last.ident == "DateTime" && generic).then_some("chrono")
}
