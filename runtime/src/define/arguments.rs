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

use super::issues::{self, Issue, Problem};
use super::mismatch::{self, Explained, Mismatch, Step, cap_quoted};
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
    /// serde's message, for the log: it names Rust types.
    pub(crate) message: String,
    pub(crate) field: Option<String>,
    pub(crate) missing: bool,
    /// The params as JSON, each text read as the decoder reads it (`"42"` a
    /// number), for [`DecodeError::explain`].
    pub(crate) params: Value,
}

impl DecodeError {
    /// Why the params do not fit `schema` (the params type's), in its terms.
    fn explain(&self, schema: &JsonObject) -> Explained {
        let path = match (&self.field, self.missing) {
            (Some(field), false) => vec![Step::Key(field.clone())],
            _ => Vec::new(),
        };
        mismatch::explain(schema, &self.params, &path, &self.message)
    }

    /// InvalidParams for string arguments that did not decode (a prompt's
    /// arguments, a resource template's variables): `message` words it from
    /// the name at fault and what it must be in the terms of `schema`. The
    /// name is the client's text (an unknown one), so it is quoted capped, and
    /// it goes in `data.<field>`; serde's message names Rust types, so it is
    /// the cause: logged, never sent.
    pub(crate) fn invalid_params(
        self,
        schema: &JsonObject,
        field: &'static str,
        message: impl FnOnce(Option<&str>, Mismatch) -> String,
    ) -> McpError {
        let explained = self.explain(schema);
        let name = match explained.path.first() {
            Some(Step::Key(name)) => Some(cap_quoted(name).into_owned()),
            _ => None,
        };
        let mut error = McpError::invalid_params(message(name.as_deref(), explained.mismatch));
        if let Some(name) = name {
            error = error.with_data_field(field, name);
        }
        error.with_cause(self)
    }

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
        Self { message: msg.to_string(), field: None, missing: false, params: Value::Null }
    }

    fn missing_field(field: &'static str) -> Self {
        Self {
            message: format!("missing field `{field}`"),
            field: Some(field.to_owned()),
            missing: true,
            params: Value::Null,
        }
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
    decode_fields(fields)
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
    decode_fields(fields)
}

