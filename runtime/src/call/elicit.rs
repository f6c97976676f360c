//! Elicitation forms from Rust types: the `requestedSchema` of an
//! `elicitation/create` request, and the typed answer.
//!
//! MCP lets a form ask only for flat primitives: strings (with the formats
//! `email`, `uri`, `date`, `date-time`), numbers, integers, booleans, and
//! enums, single- or multi-select, untitled (`enum`) or titled (`oneOf` /
//! `anyOf` of `{const, title}`, SEP-1330), each with an optional `default`
//! (SEP-1034). schemars writes other shapes for the same types (`$ref` to a
//! `$defs` entry, `oneOf` of `{const, description}`, `["string", "null"]` for
//! an `Option`), so the schema it generates is reshaped into these forms, and
//! anything else is refused with the field's name and the fix.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::error::JsonObject;

/// A type a form can ask for: a flat struct deriving `Deserialize`,
/// `JsonSchema` and `ElicitForm`, whose fields are [`FormField`]s.
///
/// `#[derive(ElicitForm)]` checks each field's type at compile time, and the
/// error points at the field that cannot be one. A hand-written
/// `impl ElicitForm for T {}` skips that check; the fields are then judged
/// when the form is built, before anything is sent ([`form_schema`] judges
/// them in a unit test of yours).
///
/// ```
/// use mcp_contract::prelude::*;
///
/// #[derive(Deserialize, JsonSchema, ElicitForm)]
/// struct Booking {
///     /// Who the visit is for.
///     name: String,
///     guests: u8,
///     room: Option<Room>,
/// }
///
/// #[derive(Deserialize, JsonSchema, FormField)]
/// enum Room { Egyptian, Greek }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be asked for in an elicitation form",
    label = "not a form type",
    note = "a form asks for one object of flat fields: ask for a struct deriving it, `#[derive(Deserialize, JsonSchema, ElicitForm)] struct Answer {{ name: String, age: u32 }}`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#elicitation-form-flat"
)]
pub trait ElicitForm: DeserializeOwned + JsonSchema {}

/// What a field of an [`ElicitForm`] may be, as MCP's form schema allows:
/// a string (`String`, `Box<str>`, `Arc<str>`, `char`), a number or integer, a `bool`, a
/// single-select (an enum of unit variants deriving [`FormField`]), a
/// multi-select (a `Vec`, `VecDeque`, `BTreeSet` or `HashSet` of such an
/// enum), or an `Option` of one of these.
///
/// `#[derive(FormField)]` on an enum of unit variants makes it a
/// single-select (and a [`FormChoice`] of a multi-select); on a newtype
/// struct (`struct Email(String)`), a field of what it wraps. A type of
/// another crate whose schema is a string (a date, a URL) is written with
/// schemars' `#[schemars(with = "String")]` on the field, which the derive
/// checks instead of the field's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "an elicitation form holds only strings, numbers, booleans and enums of unit variants",
    note = "flatten a nested value into fields of its own (`home_city: String`), or ask for it in an elicitation of its own; an enum of unit variants derives `FormField`",
    note = "see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#elicitation-form-flat"
)]
pub trait FormField {}

/// What a multi-select holds: an enum of unit variants deriving
/// [`FormField`] (MCP's form has no list of free strings or numbers).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an option of a multi-select: a form's list holds only enums of unit variants",
    label = "not an enum deriving `FormField`",
    note = "derive `FormField` on an enum of unit variants, or ask for a list of free values one elicitation at a time",
    note = "see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#elicitation-form-flat"
)]
pub trait FormChoice: FormField {}

macro_rules! form_fields {
    ($($ty:ty),* $(,)?) => { $(impl FormField for $ty {})* };
}

form_fields!(String, Box<str>, std::sync::Arc<str>, char, bool, f32, f64);
form_fields!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
form_fields!(
    std::num::NonZeroI8,
    std::num::NonZeroI16,
    std::num::NonZeroI32,
    std::num::NonZeroI64,
    std::num::NonZeroI128
);
form_fields!(
    std::num::NonZeroU8,
    std::num::NonZeroU16,
    std::num::NonZeroU32,
    std::num::NonZeroU64,
    std::num::NonZeroU128
);
form_fields!(std::num::NonZeroIsize, std::num::NonZeroUsize);
impl<T: FormField> FormField for Option<T> {}
impl<T: FormChoice> FormField for Vec<T> {}
impl<T: FormChoice> FormField for std::collections::VecDeque<T> {}
impl<T: FormChoice> FormField for std::collections::BTreeSet<T> {}
impl<T: FormChoice, S> FormField for std::collections::HashSet<T, S> {}

