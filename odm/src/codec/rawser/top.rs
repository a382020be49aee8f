//! The top-level struct of a value written field by field by an
//! [`EachField`]: the splice copies some fields from an earlier
//! serialization, the patch writes only some. Anything but a struct at the
//! top gives up (and the writer's own struct gives up on an `ObjectId`, a
//! date or another extended-JSON struct, which is no document).

use serde::ser::{self, Impossible, Serialize};

use super::compound::Struct;
use super::leaf::give_up_on_non_strings;
use super::{GiveUp, Result, Writer};

/// What is done with each field of the top-level struct.
pub(super) trait EachField {
    /// Writes the field `key` (or not) into `doc`, the struct being
    /// written.
    fn field<T: Serialize + ?Sized>(
        &mut self,
        doc: &mut Struct<'_>,
        key: &'static str,
        value: &T,
    ) -> Result<()>;
}

/// The document being written, and what is done with its fields.
pub(super) struct Top<F> {
    pub w: Writer,
    pub fields: F,
}

impl<'a, F: EachField> ser::Serializer for &'a mut Top<F> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Fields<'a, F>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_str(self, _: &str) -> Result<()> {
        Err(GiveUp)
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Fields<'a, F>> {
        Ok(Fields {
            inner: ser::Serializer::serialize_struct(&mut self.w, name, len)?,
            fields: &mut self.fields,
        })
    }

    give_up_on_non_strings!();
}

/// The top-level struct being written.
pub(super) struct Fields<'a, F> {
    inner: Struct<'a>,
    fields: &'a mut F,
}

impl<F: EachField> ser::SerializeStruct for Fields<'_, F> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.fields.field(&mut self.inner, key, value)
    }
    fn end(self) -> Result<()> {
        ser::SerializeStruct::end(self.inner)
    }
}

/// Notes in `starts` that the element of the field just written into
/// `inner` starts at `start`, if it wrote one (a field skipped,
/// `skip_serializing_if`, writes none).
pub(super) fn note_start(starts: &mut Vec<u32>, inner: &Struct<'_>, start: usize) -> Result<()> {
    if written(inner)? > start {
        starts.push(u32::try_from(start).map_err(|_| GiveUp)?);
    }
    Ok(())
}

/// How many bytes the top-level struct `inner` holds so far: where the
/// next field's element starts.
pub(super) fn written(inner: &Struct<'_>) -> Result<usize> {
    match inner {
        Struct::Doc(doc) => Ok(doc.w.bytes.len()),
        Struct::Value(..) => Err(GiveUp),
    }
}
