//! The body rules, by rule.

use syn::parse_quote;

use super::stringify::{ArgRef, placeholders};
use super::*;
use crate::rules;

const ERROR_CONTRACT_CONFORMANCE: &str = rules::ERROR_CONTRACT_CONFORMANCE.id;
const ERROR_CONTRACT_PREFER_FAIL: &str = rules::ERROR_CONTRACT_PREFER_FAIL.id;
const PREFER_MCP_ERROR_IN_HANDLER: &str = rules::PREFER_MCP_ERROR_IN_HANDLER.id;
const PREFER_ERROR_FACTORY: &str = rules::PREFER_ERROR_FACTORY.id;
const PRESERVE_CAUSE_ON_RETHROW: &str = rules::PRESERVE_CAUSE_ON_RETHROW.id;
const NO_STRINGIFY_UPSTREAM_ERROR: &str = rules::NO_STRINGIFY_UPSTREAM_ERROR.id;
/// The rules of the body.
const RULES: [&str; 6] = [
    ERROR_CONTRACT_CONFORMANCE,
    ERROR_CONTRACT_PREFER_FAIL,
    PREFER_MCP_ERROR_IN_HANDLER,
    PREFER_ERROR_FACTORY,
    PRESERVE_CAUSE_ON_RETHROW,
    NO_STRINGIFY_UPSTREAM_ERROR,
];

fn declared(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(reason, code)| ((*reason).to_owned(), (*code).to_owned())).collect()
}

fn lint(block: &Block, contract: &[(&str, &str)]) -> Vec<Warning> {
    let declared = declared(contract);
    check_body(block, &BodyFacts { declared: &declared })
}

fn rules(findings: &[Warning]) -> Vec<&'static str> {
    findings.iter().map(|finding| finding.rule.id).collect()
}

/// `(rule, text under the span)` of each finding of a body given as source,
/// so spans have real positions (a `parse_quote!` span has none).
fn located(source: &str, contract: &[(&str, &str)]) -> Vec<(&'static str, String)> {
    let block: Block = syn::parse_str(source).expect("test body parses");
    lint(&block, contract)
        .iter()
        .map(|finding| (finding.rule.id, finding.span.source_text().expect("span has a location")))
        .collect()
}

fn message_of<'f>(findings: &'f [Warning], rule: &str) -> &'f str {
    &findings.iter().find(|finding| finding.rule.id == rule).expect("rule fired").message
}

const CONTRACT: &[(&str, &str)] = &[("not_in_collection", "NotFound"), ("upstream_busy", "RateLimited")];

#[test]
fn every_message_is_lowercase_without_period_and_points_at_its_docs() {
    let block: Block = parse_quote!({
        let a = McpError::conflict("taken");
        let b = McpError::not_found("gone");
        let c = McpError::new(JsonRpcErrorCode::NotFound, "gone");
        let d = anyhow!("untyped");
        let e = fetch().map_err(|_| McpError::internal_error(format!("{:?}", err)))?;
    });
    let findings = lint(&block, CONTRACT);
    let mut seen: Vec<&str> = rules(&findings);
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), RULES.len(), "every rule fires once here: {seen:?}");
    for finding in &findings {
        let first = finding.message.chars().next().unwrap();
        assert!(!first.is_uppercase(), "{}", finding.message);
        assert!(!finding.message.ends_with('.'), "{}", finding.message);
        assert!(finding.message.ends_with(&format!("see {}", finding.rule.url())), "{}", finding.message);
    }
}

// ---- error-contract-conformance ----

