//! One rule, one verdict: the macro and the definition linter judge the same
//! names, reasons, recovery hints and scopes alike, because both ask
//! `mcp_contract_rules::check`. Each input is declared on a tool as the macro
//! reads it, and as a hand-written definition as the linter reads it.

use std::collections::BTreeSet;

use mcp_contract_runtime::define::{NoArguments, Tool, ToolDefinition, ToolOutput};
use mcp_contract_runtime::lint::{LintInput, validate};
use mcp_contract_runtime::{Context, ErrorContract, JsonRpcErrorCode, McpError};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::diag::Diagnostics;
use crate::{parse, rules, valid};

/// The rules whose verdict both sides give.
const SHARED: [&str; 5] = [
    "error-contract-reason-format",
    "error-contract-recovery-empty",
    "error-contract-recovery-min-words",
    "name-format",
    "auth-scope-format",
];

struct Case {
    name: &'static str,
    reason: &'static str,
    recovery: &'static str,
    scope: &'static str,
}

const GOOD: Case = Case {
    name: "get_object",
    reason: "not_found",
    recovery: "Search with search_objects to find valid IDs.",
    scope: "objects:read",
};

fn compile_time(case: &Case) -> BTreeSet<&'static str> {
    let (name, reason, recovery, scope) = (case.name, format_ident!("{}", case.reason), case.recovery, case.scope);
    let args: TokenStream = quote! {
        name = #name,
        auth(#scope),
        errors(#reason(code = NotFound, when = "No object has this ID", recovery = #recovery)),
    };
    let item: syn::ItemFn = syn::parse_quote! {
        /// Fetch one object.
        async fn handler(input: Input, ctx: Ctx) -> Result<Output, McpError> {
            Err(ctx.fail(#reason, "no"))
        }
    };
    let mut diag = Diagnostics::default();
    let raw = parse::tool::parse(args, &mut diag);
    let handler = parse::handler::parse(item, &mut diag);
    valid::tool::validate(raw, &handler, &mut diag);
    diag.rule_ids().into_iter().filter(|id| SHARED.contains(id)).collect()
}

struct HandWritten(&'static ToolDefinition);

impl Tool for HandWritten {
    type Input = NoArguments;
    type Output = String;

    fn definition(&self) -> &'static ToolDefinition {
        self.0
    }

    async fn call(&self, _input: NoArguments, _ctx: Context) -> Result<String, McpError> {
        Ok(String::new())
    }

    fn render(&self, output: String) -> Result<ToolOutput, McpError> {
        Ok(ToolOutput::text(output))
    }
}

fn run_time(case: &Case) -> BTreeSet<&'static str> {
    let contract: &'static [ErrorContract] = Box::leak(Box::new([ErrorContract::new(
        case.reason,
        JsonRpcErrorCode::NotFound,
        "No object has this ID",
        case.recovery,
    )]));
    let scopes: &'static [&'static str] = Box::leak(Box::new([case.scope]));
    let definition = ToolDefinition::new(case.name, mcp_contract_runtime::schema::input_schema::<NoArguments>())
        .with_description("Fetch one object.")
        .with_errors(contract)
        .with_auth_scopes(scopes);
    let tool = HandWritten(Box::leak(Box::new(definition)));
    let report = validate(&LintInput::default().tools([&tool as &dyn mcp_contract_runtime::DynTool]));
    report.diagnostics.iter().map(|d| d.rule).filter(|id| SHARED.contains(id)).collect()
}

#[test]
fn the_macro_and_the_linter_give_one_verdict() {
    let long_name: &'static str = Box::leak("x".repeat(129).into_boxed_str());
    let cases = [
        GOOD,
        Case { reason: "a__b", ..GOOD },
        Case { reason: "trailing_", ..GOOD },
        Case { reason: "NotFound", ..GOOD },
        Case { reason: "http2_refused", ..GOOD },
        Case { recovery: "Search first.", ..GOOD },
        Case { recovery: "   ", ..GOOD },
        Case { recovery: "one two three four five", ..GOOD },
        Case { name: "get object", ..GOOD },
        Case { name: long_name, ..GOOD },
        Case { name: "museum.get-object", ..GOOD },
        Case { scope: "objects read", ..GOOD },
        Case { scope: "", ..GOOD },
    ];
    for case in &cases {
        let (macro_side, linter_side) = (compile_time(case), run_time(case));
        assert_eq!(
            macro_side, linter_side,
            "name `{}`, reason `{}`, recovery `{}`, scope `{}`",
            case.name, case.reason, case.recovery, case.scope
        );
    }
    // The cases are not all clean: each shared rule fires for some input.
    let fired: BTreeSet<&str> = cases.iter().flat_map(compile_time).collect();
    assert_eq!(fired, SHARED.into_iter().collect(), "every shared rule is exercised");
    assert!(rules::check::is_snake_case(GOOD.reason));
}
