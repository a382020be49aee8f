//! The serializers of single leaf values: the contents of `$oid`, `$date`
//! and `$numberLong`, and map keys. Anything unexpected gives up.

use serde::ser::{self, Impossible, Serialize};

use super::{GiveUp, Result, Step, Struct, Writer};

/// The value of each hex digit (either case); 0xFF for anything else.
const HEX: [u8; 256] = {
    let mut table = [0xFF; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// The 12 bytes of an ObjectId written as 24 hex digits.
fn parse_oid(hex: &[u8]) -> Result<[u8; 12]> {
    let hex: &[u8; 24] = hex.try_into().map_err(|_| GiveUp)?;
    let mut bytes = [0u8; 12];
    let mut bad = 0u8;
    for (i, b) in bytes.iter_mut().enumerate() {
        let (hi, lo) = (HEX[hex[2 * i] as usize], HEX[hex[2 * i + 1] as usize]);
        bad |= hi | lo;
        *b = hi << 4 | lo;
    }
    // A valid digit is < 16, so the high bits stay clear.
    if bad & 0xF0 != 0 {
        return Err(GiveUp);
    }
    Ok(bytes)
}

/// The `Serializer` methods both leaf serializers give up on: every kind of
/// value except strings and structs, which each serializer handles itself.
macro_rules! give_up_on_non_strings {
    () => {
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
            Err(GiveUp)
        }
        give_up_on_non_strings!(but_sequences);
    };
    // For a serializer that writes sequences itself.
    (but_sequences) => {
        fn serialize_bool(self, _: bool) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_i8(self, _: i8) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_i16(self, _: i16) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_i32(self, _: i32) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_i64(self, _: i64) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_u8(self, _: u8) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_u16(self, _: u16) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_u32(self, _: u32) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_u64(self, _: u64) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_f32(self, _: f32) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_f64(self, _: f64) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_char(self, _: char) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_bytes(self, _: &[u8]) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_none(self) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_unit(self) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<()> {
            Err(GiveUp)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
            Err(GiveUp)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct> {
            Err(GiveUp)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant> {
            Err(GiveUp)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
            Err(GiveUp)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant> {
            Err(GiveUp)
        }
    };
}

pub(super) use give_up_on_non_strings;

/// The value of a `$oid`, `$date` or `$numberLong` field.
pub(super) struct Extended<'a> {
    pub w: &'a mut Writer,
    pub step: Step,
}

impl<'a> ser::Serializer for Extended<'a> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Struct<'a>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        match self.step {
            Step::Oid => {
                let bytes = parse_oid(v.as_bytes())?;
                self.w.bytes.extend_from_slice(&bytes);
                Ok(())
            }
            Step::NumberLong => {
                let millis: i64 = v.parse().map_err(|_| GiveUp)?;
                self.w.bytes.extend_from_slice(&millis.to_le_bytes());
                Ok(())
            }
            Step::Date | Step::Done => Err(GiveUp),
        }
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Struct<'a>> {
        match self.step {
            Step::Date => Ok(Struct::Value(self.w, Step::NumberLong)),
            _ => Err(GiveUp),
        }
    }

    give_up_on_non_strings!();
}

/// A map key: only strings are on the fast path.
pub(super) struct KeyWriter<'a>(pub &'a mut Writer);

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Impossible<(), GiveUp>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_str(self, v: &str) -> Result<()> {
        self.0.key(v)
    }

    give_up_on_non_strings!();
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(GiveUp)
    }
}
