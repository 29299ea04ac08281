//! The JSON a policy document is read as: objects keep every key in order, so the parser can
//! refuse a key given twice instead of silently keeping the last (serde_json's `Value` would).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// One JSON value; an object is its members in document order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// The number as its text, so `10` and `10.0` stay what the author wrote.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// Reads `bytes` as one JSON document.
    pub(crate) fn parse(bytes: &[u8]) -> Option<Json> {
        serde_json::from_slice(bytes).ok()
    }

    /// An object's members, or `None` when this is no object or a key repeats: a policy's
    /// parser reads a repeated key as an error rather than picking one of its values.
    pub(crate) fn members(&self) -> Option<&[(String, Json)]> {
        let Json::Object(members) = self else {
            return None;
        };
        let mut seen = std::collections::HashSet::with_capacity(members.len());
        members
            .iter()
            .all(|(k, _)| seen.insert(k.as_str()))
            .then_some(members.as_slice())
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Number(v.to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            members.push((key, value));
        }
        Ok(Json::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_keep_duplicate_keys_in_order() {
        let json = Json::parse(br#"{"a":1,"a":[true,null,"x"]}"#).unwrap();
        let Json::Object(members) = json else { panic!() };
        assert_eq!(members.len(), 2);
        assert_eq!(members[0], ("a".into(), Json::Number("1".into())));
        assert_eq!(
            members[1].1,
            Json::Array(vec![Json::Bool(true), Json::Null, Json::String("x".into())])
        );
    }

    #[test]
    fn trailing_garbage_is_refused() {
        assert_eq!(Json::parse(br#"{"a":1} x"#), None);
        assert_eq!(Json::parse(b"\xff"), None);
    }
}
