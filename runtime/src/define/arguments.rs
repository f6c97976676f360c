//! Argument decoding: a tool's JSON arguments into its input type
//! ([`decode_arguments`]), and typed params from text.
//!
//! The variables of a resource URI and the arguments of a prompt arrive as strings (MCP sends prompt arguments as a string map), so
//! a field `object_id: u32` must accept `"436535"`. This deserializer parses
//! numbers, booleans and unit enum variants from strings where the target type
//! asks for them, and names the field at fault when one does not decode.

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{JsonObject, McpError};
use mcp_contract_uri_template::{Captures, Value as UriValue};

/// One field's raw value.
#[derive(Clone, Debug)]
pub(crate) enum Raw {
    /// A string, parsed on demand into what the field asks for.
    Text(String),
    /// A list of strings (an RFC 6570 list).
    List(Vec<String>),
    /// String pairs (an RFC 6570 associative array).
    Map(Vec<(String, String)>),
    /// Any other JSON value (a client that sends prompt arguments as JSON).
    Json(Value),
}

/// Why params did not decode: the field at fault, when known, and whether it was missing.
#[derive(Debug)]
pub(crate) struct DecodeError {
    pub(crate) message: String,
    pub(crate) field: Option<String>,
    pub(crate) missing: bool,
}

impl DecodeError {
    fn at(mut self, field: &str) -> Self {
        if self.field.is_none() {
            self.field = Some(field.to_owned());
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DecodeError {}

impl de::Error for DecodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self { message: msg.to_string(), field: None, missing: false }
    }

    fn missing_field(field: &'static str) -> Self {
        Self { message: format!("missing field `{field}`"), field: Some(field.to_owned()), missing: true }
    }
}

/// The variables a URI gave a template, as `T`.
pub(crate) fn decode_captures<T: DeserializeOwned>(captures: Captures) -> Result<T, DecodeError> {
    let fields = captures
        .into_iter()
        .map(|(name, value)| {
            let raw = match value {
                UriValue::String(text) => Raw::Text(text),
                UriValue::List(items) => Raw::List(items),
                UriValue::Map(pairs) => Raw::Map(pairs),
            };
            (name, raw)
        })
        .collect();
    T::deserialize(Fields(fields))
}

/// Prompt arguments (strings, or JSON from lenient clients), as `T`.
pub(crate) fn decode_prompt_arguments<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, DecodeError> {
    let fields = arguments
        .into_iter()
        .map(|(name, value)| {
            let raw = match value {
                Value::String(text) => Raw::Text(text),
                other => Raw::Json(other),
            };
            (name, raw)
        })
        .collect();
    T::deserialize(Fields(fields))
}

/// The top level: a map of field names to raw values.
struct Fields(Vec<(String, Raw)>);

impl<'de> de::Deserializer<'de> for Fields {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_map(FieldsAccess { fields: self.0.into_iter(), pending: None })
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

struct FieldsAccess {
    fields: std::vec::IntoIter<(String, Raw)>,
    pending: Option<(String, Raw)>,
}

impl<'de> MapAccess<'de> for FieldsAccess {
    type Error = DecodeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DecodeError> {
        let Some((name, raw)) = self.fields.next() else { return Ok(None) };
        let key = seed.deserialize(name.as_str().into_deserializer()).map_err(|err: DecodeError| err.at(&name))?;
        self.pending = Some((name, raw));
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DecodeError> {
        let Some((name, raw)) = self.pending.take() else {
            return Err(de::Error::custom("a value was asked for before its key"));
        };
        seed.deserialize(raw).map_err(|err| err.at(&name))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

impl Raw {
    fn text_or_json(self) -> Result<String, Value> {
        match self {
            Self::Text(text) => Ok(text),
            Self::List(items) => Err(Value::from(items)),
            Self::Map(pairs) => {
                Err(Value::Object(pairs.into_iter().map(|(key, value)| (key, Value::from(value))).collect()))
            }
            Self::Json(value) => Err(value),
        }
    }
}

fn json_error(err: serde_json::Error) -> DecodeError {
    de::Error::custom(err)
}

macro_rules! parse_from_text {
    ($($method:ident => $visit:ident: $ty:ty, $expected:literal;)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
                match self.text_or_json() {
                    Ok(text) => match text.trim().parse::<$ty>() {
                        Ok(value) => visitor.$visit(value),
                        Err(err) => Err(de::Error::custom(format_args!(concat!("expected ", $expected, ", got `{}`: {}"), text, err))),
                    },
                    Err(json) => de::Deserializer::$method(json, visitor).map_err(json_error),
                }
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Raw {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self {
            Self::Text(text) => visitor.visit_string(text),
            Self::List(items) => visitor.visit_seq(Items(items.into_iter())),
            Self::Map(pairs) => visitor.visit_map(FieldsAccess {
                fields: pairs.into_iter().map(|(key, value)| (key, Self::Text(value))).collect::<Vec<_>>().into_iter(),
                pending: None,
            }),
            Self::Json(value) => value.deserialize_any(visitor).map_err(json_error),
        }
    }

    parse_from_text! {
        deserialize_bool => visit_bool: bool, "`true` or `false`";
        deserialize_i8 => visit_i8: i8, "an integer";
        deserialize_i16 => visit_i16: i16, "an integer";
        deserialize_i32 => visit_i32: i32, "an integer";
        deserialize_i64 => visit_i64: i64, "an integer";
        deserialize_i128 => visit_i128: i128, "an integer";
        deserialize_u8 => visit_u8: u8, "a non-negative integer";
        deserialize_u16 => visit_u16: u16, "a non-negative integer";
        deserialize_u32 => visit_u32: u32, "a non-negative integer";
        deserialize_u64 => visit_u64: u64, "a non-negative integer";
        deserialize_u128 => visit_u128: u128, "a non-negative integer";
        deserialize_f32 => visit_f32: f32, "a number";
        deserialize_f64 => visit_f64: f64, "a number";
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self {
            Self::Json(Value::Null) => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self {
            // One value where a list is expected: a list of one.
            Self::Text(text) => visitor.visit_seq(Items(vec![text].into_iter())),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self {
            // A non-exploded associative array expands like a list: key, value, key, value.
            Self::List(items) if items.len() % 2 == 0 => {
                let mut items = items.into_iter();
                let mut pairs = Vec::new();
                while let (Some(key), Some(value)) = (items.next(), items.next()) {
                    pairs.push((key, value));
                }
                Self::Map(pairs).deserialize_any(visitor)
            }
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        match self.text_or_json() {
            Ok(text) => visitor.visit_enum(text.into_deserializer()),
            Err(json) => json.deserialize_enum(name, variants, visitor).map_err(json_error),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self {
            Self::Text(text) if text.is_empty() => visitor.visit_unit(),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit_struct tuple tuple_struct identifier
    }
}

/// The items of a list, each a string parsed on demand.
struct Items(std::vec::IntoIter<String>);

impl<'de> SeqAccess<'de> for Items {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, DecodeError> {
        self.0.next().map(|item| seed.deserialize(Raw::Text(item))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// Decode tool arguments, naming the JSON path of the field at fault.
///
/// ```
/// use mcp_contract::define::decode_arguments;
/// #[derive(serde::Deserialize, Debug)]
/// struct Input { page: Page }
/// #[derive(serde::Deserialize, Debug)]
/// struct Page { size: u32 }
///
/// let args = serde_json::json!({"page": {"size": "ten"}});
/// let err = decode_arguments::<Input>(args.as_object().unwrap().clone()).unwrap_err();
/// assert_eq!(err.code(), mcp_contract::JsonRpcErrorCode::InvalidParams);
/// assert!(err.message().starts_with("Invalid arguments at `page.size`"), "{}", err.message());
/// ```
pub fn decode_arguments<T: DeserializeOwned>(arguments: JsonObject) -> Result<T, McpError> {
    let value = Value::Object(arguments);
    let mut track = serde_path_to_error::Track::new();
    let deserializer = serde_path_to_error::Deserializer::new(value, &mut track);
    T::deserialize(deserializer).map_err(|err| {
        // serde quotes the client's values and keys in its message, and the
        // path is made of the client's keys: both are capped, so a 10 MB
        // argument makes a short error, not a 20 MB one.
        let path = cap_quoted(&track.path().to_string()).into_owned();
        let detail = cap_quoted_segments(&err.to_string());
        let message = if path == "." {
            format!("Invalid arguments: {detail}.")
        } else {
            format!("Invalid arguments at `{path}`: {detail}.")
        };
        McpError::invalid_params(message).with_data_field("path", path).with_cause(err)
    })
}

/// How many characters of client-supplied text an error message quotes; the
/// rest is cut and marked with "…".
pub(crate) const QUOTED_INPUT_CHARS: usize = 200;

/// `text` as an error message may quote it: at most [`QUOTED_INPUT_CHARS`]
/// characters, then "…".
pub(crate) fn cap_quoted(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(QUOTED_INPUT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
        None => text.into(),
    }
}

/// A message with every quoted part (between `"`, or between backticks, as
/// serde quotes values and field names) capped by [`cap_quoted`], and the whole
/// capped at four times that.
pub(crate) fn cap_quoted_segments(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * QUOTED_INPUT_CHARS));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest[open..].chars().next().unwrap_or('"');
        out.push_str(&rest[..=open]);
        let inner = &rest[open + 1..];
        // serde writes strings with Debug escapes, so an escaped quote is not the end.
        let close = closing_quote(inner, quote).unwrap_or(inner.len());
        out.push_str(&cap_quoted(&inner[..close]));
        rest = &inner[close..];
        if let Some(stripped) = rest.strip_prefix(quote) {
            out.push(quote);
            rest = stripped;
        }
    }
    out.push_str(rest);
    match out.char_indices().nth(4 * QUOTED_INPUT_CHARS) {
        Some((cut, _)) => format!("{}…", &out[..cut]),
        None => out,
    }
}

fn closing_quote(text: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            c if c == quote && !escaped => return Some(at),
            _ => escaped = false,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_contract_uri_template::UriTemplate;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Size {
        Small,
        Large,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct ImageParams {
        object_id: u32,
        size: Option<Size>,
        tags: Option<Vec<String>>,
        thumbnail: Option<bool>,
    }

    fn captures(template: &str, uri: &str) -> Captures {
        UriTemplate::parse(template).unwrap().match_uri(uri).unwrap()
    }

    #[test]
    fn uri_variables_parse_into_typed_fields() {
        let template = "museum://objects/{object_id}/image{/size}{?tags,thumbnail}";
        let params: ImageParams =
            decode_captures(captures(template, "museum://objects/42/image/large?tags=a,b&thumbnail=true")).unwrap();
        assert_eq!(
            params,
            ImageParams {
                object_id: 42,
                size: Some(Size::Large),
                tags: Some(vec!["a".into(), "b".into()]),
                thumbnail: Some(true)
            }
        );
        let bare: ImageParams = decode_captures(captures(template, "museum://objects/7/image?tags=x")).unwrap();
        assert_eq!(bare, ImageParams { object_id: 7, size: None, tags: Some(vec!["x".into()]), thumbnail: None });
    }

    #[test]
    fn a_bad_or_missing_variable_is_named() {
        let err = decode_captures::<ImageParams>(captures("x/{object_id}", "x/abc")).unwrap_err();
        assert_eq!((err.field.as_deref(), err.missing), (Some("object_id"), false));
        assert_eq!(err.message, "expected a non-negative integer, got `abc`: invalid digit found in string");
        let err = decode_captures::<ImageParams>(captures("x/{object_id}", "x/")).unwrap_err();
        assert_eq!((err.field.as_deref(), err.missing), (Some("object_id"), true));
        let err = decode_captures::<ImageParams>(captures("x/{object_id}{/size}", "x/1/huge")).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("size"));
        assert!(err.message.contains("unknown variant `huge`"), "{}", err.message);
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct VisitArgs {
        department: String,
        days: Option<u8>,
    }

    #[test]
    fn prompt_arguments_accept_strings_and_json() {
        let args = |value: Value| value.as_object().unwrap().clone();
        let strings: VisitArgs =
            decode_prompt_arguments(args(serde_json::json!({"department": "Asian Art", "days": "2"}))).unwrap();
        assert_eq!(strings, VisitArgs { department: "Asian Art".into(), days: Some(2) });
        let json: VisitArgs =
            decode_prompt_arguments(args(serde_json::json!({"department": "Arms", "days": 3}))).unwrap();
        assert_eq!(json.days, Some(3));
        let err = decode_prompt_arguments::<VisitArgs>(args(serde_json::json!({"days": "2"}))).unwrap_err();
        assert_eq!((err.field.as_deref(), err.missing), (Some("department"), true));
        let err = decode_prompt_arguments::<VisitArgs>(args(serde_json::json!({"department": "x", "days": "300"})))
            .unwrap_err();
        assert_eq!(err.field.as_deref(), Some("days"));
        let err = decode_prompt_arguments::<VisitArgs>(args(serde_json::json!({"department": "x", "colour": "red"})))
            .unwrap_err();
        assert_eq!(err.field.as_deref(), Some("colour"));
        assert!(err.message.starts_with("unknown field `colour`"), "{}", err.message);
    }

    #[test]
    fn cap_quoted_cuts_at_the_limit_and_marks_the_cut() {
        assert_eq!(cap_quoted("search_objects"), "search_objects");
        let long = "x".repeat(10_000);
        assert_eq!(cap_quoted(&long).chars().count(), 201);
        assert!(cap_quoted(&long).ends_with('…'));
    }
}