/// Decode `fields` as `T`; on failure, keep them as JSON for the explanation.
fn decode_fields<T: DeserializeOwned>(fields: Vec<(String, Raw)>) -> Result<T, DecodeError> {
    // A copy only a failure reads; params are a few short strings.
    let shown = fields.iter().map(|(name, raw)| (name.clone(), raw.shown())).collect();
    T::deserialize(Fields(fields)).map_err(|mut err| {
        err.params = Value::Object(shown);
        err
    })
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
    /// The value as JSON, a text read as the decoder reads it where it can be:
    /// `"42"` the number 42, `"true"` the boolean.
    fn shown(&self) -> Value {
        fn text(text: &str) -> Value {
            let trimmed = text.trim();
            if let Ok(number) = trimmed.parse::<serde_json::Number>() {
                return Value::Number(number);
            }
            match trimmed {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::String(text.to_owned()),
            }
        }
        match self {
            Self::Text(value) => text(value),
            Self::List(items) => Value::Array(items.iter().map(|item| text(item)).collect()),
            Self::Map(pairs) => Value::Object(pairs.iter().map(|(key, value)| (key.clone(), text(value))).collect()),
            Self::Json(value) => value.clone(),
        }
    }

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

/// Decode tool arguments into `T`, or say why not in the terms of
/// `input_schema`, the schema the tool advertises: the field's path, the JSON
/// type, bounds or values it expects, and what the client sent.
///
/// The error is InvalidParams, with the path in `data.path` (dotted, `.` for
/// the arguments themselves) and `data.pointer` (a JSON Pointer). serde's
/// message, which names Rust types, is its cause: logged, never sent.
pub(crate) fn decode_arguments<T: DeserializeOwned>(
    arguments: JsonObject,
    input_schema: &JsonObject,
) -> Result<T, McpError> {
    let value = Value::Object(arguments);
    let mut track = serde_path_to_error::Track::new();
    let deserializer = serde_path_to_error::Deserializer::new(&value, &mut track);
    let err = match T::deserialize(deserializer) {
        Ok(decoded) => return Ok(decoded),
        Err(err) => err,
    };
    let mut path = Vec::new();
    for segment in track.path().iter() {
        match segment {
            serde_path_to_error::Segment::Map { key } => path.push(Step::Key(key.clone())),
            serde_path_to_error::Segment::Enum { variant } => path.push(Step::Key(variant.clone())),
            serde_path_to_error::Segment::Seq { index } => path.push(Step::Index(*index)),
            // Past a step serde could not name, the path would be a guess.
            serde_path_to_error::Segment::Unknown => break,
        }
    }
    let Explained { path, mismatch } = mismatch::explain(input_schema, &value, &path, &err.to_string());
    // The path is made of the client's keys, and the detail quotes the
    // client's values: both are capped, so a 10 MB argument makes a short
    // error, not a 20 MB one.
    let at = mismatch::cap_quoted(&mismatch::dotted(&path)).into_owned();
    let message = match &mismatch {
        Mismatch::Missing { expected } => {
            format!("Invalid arguments: the field `{at}` is required: expected {expected}.")
        }
        Mismatch::Unknown { allowed } if allowed.is_empty() => {
            format!("Invalid arguments at `{at}`: no such field; this object takes no fields.")
        }
        Mismatch::Unknown { allowed } => format!(
            "Invalid arguments at `{at}`: no such field; the fields are {}.",
            allowed.iter().map(|name| format!("`{name}`")).collect::<Vec<_>>().join(", ")
        ),
        Mismatch::Invalid { detail } if path.is_empty() => format!("Invalid arguments: {detail}."),
        Mismatch::Invalid { detail } => format!("Invalid arguments at `{at}`: {detail}."),
    };
    let pointer = mismatch::cap_quoted(&mismatch::pointer(&path)).into_owned();
    let (mut found, mut count) = issues::collect(input_schema, &value);
    if found.is_empty() {
        // The schema takes the arguments and the server's type does not (its
        // own validation, a range narrower than the schema says): serde's
        // stop is the one issue.
        let (problem, expected) = match mismatch {
            Mismatch::Missing { expected } => (Problem::Missing, expected),
            Mismatch::Unknown { .. } => (Problem::UnknownField, "no such field".to_owned()),
            Mismatch::Invalid { detail } => (Problem::Invalid, detail),
        };
        found.push(Issue { path, problem, expected, got: None });
        count = 1;
    }
    Err(McpError::invalid_params(message)
        .with_reason(INVALID_ARGUMENTS)
        .with_recovery_hint(issues::recovery_hint(&found, count))
        .with_data_field("path", at)
        .with_data_field("pointer", pointer)
        .with_data_field("issues", issues::issues_json(&found))
        .with_data_field("issuesCount", count)
        .with_cause(err))
}

/// The `data.reason` of a refusal of a tool's arguments (the reference's, 0.13.3).
pub const INVALID_ARGUMENTS: &str = "invalid_arguments";

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
}

