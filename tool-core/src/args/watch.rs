//! Noticing, cheaply, that a type skipped a field while it was read.
//!
//! A derived `Deserialize` skips a field it does not know by reading its value as
//! `IgnoredAny`, which asks the deserializer for `deserialize_ignored_any`. This wrapper
//! passes every request to the deserializer it wraps, unchanged, and wraps the deserializers
//! of the values inside (sequence elements, map values, `Some`, newtypes, enum variants) the
//! same way, so a skip at any depth sets one flag. It is `serde_ignored`'s design without the
//! path: no key is copied, nothing is allocated, so the success path of every call can afford
//! it. When the flag is set, the caller reads the value again with `serde_ignored` to learn
//! where (the rare, failing path).
//!
//! Map keys are passed through unwrapped: a key is an identifier or a scalar, never a value
//! that skips fields, and serde_json's own key deserializer (which reads `"1"` as a number
//! for a `HashMap<u32, _>`) keeps doing the work.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

/// `T` read from `deserializer`, and whether it skipped any field on the way.
pub(crate) fn read_noticing_skips<'de, T, D>(deserializer: D) -> Result<(T, bool), D::Error>
where
    T: de::Deserialize<'de>,
    D: Deserializer<'de>,
{
    let skipped = Cell::new(false);
    let typed = T::deserialize(Watch {
        de: deserializer,
        skipped: &skipped,
    })?;
    Ok((typed, skipped.get()))
}

/// A deserializer that forwards everything and marks `skipped` on `deserialize_ignored_any`.
struct Watch<'a, D> {
    de: D,
    skipped: &'a Cell<bool>,
}

/// A visitor, sequence, map, enum or variant access that wraps what it hands out.
struct Wrap<'a, X> {
    delegate: X,
    skipped: &'a Cell<bool>,
}

/// A seed whose deserializer is watched.
struct Seed<'a, X> {
    seed: X,
    skipped: &'a Cell<bool>,
}

impl<'a, X> Wrap<'a, X> {
    fn new(delegate: X, skipped: &'a Cell<bool>) -> Self {
        Wrap { delegate, skipped }
    }
}

