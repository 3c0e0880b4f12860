//! A long array's element as the history's JSON writes it, without a `serde_json::Value` per
//! element (issue 33 item 6): its keys and their values' text collected from its `Serialize`,
//! in the `Value`'s key order, each scalar written as the `Value` would write it.
//!
//! [`super::json`]'s arrays once made each element a `serde_json::Value` (a map of strings:
//! an allocation per key and value, a tree insertion per key), fixed it up (`integer_counts`,
//! the rows' added keys) and wrote it: a 20,000-incident history's rows took most of the JSON's
//! time so. [`write_object`] writes the same bytes: the element's top-level keys sorted as the
//! `Value`'s map sorts them (byte order, a repeated key's last value kept), a whole f64 under a
//! count key as an integer, the scalars through serde_json's own serializer, and any value that
//! is not a scalar (an array, an object) through the `Value` as before.

use serde::Serialize;
use serde::ser::{self, Impossible, SerializeMap, SerializeStruct};

use crate::output::json::is_count_key;

/// Not a scalar: the value is written through a `serde_json::Value` ([`Fields`]).
#[derive(Debug)]
struct NotScalar;

impl std::fmt::Display for NotScalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a scalar")
    }
}

impl std::error::Error for NotScalar {}

impl ser::Error for NotScalar {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotScalar
    }
}

/// A key's value where it is a scalar (null, a bool, an integer, an f64, a string, a unit
/// variant), as serde_json writes the `Value` it makes of it: onto `out`, a whole f64 as an
/// integer under a count key (`count`). Anything else is [`NotScalar`], nothing written.
struct Scalar<'a> {
    out: &'a mut Vec<u8>,
    count: bool,
}

impl Scalar<'_> {
    fn json<T: Serialize + ?Sized>(self, v: &T) -> Result<(), NotScalar> {
        v.serialize(&mut serde_json::Serializer::new(self.out))
            .map_err(|_| NotScalar)
    }
}

macro_rules! whole {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, v: $t) -> Result<(), NotScalar> {
            self.json(&v)
        }
    )*};
}

macro_rules! not_scalar {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, _: $t) -> Result<(), NotScalar> {
            Err(NotScalar)
        }
    )*};
}

/// The compound values (newtype variants, sequences, tuples, maps, structs) a scalar
/// serializer refuses: their element is written by the `Value` path instead.
macro_rules! no_compounds {
    () => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<(), NotScalar> {
            Err(NotScalar)
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStruct, NotScalar> {
            Err(NotScalar)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, NotScalar> {
            Err(NotScalar)
        }
    };
}

impl ser::Serializer for Scalar<'_> {
    type Ok = ();
    type Error = NotScalar;
    type SerializeSeq = Impossible<(), NotScalar>;
    type SerializeTuple = Impossible<(), NotScalar>;
    type SerializeTupleStruct = Impossible<(), NotScalar>;
    type SerializeTupleVariant = Impossible<(), NotScalar>;
    type SerializeMap = Impossible<(), NotScalar>;
    type SerializeStruct = Impossible<(), NotScalar>;
    type SerializeStructVariant = Impossible<(), NotScalar>;

    whole!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_char: char, serialize_str: &str);
    // an f32's `Value` is written as an f64; i128 and bytes are rare: all through the `Value`
    not_scalar!(serialize_f32: f32, serialize_i128: i128, serialize_u128: u128,
        serialize_bytes: &[u8]);

    fn serialize_f64(self, v: f64) -> Result<(), NotScalar> {
        // `integer_counts`: a finite whole f64 under a count key as an integer
        if self.count && v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15 {
            self.json(&(v as i64))
        } else {
            self.json(&v)
        }
    }
    fn serialize_none(self) -> Result<(), NotScalar> {
        self.json(&())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), NotScalar> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), NotScalar> {
        self.json(&())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), NotScalar> {
        self.json(&())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), NotScalar> {
        self.json(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), NotScalar> {
        v.serialize(self)
    }
    no_compounds!();
}

/// A key as a map's key serializes it: its text, and where it was given ([`Id`]).
struct Key<'a>(&'a mut String, &'a mut Id);

impl ser::Serializer for Key<'_> {
    type Ok = ();
    type Error = NotScalar;
    type SerializeSeq = Impossible<(), NotScalar>;
    type SerializeTuple = Impossible<(), NotScalar>;
    type SerializeTupleStruct = Impossible<(), NotScalar>;
    type SerializeTupleVariant = Impossible<(), NotScalar>;
    type SerializeMap = Impossible<(), NotScalar>;
    type SerializeStruct = Impossible<(), NotScalar>;
    type SerializeStructVariant = Impossible<(), NotScalar>;

    fn serialize_str(self, v: &str) -> Result<(), NotScalar> {
        self.0.push_str(v);
        *self.1 = id(v);
        Ok(())
    }
    not_scalar!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_char: char, serialize_f32: f32, serialize_f64: f64,
        serialize_i128: i128, serialize_u128: u128, serialize_bytes: &[u8]);
    fn serialize_none(self) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_unit(self) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), NotScalar> {
        Err(NotScalar)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), NotScalar> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), NotScalar> {
        v.serialize(self)
    }
    no_compounds!();
}