/// The user's answer to an elicitation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user submitted the form (or, in URL mode, completed the flow).
    Accepted(T),
    /// The user explicitly declined.
    Declined,
    /// The user dismissed the request without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The accepted value, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accepted(value) => Some(value),
            Self::Declined | Self::Cancelled => None,
        }
    }
}

/// The string formats an elicitation form may carry.
const STRING_FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// The `requestedSchema` for `T`, or why `T` cannot be a form (naming the
/// field and what to write instead).
pub fn form_schema<T: ElicitForm>() -> Result<JsonObject, String> {
    let settings = SchemaSettings::draft2020_12().for_deserialize();
    let root = serde_json::to_value(settings.into_generator().into_root_schema_for::<T>()).map_err(|err| {
        format!("the schema of `{}` does not serialize: {err}", unqualified(std::any::type_name::<T>()))
    })?;
    let type_name = unqualified(std::any::type_name::<T>());
    let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
    if root.get("type") != Some(&json!("object")) {
        return Err(format!(
            "`{type_name}` is not a struct with named fields: an elicitation form asks for an object. \
             Wrap the value in a struct: `struct Answer {{ value: .. }}`."
        ));
    }
    let mut properties = Map::new();
    for (field, property) in root.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let reshaped = primitive(property, &defs).map_err(|why| {
            format!(
                "field `{field}` of `{type_name}` {why}. An elicitation form holds only strings, numbers, booleans \
                 and enums of unit variants (one, or a `Vec` of them): ask for a nested value in a second \
                 elicitation, or flatten it into fields of its own."
            )
        })?;
        properties.insert(field.clone(), reshaped);
    }
    let mut schema = JsonObject::new();
    schema.insert("type".to_owned(), json!("object"));
    schema.insert("properties".to_owned(), Value::Object(properties));
    if let Some(required) = root.get("required") {
        schema.insert("required".to_owned(), required.clone());
    }
    Ok(schema)
}

/// A type's name without its module paths (`Vec<Address>`, not
/// `alloc::vec::Vec<museum::forms::Address>`): the message reaches the
/// client, and the server's module layout is none of its business.
fn unqualified(type_name: &str) -> String {
    let mut short = String::with_capacity(type_name.len());
    let mut rest = type_name;
    while let Some(at) = rest.find("::") {
        let (head, tail) = rest.split_at(at);
        short.push_str(head.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_'));
        rest = &tail[2..];
    }
    short.push_str(rest);
    short
}

/// One property reshaped into an MCP primitive schema.
fn primitive(property: &Value, defs: &Map<String, Value>) -> Result<Value, String> {
    let property = property.as_object().ok_or("has a schema that is not an object")?;
    let mut own = Map::new();
    for key in ["title", "description", "default"] {
        if let Some(value) = property.get(key) {
            own.insert(key.to_owned(), value.clone());
        }
    }
    let target = resolve(property, defs)?;
    let mut shaped = match types_of(&target).as_slice() {
        _ if enum_options(&target).is_some() => single_select(&target)?,
        ["string"] => {
            let mut shaped = json!({"type": "string"});
            copy(&target, &mut shaped, &["minLength", "maxLength"]);
            if let Some(format) = target.get("format").and_then(Value::as_str)
                && STRING_FORMATS.contains(&format)
            {
                shaped["format"] = json!(format);
            }
            shaped
        }
        [kind @ ("integer" | "number")] => {
            let mut shaped = json!({"type": kind});
            copy(&target, &mut shaped, &["minimum", "maximum"]);
            shaped
        }
        ["boolean"] => json!({"type": "boolean"}),
        ["array"] => {
            let items = target.get("items").and_then(Value::as_object).ok_or("is an array without items")?;
            let items = resolve(items, defs)?;
            if enum_options(&items).is_none() {
                return Err("is an array of something other than enum values".to_owned());
            }
            let mut shaped = json!({"type": "array", "items": multi_select_items(&items)?});
            copy(&target, &mut shaped, &["minItems", "maxItems"]);
            shaped
        }
        ["object"] => return Err("is an object".to_owned()),
        [] => return Err("has no type a form can show".to_owned()),
        other => return Err(format!("is of type {}", other.join(" or "))),
    };
    // What the field says of itself wins over what its type's definition says.
    for (key, value) in own {
        shaped[key] = value;
    }
    for key in ["title", "description"] {
        if shaped.get(key).is_none()
            && let Some(value) = target.get(key)
        {
            shaped[key] = value.clone();
        }
    }
    Ok(shaped)
}

/// Follow `$ref`, and drop the `null` an `Option` adds (`anyOf [T, null]` or
/// `type: [T, "null"]`): a form field is optional by not being required.
fn resolve(schema: &Map<String, Value>, defs: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.strip_prefix("#/$defs/").ok_or_else(|| format!("refers to `{reference}`"))?;
        let target = defs.get(name).and_then(Value::as_object).ok_or_else(|| format!("refers to `{reference}`"))?;
        return resolve(target, defs);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(key) {
            let not_null: Vec<&Value> =
                options.iter().filter(|option| option.get("type") != Some(&json!("null"))).collect();
            if not_null.len() == 1 && not_null.len() < options.len() {
                let inner = not_null[0].as_object().ok_or("has an option that is not an object")?;
                let mut resolved = resolve(inner, defs)?;
                for key in ["title", "description", "default"] {
                    if let Some(value) = schema.get(key) {
                        resolved.insert(key.to_owned(), value.clone());
                    }
                }
                return Ok(resolved);
            }
        }
    }
    let mut schema = schema.clone();
    if let Some(Value::Array(types)) = schema.get("type") {
        let types: Vec<Value> = types.iter().filter(|kind| *kind != "null").cloned().collect();
        if types.len() == 1 {
            schema.insert("type".to_owned(), types[0].clone());
        }
    }
    Ok(schema)
}

