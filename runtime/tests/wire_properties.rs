//! Property tests of the wire form: every `McpError` survives a JSON round trip
//! `{code, message, data?}` unchanged, whatever its text, data, reason and hint.

use mcp_contract_runtime::{JsonRpcErrorCode, McpError};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn code() -> impl Strategy<Value = JsonRpcErrorCode> {
    prop::sample::select(JsonRpcErrorCode::ALL.to_vec())
}

/// JSON values a few levels deep, with arbitrary Unicode in keys and strings.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("JSON has no NaN or infinity", |f| f.is_finite()).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn mcp_error() -> impl Strategy<Value = McpError> {
    (
        code(),
        any::<String>(),
        prop::option::of(prop::collection::btree_map(any::<String>(), json_value(), 0..5)),
        prop::option::of(any::<String>()),
        prop::option::of(any::<String>()),
    )
        .prop_map(|(code, message, data, reason, hint)| {
            let mut err = McpError::new(code, message);
            if let Some(data) = data {
                err = err.with_data(Value::Object(data.into_iter().collect()));
            }
            if let Some(hint) = hint {
                err = err.with_recovery_hint(hint);
            }
            if let Some(reason) = reason {
                err = err.with_reason(reason);
            }
            err
        })
}

proptest! {
    #[test]
    fn mcp_error_round_trips_through_its_wire_form(err in mcp_error()) {
        let wire = serde_json::to_value(&err).unwrap();
        let back: McpError = serde_json::from_value(wire.clone()).unwrap();
        prop_assert_eq!(&back, &err);
        prop_assert_eq!(serde_json::to_value(&back).unwrap(), wire);
        prop_assert_eq!(back.reason(), err.reason());
        prop_assert_eq!(back.recovery_hint(), err.recovery_hint());
    }

    #[test]
    fn wire_form_has_only_code_message_and_data(err in mcp_error()) {
        let wire = serde_json::to_value(&err).unwrap();
        let keys: Vec<&str> = wire.as_object().unwrap().keys().map(String::as_str).collect();
        prop_assert!(keys.iter().all(|key| ["code", "message", "data"].contains(key)), "{keys:?}");
        prop_assert_eq!(&wire["code"], &json!(err.code().as_i32()));
    }

    #[test]
    fn codes_round_trip_as_numbers(code in code()) {
        let wire = serde_json::to_string(&code).unwrap();
        prop_assert_eq!(wire.parse::<i32>().unwrap(), code.as_i32());
        prop_assert_eq!(serde_json::from_str::<JsonRpcErrorCode>(&wire).unwrap(), code);
    }

    #[test]
    fn unknown_numbers_are_rejected_not_mapped(number in any::<i32>()) {
        let known = JsonRpcErrorCode::ALL.iter().any(|code| code.as_i32() == number);
        prop_assert_eq!(serde_json::from_value::<JsonRpcErrorCode>(json!(number)).is_ok(), known);
    }
}