/// Where a key's text was given (its address and length): a derived `Serialize` gives each
/// key as a `&'static str`, the same for every element of a type, so the elements of one
/// shape are known by their keys' [`Id`]s without reading the keys (the same `Id`, the same
/// text; another `Id` with the same text only misses the [`Scratch`]'s shape).
type Id = (usize, usize);

/// A key's [`Id`].
fn id(key: &str) -> Id {
    (key.as_ptr() as usize, key.len())
}

/// One key of an element: its name and [`Id`], whether it is a count's, its value's text
/// (pretty, at the element's keys' depth), whether it is a default (a key added where the
/// element has none: `or_insert`).
#[derive(Debug, Default)]
struct Entry {
    key: String,
    id: Id,
    count: bool,
    text: Vec<u8>,
    default: bool,
}

/// An element's keys as collected ([`Fields`]), their buffers kept from one element to the
/// next (no allocation per key once the first element has been written), and the last
/// element's shape: its keys' [`Id`]s and count flags, and which entries it wrote, in order,
/// each with its key's text (`"key": `): the next element with the same keys reuses them.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    entries: Vec<Entry>,
    used: usize,
    order: Vec<usize>,
    name: String,
    shape: Vec<(Id, bool)>,
    picks: Vec<(usize, Vec<u8>)>,
}

impl Scratch {
    /// A new entry for `key` (given at `at`), its buffers cleared, whether it is a count's
    /// (the last element's flag where its key there had the same [`Id`]).
    fn next(&mut self, key: &str, at: Id) -> &mut Entry {
        if self.used == self.entries.len() {
            self.entries.push(Entry::default());
        }
        let count = match self.shape.get(self.used) {
            Some(&(was, count)) if was == at => count,
            _ => is_count_key(key),
        };
        let e = &mut self.entries[self.used];
        self.used += 1;
        e.key.clear();
        e.key.push_str(key);
        e.id = at;
        e.count = count;
        e.text.clear();
        e.default = false;
        e
    }

    /// Add `key` with the value text `text` where the element has no such key (a default).
    pub fn or_insert(&mut self, key: &'static str, text: &[u8]) {
        let e = self.next(key, id(key));
        e.text.extend_from_slice(text);
        e.default = true;
    }

    /// Set `key` to the value text `text` (replacing the element's own).
    pub fn insert(&mut self, key: &'static str, text: &[u8]) {
        let e = self.next(key, id(key));
        e.text.extend_from_slice(text);
    }

    /// Whether the collected keys are the last element's, by [`Id`].
    fn same_shape(&self) -> bool {
        self.shape.len() == self.used
            && self
                .shape
                .iter()
                .zip(&self.entries)
                .all(|(&(at, _), e)| at == e.id)
    }

    /// The entries to write, in order, each with its key's text: the `Value`'s map order
    /// (keys in byte order), a key set twice keeping its last value, a default only where the
    /// element has none. Kept as the shape of the elements to come.
    fn pick(&mut self) -> serde_json::Result<()> {
        let Scratch {
            entries,
            used,
            order,
            shape,
            picks,
            ..
        } = self;
        // `sort_by` is stable: a key's entries stay in the order given
        order.clear();
        order.extend(0..*used);
        order.sort_by(|&a, &b| entries[a].key.cmp(&entries[b].key));
        picks.clear();
        let mut i = 0;
        while i < order.len() {
            let key = &entries[order[i]].key;
            let run = order[i..]
                .iter()
                .take_while(|&&k| entries[k].key == *key)
                .count();
            let run = &order[i..i + run];
            let pick = *run
                .iter()
                .rev()
                .find(|&&k| !entries[k].default)
                .unwrap_or(&run[0]);
            let mut text = vec![b' '; 2 * KEY_DEPTH];
            serde_json::to_writer(&mut text, key.as_str())?;
            text.extend_from_slice(b": ");
            picks.push((pick, text));
            i += run.len();
        }
        shape.clear();
        shape.extend(entries[..*used].iter().map(|e| (e.id, e.count)));
        Ok(())
    }

    /// The value text of `key`, the element's own (the last one given).
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.entries[..self.used]
            .iter()
            .rev()
            .find(|e| !e.default && e.key == key)
            .map(|e| e.text.as_slice())
    }
}

/// The depth of an element's keys in the document (the elements of a long array are at depth
/// 2: the document's keys at 1).
const KEY_DEPTH: usize = 3;

/// The collector of an element's top-level keys: a struct's fields or a map's entries (a
/// `#[serde(flatten)]` struct serializes as a map).
struct Fields<'a>(&'a mut Scratch);

impl Fields<'_> {
    fn add<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        at: Id,
        value: &T,
    ) -> serde_json::Result<()> {
        let e = self.0.next(key, at);
        let count = e.count;
        if value
            .serialize(Scalar {
                out: &mut e.text,
                count,
            })
            .is_err()
        {
            // not a scalar: as before, through the `Value` (its counts as integers)
            e.text.clear();
            let mut v = serde_json::to_value(value)?;
            let whole = v
                .as_f64()
                .filter(|f| count && v.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15);
            if let Some(f) = whole {
                v = serde_json::json!(f as i64);
            } else {
                crate::output::json::integer_counts(&mut v);
            }
            super::json::write_deep(&mut e.text, &v, KEY_DEPTH)?;
        }
        Ok(())
    }
}

