//! The names an object schema decodes, for the checks that compare them with
//! the names a definition lists apart from its type (a prompt's arguments, a
//! resource template's variables) and for what builds values of the schema.

use serde_json::Value;

use crate::error::JsonObject;

/// The names of an object schema's fields.
pub(crate) struct Fields<'a> {
    /// The names of its `properties`.
    pub(crate) names: Vec<&'a str>,
    /// The names it lists as `required`.
    pub(crate) required: Vec<&'a str>,
    /// Whether it takes names beyond `names`: a map (or a flattened one) takes
    /// any. A struct's schema leaves `additionalProperties` out, but serde
    /// drops the fields it does not know.
    pub(crate) takes_any: bool,
}

impl<'a> Fields<'a> {
    /// The fields of `schema`; none when it has no `properties`.
    pub(crate) fn of(schema: &'a JsonObject) -> Self {
        Self {
            names: schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|map| map.keys().map(String::as_str).collect())
                .unwrap_or_default(),
            required: required_names(schema),
            takes_any: matches!(schema.get("additionalProperties"), Some(Value::Object(_) | Value::Bool(true))),
        }
    }
}

/// The names `schema` lists as `required`, in its order; none without the keyword.
pub(crate) fn required_names(schema: &JsonObject) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Fields;

    #[test]
    fn a_struct_names_its_fields_and_takes_no_other() {
        let schema = json!({
            "type": "object",
            "properties": {"department": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["department"]
        });
        let fields = Fields::of(schema.as_object().unwrap());
        assert_eq!(fields.names.len(), 2);
        assert!(fields.names.contains(&"department") && fields.names.contains(&"days"));
        assert_eq!(fields.required, ["department"]);
        assert!(!fields.takes_any);
    }

    #[test]
    fn a_map_takes_any_name() {
        for (additional, takes_any) in [(json!({"type": "string"}), true), (json!(true), true), (json!(false), false)] {
            let schema = json!({"type": "object", "additionalProperties": additional});
            let fields = Fields::of(schema.as_object().unwrap());
            assert!(fields.names.is_empty() && fields.required.is_empty());
            assert_eq!(fields.takes_any, takes_any, "{additional}");
        }
    }
}