#[cfg(test)]
mod schema_terms {
    //! Argument errors say what the advertised schema expects, never a Rust type.
    // The types' fields are only decoded, never read.
    #![allow(dead_code)]
    use super::*;
    use crate::schema::input_schema;
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Size {
        Small,
        Large,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    struct Page {
        number: u16,
        #[schemars(range(min = 1, max = 100))]
        per_page: u32,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    struct Tag {
        name: String,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Filter {
        Artist { name: String },
        Year { from: i32 },
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Search {
        query: String,
        count: u32,
        small: u8,
        score: Option<f32>,
        size: Option<Size>,
        page: Page,
        tags: Vec<Tag>,
        filter: Option<Filter>,
        #[schemars(length(min = 1, max = 3))]
        words: Option<Vec<String>>,
        #[schemars(with = "Option<String>")]
        isbn: Option<Isbn>,
        target: Option<Target>,
    }

    /// A type with validation of its own, whose message is for the caller.
    #[derive(Debug, Deserialize)]
    #[serde(try_from = "String")]
    struct Isbn(String);

    impl TryFrom<String> for Isbn {
        type Error = &'static str;
        fn try_from(text: String) -> Result<Self, Self::Error> {
            if text.len() == 13 { Ok(Self(text)) } else { Err("an ISBN has 13 digits") }
        }
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(untagged)]
    enum Target {
        Id { id: u32 },
        Name(String),
    }

    fn valid() -> Value {
        json!({"query": "vase", "count": 1, "small": 2, "page": {"number": 1, "per_page": 10}, "tags": []})
    }

    /// The valid arguments with `changes` merged in (a `null` removes a field).
    fn with(changes: Value) -> Value {
        let mut args = valid();
        for (key, value) in changes.as_object().unwrap() {
            if value.is_null() {
                args.as_object_mut().unwrap().remove(key);
            } else {
                args[key] = value.clone();
            }
        }
        args
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    struct Layout {
        grid: Grid,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    struct Grid {
        size: u8,
    }

    #[test]
    fn a_nested_field_is_named_by_its_path() {
        let args = json!({"grid": {"size": "ten"}});
        let err = decode_arguments::<Layout>(args.as_object().unwrap().clone(), &input_schema::<Layout>()).unwrap_err();
        assert_eq!(err.code(), crate::error::JsonRpcErrorCode::InvalidParams);
        assert_eq!(
            err.message(),
            r#"Invalid arguments at `grid.size`: expected an integer between 0 and 255, got the string "ten"."#
        );
    }

    fn fail(args: Value) -> (String, Value) {
        let err = decode_arguments::<Search>(args.as_object().unwrap().clone(), &input_schema::<Search>())
            .expect_err("the arguments are bad");
        assert_eq!(err.code(), crate::error::JsonRpcErrorCode::InvalidParams);
        (err.message().to_owned(), err.data().cloned().map(Value::Object).unwrap_or_default())
    }

    /// Each shape of mistake, with the message and the path a client gets.
    #[test]
    fn each_mistake_is_worded_from_the_advertised_schema() {
        for (args, message, path) in [
            (
                with(json!({"count": "ten"})),
                r#"Invalid arguments at `count`: expected an integer of at least 0, got the string "ten"."#,
                "count",
            ),
            (
                with(json!({"small": 300})),
                "Invalid arguments at `small`: expected an integer between 0 and 255, got the number 300.",
                "small",
            ),
            (
                with(json!({"count": -1})),
                "Invalid arguments at `count`: expected an integer of at least 0, got the number -1.",
                "count",
            ),
            (
                with(json!({"query": null})),
                "Invalid arguments: the field `query` is required: expected a string.",
                "query",
            ),
            (
                with(json!({"page": {"per_page": 5}})),
                "Invalid arguments: the field `page.number` is required: expected an integer between 0 and 65535.",
                "page.number",
            ),
            (
                with(json!({"page": {"number": 70000, "per_page": 5}})),
                "Invalid arguments at `page.number`: expected an integer between 0 and 65535, got the number 70000.",
                "page.number",
            ),
            (
                with(json!({"tags": [{"name": "a"}, {"name": 5}]})),
                "Invalid arguments at `tags[1].name`: expected a string, got the number 5.",
                "tags[1].name",
            ),
            (
                with(json!({"tags": "a"})),
                r#"Invalid arguments at `tags`: expected an array, each an object with `name`, got the string "a"."#,
                "tags",
            ),
            (
                with(json!({"size": "huge"})),
                r#"Invalid arguments at `size`: expected one of "small", "large", or null, got the string "huge"."#,
                "size",
            ),
            (
                with(json!({"score": "high"})),
                r#"Invalid arguments at `score`: expected a number, or null, got the string "high"."#,
                "score",
            ),
            (
                with(json!({"words": ["a", 1]})),
                "Invalid arguments at `words[1]`: expected a string, got the number 1.",
                "words[1]",
            ),
            (
                with(json!({"filter": {"kind": "year", "from": "x"}})),
                r#"Invalid arguments at `filter.from`: expected an integer, got the string "x"."#,
                "filter.from",
            ),
            (
                with(json!({"filter": {"kind": "colour"}})),
                r#"Invalid arguments at `filter.kind`: expected one of "artist", "year", got the string "colour"."#,
                "filter.kind",
            ),
            (
                with(json!({"filter": {"name": "Hokusai"}})),
                r#"Invalid arguments: the field `filter.kind` is required: expected one of "artist", "year"."#,
                "filter.kind",
            ),
            (
                with(json!({"target": true})),
                "Invalid arguments at `target`: expected an object with `id`, or a string, or null, got `true`.",
                "target",
            ),
            (
                with(json!({"isbn": "12"})),
                r#"Invalid arguments at `isbn`: the string "12" is not accepted: an ISBN has 13 digits."#,
                "isbn",
            ),
            (
                with(json!({"count": 5_000_000_000_u64})),
                "Invalid arguments at `count`: the number 5000000000 is out of the range this field accepts \
                 (an integer of at least 0).",
                "count",
            ),
            (
                with(json!({"colour": "red"})),
                "Invalid arguments at `colour`: no such field; the fields are `count`, `filter`, `isbn`, `page`, \
                 `query`, `score`, `size`, `small`, `tags`, `target`, `words`.",
                "colour",
            ),
        ] {
            let (got, data) = fail(args);
            assert_eq!(got, message);
            assert_eq!(data["path"], path, "{message}");
        }
    }

    #[test]
    fn the_data_holds_the_path_as_a_json_pointer_too() {
        let (_, data) = fail(with(json!({"tags": [{"name": "a"}, {"name": 5}]})));
        assert_eq!(
            data,
            json!({
                "path": "tags[1].name",
                "pointer": "/tags/1/name",
                "reason": "invalid_arguments",
                "recovery": {"hint": "Send `tags[1].name` as a string, not the number 5."},
                "issues": [{
                    "path": "tags[1].name",
                    "pointer": "/tags/1/name",
                    "problem": "wrong_type",
                    "expected": "a string",
                    "got": "the number 5"
                }],
                "issuesCount": 1
            })
        );
        let (_, data) = fail(json!({"a/b~c": 1}));
        assert_eq!(data["pointer"], "/a~1b~0c");
    }

    /// serde's messages name Rust types (`expected u32`, `struct Page`,
    /// `untagged enum Target`); no answer carries one.
    #[test]
    fn no_argument_error_carries_a_rust_type_name() {
        const RUST: [&str; 22] = [
            "u8",
            "u16",
            "u32",
            "u64",
            "i32",
            "i64",
            "f32",
            "f64",
            "usize",
            "String",
            "Vec",
            "Option",
            "struct",
            "enum",
            "Search",
            "Page",
            "Tag",
            "Filter",
            "Size",
            "Target",
            "Isbn",
            "invalid type",
        ];
        let bad = [
            json!({}),
            with(json!({"count": "ten"})),
            with(json!({"count": 1.5})),
            with(json!({"count": 5_000_000_000_u64})),
            with(json!({"small": -3})),
            with(json!({"score": [1]})),
            with(json!({"size": 3})),
            with(json!({"page": "one"})),
            with(json!({"page": {"number": 1}})),
            with(json!({"tags": [1]})),
            with(json!({"tags": {"name": "a"}})),
            with(json!({"filter": {"name": "x"}})),
            with(json!({"filter": "artist"})),
            with(json!({"target": true})),
            with(json!({"target": {"id": "x"}})),
            with(json!({"isbn": 12})),
            with(json!({"query": {"text": "a"}})),
        ];
        for args in bad {
            let (message, data) = fail(args.clone());
            let answer = format!("{message} {data}");
            for name in RUST {
                assert!(!answer.contains(name), "`{name}` in the answer to {args}: {answer}");
            }
        }
    }
}