fn types_of(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The values of an enum of strings with their titles (`None` for untitled):
/// `enum: [..]`, or `oneOf` of `const` strings, titled by `title` (or, as
/// schemars writes a documented variant, `description`).
fn enum_options(schema: &Map<String, Value>) -> Option<Vec<(String, Option<String>)>> {
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values.iter().map(|value| Some((value.as_str()?.to_owned(), None))).collect();
    }
    let Some(Value::Array(options)) = schema.get("oneOf").or_else(|| schema.get("anyOf")) else { return None };
    options
        .iter()
        .map(|option| {
            let value = option.get("const").or_else(|| option.get("enum")?.get(0))?.as_str()?.to_owned();
            let title = option.get("title").or_else(|| option.get("description")).and_then(Value::as_str);
            Some((value, title.map(str::to_owned)))
        })
        .collect()
}

fn single_select(schema: &Map<String, Value>) -> Result<Value, String> {
    let options = enum_options(schema).ok_or("is an enum of something other than strings")?;
    // The legacy form (`enum` with `enumNames`, before SEP-1330), kept when the
    // type writes it: `#[schemars(extend("enumNames" = [..]))]`.
    if let Some(Value::Array(names)) = schema.get("enumNames") {
        if names.len() != options.len() || !names.iter().all(Value::is_string) {
            return Err("has `enumNames` that do not name each value once".to_owned());
        }
        let values: Vec<String> = options.into_iter().map(|(value, _)| value).collect();
        return Ok(json!({"type": "string", "enum": values, "enumNames": names}));
    }
    Ok(if options.iter().any(|(_, title)| title.is_some()) {
        json!({"type": "string", "oneOf": titled(&options)})
    } else {
        json!({"type": "string", "enum": options.into_iter().map(|(value, _)| value).collect::<Vec<_>>()})
    })
}

fn multi_select_items(schema: &Map<String, Value>) -> Result<Value, String> {
    let options = enum_options(schema).ok_or("is an array of something other than string enums")?;
    Ok(if options.iter().any(|(_, title)| title.is_some()) {
        json!({"anyOf": titled(&options)})
    } else {
        json!({"type": "string", "enum": options.into_iter().map(|(value, _)| value).collect::<Vec<_>>()})
    })
}

fn titled(options: &[(String, Option<String>)]) -> Vec<Value> {
    options.iter().map(|(value, title)| json!({"const": value, "title": title.as_deref().unwrap_or(value)})).collect()
}