/// Forwards `deserialize_$name(args.., visitor)` with the visitor wrapped.
macro_rules! forward_wrapped {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        fn $name<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.de.$name($($arg,)* Wrap::new(visitor, self.skipped))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Watch<'_, D> {
    type Error = D::Error;

    forward_wrapped! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.skipped.set(true);
        self.de.deserialize_ignored_any(visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// Forwards `visit_$name(value)` unchanged: scalars hold no fields.
macro_rules! forward_scalar {
    ($($name:ident($ty:ty);)*) => {$(
        fn $name<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
            self.delegate.$name(value)
        }
    )*};
}

impl<'de, X: Visitor<'de>> Visitor<'de> for Wrap<'_, X> {
    type Value = X::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.delegate.expecting(formatter)
    }

    forward_scalar! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
        visit_string(String);
        visit_bytes(&[u8]);
        visit_borrowed_bytes(&'de [u8]);
        visit_byte_buf(Vec<u8>);
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.delegate.visit_unit()
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.delegate.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        self.delegate.visit_some(Watch {
            de,
            skipped: self.skipped,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        self.delegate.visit_newtype_struct(Watch {
            de,
            skipped: self.skipped,
        })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, access: A) -> Result<Self::Value, A::Error> {
        self.delegate.visit_seq(Wrap::new(access, self.skipped))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, access: A) -> Result<Self::Value, A::Error> {
        self.delegate.visit_map(Wrap::new(access, self.skipped))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, access: A) -> Result<Self::Value, A::Error> {
        self.delegate.visit_enum(Wrap::new(access, self.skipped))
    }
}

impl<'de, X: de::SeqAccess<'de>> de::SeqAccess<'de> for Wrap<'_, X> {
    type Error = X::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, X::Error> {
        self.delegate.next_element_seed(Seed {
            seed,
            skipped: self.skipped,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.delegate.size_hint()
    }
}

impl<'de, X: de::MapAccess<'de>> de::MapAccess<'de> for Wrap<'_, X> {
    type Error = X::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, X::Error> {
        self.delegate.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, X::Error> {
        self.delegate.next_value_seed(Seed {
            seed,
            skipped: self.skipped,
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.delegate.size_hint()
    }
}

impl<'a, 'de, X: de::EnumAccess<'de>> de::EnumAccess<'de> for Wrap<'a, X> {
    type Error = X::Error;
    type Variant = Wrap<'a, X::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), X::Error> {
        let skipped = self.skipped;
        self.delegate
            .variant_seed(seed)
            .map(|(value, variant)| (value, Wrap::new(variant, skipped)))
    }
}

impl<'de, X: de::VariantAccess<'de>> de::VariantAccess<'de> for Wrap<'_, X> {
    type Error = X::Error;

    fn unit_variant(self) -> Result<(), X::Error> {
        self.delegate.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, X::Error> {
        self.delegate.newtype_variant_seed(Seed {
            seed,
            skipped: self.skipped,
        })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, X::Error> {
        self.delegate
            .tuple_variant(len, Wrap::new(visitor, self.skipped))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, X::Error> {
        self.delegate
            .struct_variant(fields, Wrap::new(visitor, self.skipped))
    }
}

impl<'de, X: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, X> {
    type Value = X::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<X::Value, D::Error> {
        self.seed.deserialize(Watch {
            de,
            skipped: self.skipped,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use super::read_noticing_skips;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Rule {
        severity: u8,
        name: String,
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    enum Shape {
        Dot,
        Circle(Rule),
        Line { from: u8, to: u8 },
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    #[serde(untagged)]
    enum Loose {
        Rule(Rule),
        Number(u32),
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Outer {
        rules: Vec<Rule>,
        inner: Option<Rule>,
        shape: Shape,
        by_id: HashMap<u32, Rule>,
        #[serde(default)]
        loose: Option<Loose>,
    }

    /// The watcher agrees with `serde_ignored` on whether anything was skipped, and with a
    /// plain read on the value or the error's text.
    fn agrees<T: DeserializeOwned + PartialEq + std::fmt::Debug>(value: &Value) -> bool {
        let plain = T::deserialize(value);
        let watched = read_noticing_skips::<T, _>(value);
        match (plain, watched) {
            (Ok(plain), Ok((watched, skipped))) => {
                assert_eq!(plain, watched);
                let mut paths = 0;
                let _: Result<T, _> = serde_ignored::deserialize(value, |_| paths += 1);
                assert_eq!(skipped, paths > 0, "{value}");
                skipped
            }
            (Err(plain), Err(watched)) => {
                assert_eq!(plain.to_string(), watched.to_string());
                false
            }
            (plain, watched) => panic!("{value}: {plain:?} against {watched:?}"),
        }
    }

    fn outer(shape: Value, loose: Value) -> Value {
        json!({
            "rules": [{"severity": 1, "name": "a"}],
            "inner": {"severity": 2, "name": "b"},
            "shape": shape,
            "by_id": {"7": {"severity": 3, "name": "c"}},
            "loose": loose,
        })
    }

    #[test]
    fn notices_a_skip_at_any_depth_and_nothing_else() {
        let circle = json!({"Circle": {"severity": 1, "name": "x"}});
        assert!(!agrees::<Outer>(&outer(json!("Dot"), json!(5))));
        assert!(!agrees::<Outer>(&outer(circle.clone(), Value::Null)));
        assert!(!agrees::<Outer>(&outer(
            json!({"Line": {"from": 1, "to": 2}}),
            json!({"severity": 1, "name": "n"})
        )));
        let mut extra = outer(circle.clone(), Value::Null);
        extra["rules"][0]["sevrity"] = json!(1);
        assert!(agrees::<Outer>(&extra));
        let mut extra = outer(circle.clone(), Value::Null);
        extra["inner"]["nmae"] = json!("d");
        assert!(agrees::<Outer>(&extra));
        let mut extra = outer(circle.clone(), Value::Null);
        extra["by_id"]["7"]["x"] = json!(0);
        assert!(agrees::<Outer>(&extra));
        let mut extra = outer(json!({"Line": {"from": 1, "to": 2, "via": 3}}), Value::Null);
        assert!(agrees::<Outer>(&extra));
        extra["shape"] = json!({"Circle": {"severity": 1, "name": "x", "r": 2}});
        assert!(agrees::<Outer>(&extra));
        extra["extra"] = json!(true);
        assert!(agrees::<Outer>(&extra));
    }

    #[test]
    fn errors_read_as_a_plain_read_reports_them() {
        assert!(!agrees::<Outer>(&outer(json!("Square"), Value::Null)));
        assert!(!agrees::<Outer>(&outer(json!(3), Value::Null)));
        assert!(!agrees::<Outer>(&outer(json!("Dot"), json!("text"))));
        let mut bad = outer(json!("Dot"), Value::Null);
        bad["by_id"] = json!({"seven": {"severity": 3, "name": "c"}});
        assert!(!agrees::<Outer>(&bad));
        bad["rules"] = json!([{"severity": 300, "name": "a"}]);
        assert!(!agrees::<Outer>(&bad));
        assert!(!agrees::<Vec<u8>>(&json!([1, "2"])));
        assert!(!agrees::<(u8, u8)>(&json!([1, 2, 3])));
        assert!(!agrees::<Value>(&json!({"any": [1, {"thing": null}]})));
    }
}