impl SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> serde_json::Result<()> {
        self.add(key, id(key), value)
    }
    fn end(self) -> serde_json::Result<()> {
        Ok(())
    }
}

impl SerializeMap for Fields<'_> {
    type Ok = ();
    type Error = serde_json::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, _: &T) -> serde_json::Result<()> {
        // serde's derive gives a struct's (and a flattened struct's) entries whole
        Err(ser::Error::custom("a key without its value"))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> serde_json::Result<()> {
        Err(ser::Error::custom("a value without its key"))
    }
    fn serialize_entry<K: Serialize + ?Sized, V: Serialize + ?Sized>(
        &mut self,
        key: &K,
        value: &V,
    ) -> serde_json::Result<()> {
        let mut name = std::mem::take(&mut self.0.name);
        name.clear();
        let mut at = (0, 0);
        let out = match key.serialize(Key(&mut name, &mut at)) {
            Ok(()) => self.add(&name, at, value),
            Err(_) => Err(ser::Error::custom("a map key that is not a string")),
        };
        self.0.name = name;
        out
    }
    fn end(self) -> serde_json::Result<()> {
        Ok(())
    }
}

/// An element as [`Fields`] collects it: a struct or a map (anything else is an error).
struct Top<'a>(&'a mut Scratch);

/// The error of an element that is not an object.
fn not_an_object() -> serde_json::Error {
    ser::Error::custom("a long array's element is not an object")
}

macro_rules! not_an_object {
    ($($f:ident: $t:ty),*) => {$(
        fn $f(self, _: $t) -> serde_json::Result<()> {
            Err(not_an_object())
        }
    )*};
}

impl<'a> ser::Serializer for Top<'a> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Impossible<(), serde_json::Error>;
    type SerializeTuple = Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = Impossible<(), serde_json::Error>;
    type SerializeMap = Fields<'a>;
    type SerializeStruct = Fields<'a>;
    type SerializeStructVariant = Impossible<(), serde_json::Error>;

    not_an_object!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16,
        serialize_i32: i32, serialize_i64: i64, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_char: char, serialize_f32: f32,
        serialize_f64: f64, serialize_str: &str, serialize_bytes: &[u8],
        serialize_unit_struct: &'static str);
    fn serialize_none(self) -> serde_json::Result<()> {
        Err(not_an_object())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> serde_json::Result<()> {
        Err(not_an_object())
    }
    fn serialize_unit(self) -> serde_json::Result<()> {
        Err(not_an_object())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> serde_json::Result<()> {
        Err(not_an_object())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> serde_json::Result<()> {
        Err(not_an_object())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> serde_json::Result<()> {
        Err(not_an_object())
    }
    fn serialize_seq(self, _: Option<usize>) -> serde_json::Result<Self::SerializeSeq> {
        Err(not_an_object())
    }
    fn serialize_tuple(self, _: usize) -> serde_json::Result<Self::SerializeTuple> {
        Err(not_an_object())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> serde_json::Result<Self::SerializeTupleStruct> {
        Err(not_an_object())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> serde_json::Result<Self::SerializeTupleVariant> {
        Err(not_an_object())
    }
    fn serialize_map(self, _: Option<usize>) -> serde_json::Result<Fields<'a>> {
        Ok(Fields(self.0))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> serde_json::Result<Fields<'a>> {
        Ok(Fields(self.0))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> serde_json::Result<Self::SerializeStructVariant> {
        Err(not_an_object())
    }
}

/// `item` (a struct or a map) onto `out` as the pretty object serde_json writes for its
/// `Value` at depth 2 of a document (its keys on lines indented by 6, its `}` by 4), `fix`
/// run on its keys first ([`Scratch::insert`], [`Scratch::or_insert`]): the bytes of
/// `to_value`, the fix on the `Value`, `integer_counts` and the pretty writer, in that order.
///
/// Errors: `item` is not an object, or a value of it fails to serialize.
pub(super) fn write_object<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    item: &T,
    scratch: &mut Scratch,
    fix: fn(&mut Scratch),
) -> serde_json::Result<()> {
    scratch.used = 0;
    item.serialize(Top(scratch))?;
    fix(scratch);
    if !scratch.same_shape() {
        scratch.pick()?;
    }
    out.push(b'{');
    for (i, (k, key)) in scratch.picks.iter().enumerate() {
        out.extend_from_slice(if i == 0 { b"\n" } else { b",\n" });
        out.extend_from_slice(key);
        out.extend_from_slice(&scratch.entries[*k].text);
    }
    if !scratch.picks.is_empty() {
        out.push(b'\n');
        out.extend_from_slice(&[b' '; 2 * (KEY_DEPTH - 1)]);
    }
    out.push(b'}');
    Ok(())
}