fn copy(from: &Map<String, Value>, to: &mut Value, keys: &[&str]) {
    for key in keys {
        if let Some(value) = from.get(*key) {
            to[*key] = value.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    fn john() -> String {
        "John Doe".to_owned()
    }
    fn thirty() -> i64 {
        30
    }
    fn yes() -> bool {
        true
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Status {
        Active,
        Inactive,
    }

    #[derive(Deserialize, JsonSchema)]
    enum Choice {
        /// First Option
        #[serde(rename = "value1")]
        One,
        /// Second Option
        #[serde(rename = "value2")]
        Two,
    }

    #[derive(Deserialize, JsonSchema)]
    #[schemars(extend("enumNames" = ["Option One", "Option Two"]))]
    #[allow(dead_code)]
    enum Legacy {
        #[serde(rename = "opt1")]
        One,
        #[serde(rename = "opt2")]
        Two,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Profile {
        #[serde(default = "john")]
        name: String,
        #[serde(default = "thirty")]
        age: i64,
        score: Option<f64>,
        #[serde(default = "yes")]
        verified: bool,
        status: Status,
        choice: Choice,
        choices: Vec<Choice>,
        email: Option<String>,
        legacy: Option<Legacy>,
    }

    // By hand, as a type the derive cannot see would be: the run-time check
    // is the defence behind the compile-time one.
    impl ElicitForm for Profile {}
    impl ElicitForm for Defaults {}
    impl ElicitForm for Nested {}
    impl ElicitForm for Listed {}
    impl ElicitForm for Bare {}

    fn keep() -> Status {
        Status::Active
    }

    #[derive(Deserialize, serde::Serialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Shown {
        Keep,
        Overwrite,
    }

    fn shown() -> Shown {
        Shown::Keep
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Defaults {
        #[serde(default = "keep")]
        without_serialize: Status,
        #[serde(default = "shown")]
        with_serialize: Shown,
    }

    /// The documented rule (the guide's "Asking the client", docs/lints.md): schemars writes a field's
    /// `default` by serializing it, so only a type with `Serialize` shows one.
    #[test]
    fn an_enum_default_reaches_the_form_only_when_the_enum_is_serialize() {
        let schema = form_schema::<Defaults>().unwrap();
        assert_eq!(schema["properties"]["with_serialize"]["default"], "keep");
        assert_eq!(schema["properties"]["without_serialize"].get("default"), None, "{schema:?}");
    }

    #[test]
    fn a_flat_struct_becomes_the_mcp_primitive_forms_with_defaults_and_titles() {
        let schema = Value::Object(form_schema::<Profile>().unwrap());
        let properties = &schema["properties"];
        assert_eq!(properties["name"], json!({"type": "string", "default": "John Doe"}));
        assert_eq!(properties["age"]["type"], "integer");
        assert_eq!(properties["age"]["default"], 30);
        assert_eq!(properties["score"]["type"], "number");
        assert_eq!(properties["verified"], json!({"type": "boolean", "default": true}));
        assert_eq!(properties["status"], json!({"type": "string", "enum": ["active", "inactive"]}));
        assert_eq!(
            properties["choice"],
            json!({"type": "string", "oneOf": [{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}]})
        );
        assert_eq!(properties["choices"]["type"], "array");
        assert_eq!(properties["choices"]["items"]["anyOf"][1], json!({"const": "value2", "title": "Second Option"}));
        assert_eq!(properties["email"], json!({"type": "string"}));
        assert_eq!(
            properties["legacy"],
            json!({"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"]})
        );
        let required: Vec<&str> = schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert_eq!(required, ["status", "choice", "choices"]);
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Address {
        street: String,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        name: String,
        address: Address,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Bare(String);

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Listed {
        addresses: Vec<Address>,
    }

    #[test]
    fn a_nested_object_or_an_array_of_objects_is_refused_with_the_field_and_the_fix() {
        let err = form_schema::<Nested>().unwrap_err();
        assert!(err.contains("field `address`") && err.contains("is an object"), "{err}");
        assert!(err.contains("flatten it"), "{err}");
        let err = form_schema::<Listed>().unwrap_err();
        assert!(err.contains("field `addresses`") && err.contains("array of something other than enum"), "{err}");
        let err = form_schema::<Bare>().unwrap_err();
        assert!(err.contains("Wrap the value in a struct"), "{err}");
        assert!(!err.contains("::"), "no module path reaches the client: {err}");
        assert_eq!(unqualified("alloc::vec::Vec<museum::forms::Address>"), "Vec<Address>");
    }
}