#[test]
fn conformance_flags_an_undeclared_factory_code_at_the_factory() {
    let block: Block = parse_quote!({
        if taken {
            return Err(McpError::conflict("The name is taken."));
        }
    });
    let findings = lint(&block, CONTRACT);
    assert_eq!(rules(&findings), [ERROR_CONTRACT_CONFORMANCE]);
    assert_eq!(
        findings[0].message,
        "`McpError::conflict(..)` builds a `Conflict` error, a code the handler's contract does not declare; \
         declare it in `errors(..)` with a reason and build it with `ctx.fail(reason, ..)`, or use a baseline \
         code (`InternalError`, `ServiceUnavailable`, `Timeout`, `ValidationError`, `SerializationError`); \
         see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#error-contract-conformance"
    );
    assert_eq!(
        located("{ if taken { return Err(McpError::conflict(\"x\")); } }", CONTRACT),
        [(ERROR_CONTRACT_CONFORMANCE, "conflict".to_owned())]
    );
}

#[test]
fn conformance_reads_qualified_and_bare_codes_of_mcp_error_new_in_closures() {
    let source = "{
        let run = || async {
            let a = mcp_contract::McpError::new(mcp_contract::JsonRpcErrorCode::Forbidden, \"no\");
            let b = McpError::new(MethodNotFound, \"no\");
            Ok::<_, McpError>(())
        };
    }";
    assert_eq!(
        located(source, CONTRACT),
        [
            (PREFER_ERROR_FACTORY, "new".to_owned()),
            (ERROR_CONTRACT_CONFORMANCE, "Forbidden".to_owned()),
            (ERROR_CONTRACT_CONFORMANCE, "MethodNotFound".to_owned()),
        ]
    );
}

#[test]
fn conformance_allows_baseline_codes_and_tools_without_a_contract() {
    let block: Block = parse_quote!({
        let a = McpError::internal_error("bug");
        let b = McpError::service_unavailable("down");
        let c = McpError::timeout("slow");
        let d = McpError::validation_error("bad");
        let e = McpError::new(JsonRpcErrorCode::SerializationError, "bad json");
    });
    assert_eq!(rules(&lint(&block, CONTRACT)), [PREFER_ERROR_FACTORY]);

    let block: Block = parse_quote!({
        return Err(McpError::conflict("taken"));
    });
    assert!(lint(&block, &[]).is_empty(), "no `errors(..)`: nothing to conform to");
}

#[test]
fn conformance_ignores_codes_that_are_compared_named_in_text_or_built_in_nested_fns() {
    let block: Block = parse_quote!({
        // McpError::conflict("in a comment")
        if err.code() == JsonRpcErrorCode::Conflict {
            tracing::info!("McpError::conflict(..) is only text here");
        }
        match code {
            JsonRpcErrorCode::Forbidden => {}
            _ => {}
        }
        fn helper() -> McpError {
            McpError::conflict("a nested fn is not the handler")
        }
    });
    assert!(lint(&block, CONTRACT).is_empty());
}

// ---- error-contract-prefer-fail ----

#[test]
fn prefer_fail_names_the_declared_reason_at_the_factory() {
    let block: Block = parse_quote!({
        let object = COLLECTION.get(id).ok_or_else(|| McpError::not_found("No such object."))?;
    });
    let findings = lint(&block, CONTRACT);
    assert_eq!(rules(&findings), [ERROR_CONTRACT_PREFER_FAIL]);
    assert_eq!(
        findings[0].message,
        "`McpError::not_found(..)` builds a `NotFound` error directly, but the contract declares `NotFound` as \
         `not_in_collection`; use `ctx.fail(not_in_collection, ..)` so the error carries its `data.reason`; \
         see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#error-contract-prefer-fail"
    );
    assert_eq!(
        located("{ let o = get(id).ok_or_else(|| McpError::not_found(\"x\"))?; }", CONTRACT),
        [(ERROR_CONTRACT_PREFER_FAIL, "not_found".to_owned())]
    );
}

#[test]
fn prefer_fail_lists_every_reason_of_the_code_and_points_at_the_code_of_new() {
    let contract = [("no_match", "NotFound"), ("site_not_found", "NotFound")];
    let source = "{ { return Err(McpError::new(JsonRpcErrorCode::NotFound, \"none\")); } }";
    assert_eq!(
        located(source, &contract),
        [(PREFER_ERROR_FACTORY, "new".to_owned()), (ERROR_CONTRACT_PREFER_FAIL, "NotFound".to_owned())]
    );
    let block: Block = syn::parse_str(source).unwrap();
    let findings = lint(&block, &contract);
    assert!(
        message_of(&findings, ERROR_CONTRACT_PREFER_FAIL).contains(
            "declares `NotFound` as `no_match` and `site_not_found`; use `ctx.fail(no_match, ..)` or \
             `ctx.fail(site_not_found, ..)`"
        ),
        "{}",
        message_of(&findings, ERROR_CONTRACT_PREFER_FAIL)
    );
}

#[test]
fn prefer_fail_covers_declared_baseline_codes() {
    // The reference skips baseline codes here; a declared one has a reason
    // the direct construction loses, so this module reports it.
    let block: Block = parse_quote!({
        return Err(McpError::service_unavailable("The archive is down."));
    });
    let findings = lint(&block, &[("archive_down", "ServiceUnavailable")]);
    assert_eq!(rules(&findings), [ERROR_CONTRACT_PREFER_FAIL]);
    assert!(findings[0].message.contains("use `ctx.fail(archive_down, ..)`"));
}

#[test]
fn prefer_fail_accepts_ctx_fail_in_question_mark_chains() {
    let block: Block = parse_quote!({
        let object = COLLECTION
            .get(input.object_id)
            .ok_or_else(|| ctx.fail(not_in_collection, format!("No object {}", input.object_id)))?;
        let page = fetch(&object).await.map_err(|e| ctx.fail(upstream_busy, "Throttled.").with_cause(e))?;
        Ok(page)
    });
    assert!(lint(&block, CONTRACT).is_empty());
}

#[test]
fn prefer_fail_ignores_other_codes_and_codes_held_in_variables() {
    let block: Block = parse_quote!({
        let code = pick();
        let a = McpError::new(code, "dynamic");
        let b = McpError::timeout("slow");
    });
    assert!(lint(&block, CONTRACT).is_empty());
}

// ---- prefer-mcp-error-in-handler ----

#[test]
fn untyped_macros_are_flagged_at_their_name() {
    let source = "{
        if a { return Err(anyhow!(\"bad\").into()); }
        if b { anyhow::bail!(\"bad {}\", b); }
        let r = eyre::eyre!(\"bad\");
        anyhow::ensure!(c, \"bad\");
    }";
    assert_eq!(
        located(source, &[]),
        [
            (PREFER_MCP_ERROR_IN_HANDLER, "anyhow".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "bail".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "eyre".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "ensure".to_owned()),
        ]
    );
    let block: Block = parse_quote!({
        bail!("bad");
    });
    assert_eq!(
        lint(&block, &[])[0].message,
        "`bail!` builds an untyped error with no JSON-RPC code, so the client gets a code guessed from its \
         text; return an `McpError` from a factory such as `McpError::not_found(..)`, or `ctx.fail(reason, ..)` \
         for a declared failure; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#prefer-mcp-error-in-handler"
    );
}

#[test]
fn untyped_calls_are_flagged() {
    let source = "{
        let helper = |x: u32| -> Result<u32, Box<dyn std::error::Error>> {
            if x == 0 { return Err(\"zero\".into()); }
            if x == 1 { return Err(format!(\"one {x}\").into()); }
            if x == 2 { return Err(String::from(\"two\").into()); }
            if x == 3 { return Err(Box::<dyn std::error::Error + Send + Sync>::from(io_error)); }
            if x == 4 { return Err(<Box<dyn std::error::Error>>::from(\"four\")); }
            Err(anyhow::Error::msg(\"five\").into())
        };
    }";
    assert_eq!(
        located(source, &[]),
        [
            (PREFER_MCP_ERROR_IN_HANDLER, "Err".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "Err".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "Err".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "Box".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "Box".to_owned()),
            (PREFER_MCP_ERROR_IN_HANDLER, "msg".to_owned()),
        ]
    );
}

#[test]
fn typed_errors_and_their_conversions_are_not_untyped() {
    let block: Block = parse_quote!({
        let bytes = std::fs::read(path)?;
        let parsed: Output = serde_json::from_slice(&bytes).map_err(McpError::from_error)?;
        if parsed.items.is_empty() {
            return Err(McpError::internal_error("empty"));
        }
        let boxed = Box::new(io_error);
        let from = Box::from(typed_error);
        let converted: McpError = io_error.into();
        ensure!(ready, NotReadySnafu);
        Err(e.into())
    });
    assert!(lint(&block, &[]).is_empty());
}

#[test]
fn opaque_macros_are_not_searched() {
    let block: Block = parse_quote!({
        tokio::select! {
            _ = ctx.cancelled() => return Err(anyhow!("cancelled").into()),
            page = fetch() => page,
        }
    });
    // `select!` is not a list of expressions: nothing inside is linted.
    assert!(lint(&block, &[]).is_empty());
    let block: Block = parse_quote!({
        let all = vec![anyhow!("parsed")];
    });
    assert_eq!(rules(&lint(&block, &[])), [PREFER_MCP_ERROR_IN_HANDLER]);
}

// ---- prefer-error-factory ----

#[test]
fn prefer_error_factory_names_the_factory_at_new() {
    let block: Block = parse_quote!({
        return Err(McpError::new(JsonRpcErrorCode::RateLimited, "Slow down."));
    });
    let findings = lint(&block, &[]);
    assert_eq!(rules(&findings), [PREFER_ERROR_FACTORY]);
    assert_eq!(
        findings[0].message,
        "`McpError::new(JsonRpcErrorCode::RateLimited, ..)` spells out a code that has a factory; use \
         `McpError::rate_limited(..)`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#prefer-error-factory"
    );
    assert_eq!(
        located("{ Err(McpError::new(JsonRpcErrorCode::RateLimited, \"x\")) }", &[]),
        [(PREFER_ERROR_FACTORY, "new".to_owned())]
    );
}

#[test]
fn prefer_error_factory_sees_through_qualified_paths_closures_and_try() {
    let block: Block = parse_quote!({
        let value = lookup(key)
            .map_err(|e| {
                ::mcp_contract::McpError::new(::mcp_contract::JsonRpcErrorCode::DatabaseError, "lookup failed")
                    .with_cause(e)
            })?
            .ok_or_else(|| McpError::new(InvalidParams, "no key"))?;
    });
    let findings = lint(&block, &[]);
    assert_eq!(rules(&findings), [PREFER_ERROR_FACTORY, PREFER_ERROR_FACTORY]);
    assert!(findings[0].message.contains("use `McpError::database_error(..)`"));
    assert!(findings[1].message.contains("use `McpError::invalid_params(..)`"));
}

#[test]
fn prefer_error_factory_skips_codes_without_a_factory_and_unknown_codes() {
    let block: Block = parse_quote!({
        let a = McpError::new(JsonRpcErrorCode::MethodNotFound, "no such method");
        let b = McpError::new(JsonRpcErrorCode::InitializationFailed, "not ready");
        let c = McpError::new(upstream.code(), "mirrored");
        let d = McpError::new(JsonRpcErrorCode::from_i32(raw).unwrap_or_default(), "mirrored");
        let e = Other::new(JsonRpcErrorCode::NotFound, "not an McpError");
    });
    assert!(lint(&block, &[]).is_empty());
}

// ---- preserve-cause-on-rethrow ----

#[test]
fn map_err_dropping_its_error_is_flagged_at_the_binding() {
    let source = "{
        let a = fetch().await.map_err(|_| McpError::service_unavailable(\"down\"))?;
        let b = parse(&a).map_err(|e| ctx.fail(upstream_busy, \"bad\"))?;
        let c = read().or_else(|_e: io::Error| Err(McpError::internal_error(\"io\")))?;
    }";
    assert_eq!(
        located(source, CONTRACT),
        [
            (PRESERVE_CAUSE_ON_RETHROW, "_".to_owned()),
            (PRESERVE_CAUSE_ON_RETHROW, "e".to_owned()),
            (PRESERVE_CAUSE_ON_RETHROW, "_e".to_owned()),
        ]
    );
    let block: Block = parse_quote!({
        let b = parse(&a).map_err(|e| ctx.fail(upstream_busy, "bad"))?;
    });
    assert_eq!(
        lint(&block, CONTRACT)[0].message,
        "the caught error `e` is dropped, so the error built here has no cause; keep it with `.with_cause(e)`, \
         or build the error with `McpError::from_error(e)`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#preserve-cause-on-rethrow"
    );
}

#[test]
fn match_arms_and_if_let_dropping_or_stringifying_their_error_are_flagged() {
    let source = "{
        let page = match fetch(id).await {
            Ok(page) => page,
            Err(err) if err.is_timeout() => return Err(McpError::timeout(\"slow\")),
            Err(err) => return Err(McpError::internal_error(format!(\"fetch failed: {err}\"))),
        };
        if let Err(e) = store(&page) {
            return Err(McpError::internal_error(e.to_string()));
        }
    }";
    assert_eq!(
        located(source, &[]),
        [
            (PRESERVE_CAUSE_ON_RETHROW, "err".to_owned()),
            (PRESERVE_CAUSE_ON_RETHROW, "err".to_owned()),
            (PRESERVE_CAUSE_ON_RETHROW, "e".to_owned()),
        ]
    );
    let block: Block = syn::parse_str(source).unwrap();
    let findings = lint(&block, &[]);
    assert!(findings[0].message.starts_with("the caught error `err` is dropped"));
    assert!(findings[1].message.starts_with("the caught error `err` only reaches the error as text"));
    assert!(findings[2].message.starts_with("the caught error `e` only reaches the error as text"));
}

#[test]
fn kept_causes_are_not_flagged() {
    let block: Block = parse_quote!({
        let a = fetch().map_err(|e| McpError::service_unavailable("down").with_cause(e))?;
        let b = parse(&a).map_err(|e| McpError::from_error(e))?;
        let c = parse(&a).map_err(McpError::from_error)?;
        let d = match read() {
            Ok(v) => v,
            Err(e) => return Err(ctx.fail(upstream_busy, "throttled").with_cause_arc(Arc::new(e))),
        };
        if let Err(e) = write() {
            return Err(e.into());
        }
        let f = lookup().map_err(|err| {
            tracing::warn!(error = %err, "lookup failed");
            McpError::internal_error("lookup failed")
        })?;
    });
    assert!(lint(&block, CONTRACT).is_empty());
}

#[test]
fn handling_that_builds_no_error_is_not_a_rethrow() {
    let block: Block = parse_quote!({
        let cached = match cache.get(id) {
            Ok(hit) => hit,
            Err(_) => Vec::new(),
        };
        if let Err(e) = audit(id) {
            tracing::warn!("audit failed");
        }
        let n = text.parse::<u32>().map_err(|_| 0)?;
    });
    assert!(lint(&block, &[]).is_empty());
}

// ---- no-stringify-upstream-error ----

#[test]
fn debug_formatting_an_error_into_a_message_is_flagged_at_the_format_macro() {
    let source = "{
        let a = fetch().map_err(|e| McpError::service_unavailable(format!(\"down: {e:?}\")).with_cause(e))?;
        let b = McpError::internal_error(format!(\"bad: {:#?}\", upstream_err));
        let c = match read() {
            Ok(v) => v,
            Err(failure) => return Err(ctx.fail(upstream_busy, format!(\"{0:?}\", &failure)).with_cause(failure)),
        };
    }";
    assert_eq!(
        located(source, CONTRACT),
        [
            (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned()),
            (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned()),
            (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned()),
        ]
    );
    let block: Block = syn::parse_str(source).unwrap();
    let findings = lint(&block, CONTRACT);
    assert_eq!(
        findings[0].message,
        "`{e:?}` in `format!` writes the upstream error `e` into the message in full, which can leak internal \
         details to the client; write a short summary in the message and keep the error with `.with_cause(e)`; \
         see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#no-stringify-upstream-error"
    );
    assert!(findings[1].message.starts_with("`{:#?}` in `format!` writes the upstream error `upstream_err`"));
    assert!(findings[2].message.starts_with("`{0:?}` in `format!` writes the upstream error `failure`"));
}

#[test]
fn serde_json_of_an_error_and_with_message_are_checked() {
    let source = "{
        let a = McpError::internal_error(serde_json::to_string(&err).unwrap_or_default());
        let b = McpError::internal_error(\"x\").with_message(format!(\"{:?} {}\", id, format!(\"{:?}\", e)));
    }";
    assert_eq!(
        located(source, &[]),
        [(NO_STRINGIFY_UPSTREAM_ERROR, "to_string".to_owned()), (NO_STRINGIFY_UPSTREAM_ERROR, "format".to_owned())]
    );
}

#[test]
fn named_format_arguments_resolve_to_their_value() {
    let block: Block = parse_quote!({
        let a = McpError::internal_error(format!("{detail:?}", detail = e));
        let b = McpError::internal_error(format!("{e:?}", e = request_id));
    });
    let findings = lint(&block, &[]);
    assert_eq!(rules(&findings), [NO_STRINGIFY_UPSTREAM_ERROR]);
    assert!(findings[0].message.starts_with("`{detail:?}` in `format!` writes the upstream error `e`"));
}

#[test]
fn display_data_and_non_error_values_are_not_stringified_errors() {
    let block: Block = parse_quote!({
        let a = fetch().map_err(|e| {
            McpError::service_unavailable(format!("The archive is down: {e}"))
                .with_data_field("upstream", format!("{e:?}"))
                .with_cause(e)
        })?;
        let b = McpError::invalid_params(format!("bad id {:?} at {idx:?}", id));
        let c = McpError::internal_error(format!("{{e:?}} is escaped, {}", name));
        tracing::error!("{e:?}");
        let d = format!("{err:?}");
    });
    assert!(lint(&block, &[]).is_empty());
}

#[test]
fn a_caught_error_with_any_name_is_known_to_the_message_check() {
    let block: Block = parse_quote!({
        let a = load().map_err(|problem| McpError::internal_error(format!("{problem:?}")).with_cause(problem))?;
    });
    assert_eq!(rules(&lint(&block, &[])), [NO_STRINGIFY_UPSTREAM_ERROR]);
    let block: Block = parse_quote!({
        let a = McpError::internal_error(format!("{problem:?}"));
    });
    assert!(lint(&block, &[]).is_empty(), "`problem` is neither caught nor named like an error");
}

// ---- format strings ----

#[test]
fn placeholders_follow_the_format_grammar() {
    let found = placeholders("{} {:?} {x:#?} {0:?} {{a:?}} {:.*} {:?>5} {:x?} {}");
    let summary: Vec<(&str, &ArgRef, bool)> = found.iter().map(|p| (p.written.as_str(), &p.arg, p.debug)).collect();
    assert_eq!(
        summary,
        [
            ("{}", &ArgRef::Positional(0), false),
            ("{:?}", &ArgRef::Positional(1), true),
            ("{x:#?}", &ArgRef::Named("x".to_owned()), true),
            ("{0:?}", &ArgRef::Positional(0), true),
            // `.*` takes argument 2 as precision and formats argument 3.
            ("{:.*}", &ArgRef::Positional(3), false),
            // `?` as the fill character, not the trait.
            ("{:?>5}", &ArgRef::Positional(4), false),
            ("{:x?}", &ArgRef::Positional(5), true),
            ("{}", &ArgRef::Positional(6), false),
        ]
    );
}
