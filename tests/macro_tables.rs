//! The tables `#[mcp_tool]` carries (a proc-macro crate cannot depend on the
//! runtime) are the runtime's: same codes, numbers, factories and HTTP mapping.

use mcp_contract::JsonRpcErrorCode;

#[allow(dead_code)]
mod macro_codes {
    include!("../macros/src/codes.rs");
}

use macro_codes::{BASELINE, CODE_NAMES, CODES, code_for_number, factory_of};

#[test]
fn codes_are_the_runtimes_in_order() {
    let runtime: Vec<(&str, i32)> = JsonRpcErrorCode::ALL.iter().map(|code| (code.name(), code.as_i32())).collect();
    let macro_side: Vec<(&str, i32)> = CODES.iter().map(|code| (code.name, code.number)).collect();
    assert_eq!(macro_side, runtime);
    assert_eq!(CODE_NAMES, JsonRpcErrorCode::ALL.map(JsonRpcErrorCode::name));
}

#[test]
fn factories_are_the_runtimes() {
    for code in JsonRpcErrorCode::ALL {
        assert_eq!(factory_of(code.name()), mcp_contract::errors::factory_name(code), "{}", code.name());
    }
}

#[test]
fn baseline_codes_exist() {
    for name in BASELINE {
        assert!(JsonRpcErrorCode::from_name(name).is_some(), "{name}");
    }
}

#[test]
fn numbers_map_as_the_runtime_maps_them() {
    for code in JsonRpcErrorCode::ALL {
        assert_eq!(code_for_number(i64::from(code.as_i32())), Some(code.name()));
    }
    // The macro suggests a code for an HTTP status written as `code = 404`.
    for status in 0..1000_u16 {
        let runtime = mcp_contract::http_status_to_error_code(status).map(JsonRpcErrorCode::name);
        assert_eq!(code_for_number(i64::from(status)), runtime, "HTTP {status}");
    }
}

#[test]
fn diagnostics_link_where_the_runtime_links() {
    let rules = include_str!("../macros/src/rules.rs");
    let constant = format!("pub(crate) const DOCS_URL: &str = \"{}\";", mcp_contract::LINTS_DOCS);
    assert!(rules.contains(&constant), "macros/src/rules.rs lacks `{constant}`");
}
