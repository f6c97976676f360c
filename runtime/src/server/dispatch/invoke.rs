//! The plumbing of one request: the handler runs in the request's task, is
//! dropped when the client cancels, and a panic becomes an InternalError
//! without its message (which may hold internals) while the server serves on.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt;
use rmcp::model::{CallToolResult, ErrorData};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::hook::{CallInfo, CallOutcome};
use super::observe::{Observe, Outcome};
use crate::call::{BoxFuture, CallTrace, Context, Failure, InputRound, RoundEnd};
use crate::define::PrimitiveKind;
use crate::define::{DynTool, Repair, ToolDefinition};
use crate::error::{
    ErrorCategory, ErrorContract, ErrorSeverity, JsonObject, JsonRpcErrorCode, McpError, new_request_id,
};
use crate::server::wire::{bounded, envelope, error_result, success_result};

/// What the log says of one call: what was called, by whom, in which request.
pub(crate) struct Call {
    pub(crate) kind: PrimitiveKind,
    pub(crate) name: &'static str,
    /// The verified caller's subject (else client id), with auth on.
    pub(crate) caller: Option<String>,
    /// The id this server gave the request (`XXXXX-XXXXX`): on the span, the
    /// log line and, as `data.requestId`, every error the call answers.
    pub(crate) request_id: Arc<str>,
    /// The JSON-RPC id of the request as the client sent it, and the session it came in.
    pub(crate) jsonrpc_id: Option<Arc<str>>,
    pub(crate) session_id: Option<Arc<str>>,
    /// The handler's error contract: what an answered error of a declared
    /// reason is filled in from (its hint, `retryable`, the log line's level).
    contract: &'static [ErrorContract],
    pub(crate) client_ip: Option<std::net::IpAddr>,
    /// A completion request: logged at DEBUG, as a client sends one per keystroke.
    pub(crate) completion: bool,
    pub(crate) observe: Arc<Observe>,
    /// The handler's context, for the hooks; `None` without hooks, and for a completion.
    context: Option<Context>,
    /// The repairs of a tool call's arguments, as its log line lists them
    /// (`kind:path`, `kind:key->field`); `None` for none.
    repairs: Option<String>,
    /// The request's trace context and protocol revision.
    trace: Option<Arc<CallTrace>>,
}

impl Call {
    pub(crate) fn new(kind: PrimitiveKind, name: &'static str, ctx: &Context, observe: &Arc<Observe>) -> Self {
        let (jsonrpc_id, session_id) = ctx.kept_ids();
        Self {
            kind,
            name,
            caller: caller(ctx).map(str::to_owned),
            request_id: Arc::from(new_request_id()),
            jsonrpc_id: jsonrpc_id.cloned(),
            contract: ctx.contract(),
            session_id: session_id.cloned(),
            client_ip: ctx.client_ip(),
            completion: false,
            context: (!observe.hooks.is_empty()).then(|| ctx.clone()),
            observe: Arc::clone(observe),
            repairs: None,
            trace: ctx.trace().cloned(),
        }
    }

    /// Repair the arguments of a call of `definition`, unless the server or
    /// the tool turned repair off: each repair counted, and listed on the
    /// span and the call's log line.
    fn repair(&mut self, definition: &ToolDefinition, arguments: &mut JsonObject, span: &tracing::Span) -> Vec<Repair> {
        if !(self.observe.repair_arguments && definition.repair_arguments) {
            return Vec::new();
        }
        let repairs = crate::define::repair(arguments, &definition.input_schema, definition.input_aliases);
        if repairs.is_empty() {
            return repairs;
        }
        self.observe.repaired(definition.name, &repairs);
        let listed: Vec<String> = repairs
            .iter()
            .map(|repair| match &repair.target {
                Some(field) => format!("{}:{}->{field}", repair.kind.as_str(), repair.path),
                None => format!("{}:{}", repair.kind.as_str(), repair.path),
            })
            .collect();
        // The client's keys, capped as any client text in a log line.
        let listed = crate::define::cap_quoted(&listed.join(", ")).into_owned();
        span.record("repairs", listed.as_str());
        self.repairs = Some(listed);
        repairs
    }

    pub(crate) fn completion(mut self) -> Self {
        self.completion = true;
        self.context = None;
        self
    }

    /// The hooks' `before`, in order, the first refusal winning: a future of
    /// its own, so that it runs on the call's task (cancelled and aborted
    /// with it, a panic caught as the handler's is).
    fn before(&self) -> impl Future<Output = Result<(), McpError>> + Send + 'static {
        let (observe, kind, name, context) = (Arc::clone(&self.observe), self.kind, self.name, self.context.clone());
        async move {
            let Some(context) = context else { return Ok(()) };
            let call = CallInfo { kind, name, context: &context };
            for hook in &observe.hooks {
                hook.before(&call).await?;
            }
            Ok(())
        }
    }

    /// The hooks' `after`.
    fn after(&self, outcome: CallOutcome<'_>) {
        let Some(context) = &self.context else { return };
        let call = CallInfo { kind: self.kind, name: self.name, context };
        for hook in &self.observe.hooks {
            hook.after(&call, outcome);
        }
    }

    /// The `kind` label of the call's metrics: completions apart, as a client
    /// sends one per keystroke.
    fn metric_kind(&self) -> &'static str {
        match (self.completion, self.kind) {
            (true, _) => "completion",
            (false, PrimitiveKind::Tool) => "tool",
            (false, PrimitiveKind::Resource) => "resource",
            (false, PrimitiveKind::Prompt) => "prompt",
        }
    }

    /// Whether the rate limit lets this call run; a completion always runs,
    /// as a client sends one per keystroke and it costs little.
    fn admit(&self) -> Result<(), McpError> {
        if self.completion {
            return Ok(());
        }
        self.observe.admit(self.caller.as_deref(), self.client_ip)
    }

    /// A call that ended without an answer of its handler: cancelled, or panicked.
    fn ended(&self, span: &tracing::Span, started: std::time::Instant, outcome: Outcome) {
        span.record("outcome", outcome.as_str());
        span.record("mcp_contract.outcome", outcome.as_str());
        if outcome == Outcome::Panic {
            let code = JsonRpcErrorCode::InternalError.as_i32();
            span.record("error.type", &*self.error_type(code, true));
            span.record("otel.status_code", "error");
        }
        let failure = (outcome == Outcome::Panic).then(|| Failure {
            error_type: if self.kind == PrimitiveKind::Tool && !self.completion { "tool_error" } else { "-32603" },
            code: JsonRpcErrorCode::InternalError.as_i32(),
            reason: None,
            category: ErrorCategory::Server.as_str(),
            severity: None,
        });
        let seconds = started.elapsed().as_secs_f64();
        self.observe.finished(self.metric_kind(), self.method(), self.name, outcome, failure, seconds);
        span.in_scope(|| {
            self.after(if outcome == Outcome::Panic { CallOutcome::Panicked } else { CallOutcome::Cancelled })
        });
    }

    /// A call whose round ended on asks of the client: no end of the call
    /// (the client retries it with the answers, and the retry that finishes
    /// is the call the metrics and the hooks' `after` count), but of the span.
    fn round_ended(&self, span: &tracing::Span) {
        span.record("outcome", "input_required");
        span.record("mcp_contract.outcome", "input_required");
        tracing::debug!(outcome = "input_required", "call ended its round: it waits for the client's input");
    }

    /// The MCP method of the call (`mcp.method.name`).
    fn method(&self) -> &'static str {
        match (self.completion, self.kind) {
            (true, _) => "completion/complete",
            (false, PrimitiveKind::Tool) => "tools/call",
            (false, PrimitiveKind::Resource) => "resources/read",
            (false, PrimitiveKind::Prompt) => "prompts/get",
        }
    }

    /// The span every event of the call is logged in: the request's id
    /// (`request_id`, the one its errors carry) beside the client's JSON-RPC
    /// id (`jsonrpc_id`). Its outcome, code, reason and duration are recorded
    /// on it when the call ends, so a subscriber that exports spans
    /// (OpenTelemetry, say) has them too.
    ///
    /// It carries the attributes of the OpenTelemetry semantic conventions
    /// for MCP (semconv 1.42.0, the server span: `mcp.method.name`,
    /// `gen_ai.tool.name`, `jsonrpc.request.id`, `error.type`, ..) and this
    /// crate's own (`mcp_contract.*`) with or without the feature `otel`,
    /// which only forwards them; `otel.*` fields are the names
    /// `tracing-opentelemetry` reads the span's name, kind and status from.
    fn span(&self) -> tracing::Span {
        use tracing::field::Empty;
        let (tool, prompt) = match (self.completion, self.kind) {
            (false, PrimitiveKind::Tool) => (Some(self.name), None),
            (false, PrimitiveKind::Prompt) => (None, Some(self.name)),
            _ => (None, None),
        };
        let trace = self.trace.as_deref();
        let span = tracing::info_span!(
            "mcp_call",
            kind = %self.kind,
            name = self.name,
            request_id = &*self.request_id,
            jsonrpc_id = self.jsonrpc_id.as_deref(),
            session_id = self.session_id.as_deref(),
            caller = self.caller.as_deref(),
            outcome = Empty,
            code = Empty,
            reason = Empty,
            repairs = Empty,
            duration_ms = Empty,
            otel.name = Empty,
            otel.kind = "server",
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = self.method(),
            gen_ai.tool.name = tool,
            gen_ai.prompt.name = prompt,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            jsonrpc.request.id = self.jsonrpc_id.as_deref(),
            mcp.session.id = self.session_id.as_deref(),
            mcp.protocol.version = trace.and_then(|trace| trace.protocol_version.as_deref()),
            network.transport = trace.and_then(|trace| trace.transport),
            error.type = Empty,
            rpc.response.status_code = Empty,
            mcp_contract.request_id = &*self.request_id,
            mcp_contract.outcome = Empty,
            mcp_contract.reason = Empty,
            mcp_contract.code = Empty,
        );
        #[cfg(feature = "otel")]
        crate::telemetry::adopt(&span, self.method(), (!self.completion).then_some(self.name), trace);
        span
    }

    /// The `severity` the contract declares for `reason`, by name.
    fn severity(&self, reason: Option<&str>) -> Option<&'static str> {
        let entry = self.contract.iter().find(|entry| Some(entry.reason) == reason)?;
        entry.severity.map(|severity| ErrorSeverity::NAMES[severity as usize])
    }

    /// `error.type` of a failed call: `tool_error` for a tool's error result
    /// (an answer with `isError`, as the conventions name it), else the
    /// JSON-RPC error's code.
    fn error_type(&self, code: i32, as_result: bool) -> std::borrow::Cow<'static, str> {
        if as_result && self.kind == PrimitiveKind::Tool && !self.completion {
            "tool_error".into()
        } else {
            code.to_string().into()
        }
    }

    /// What the client gets for `err`, the one place every error a call
    /// answers passes: `err` with what the contract says of its reason
    /// filled in ([`McpError::with_contract`]: the hint, `retryable`), or,
    /// when it is a failure of the server's side that `?` or
    /// [`McpError::from_error`] classified (no declared reason, no message
    /// anyone wrote for a client) and masking is on, a generic message; either
    /// way with the request's id as `data.requestId`, the id the call's log
    /// line (which keeps the original message) and span carry.
    pub(crate) fn answer(&self, err: &McpError) -> McpError {
        let answer = if self.observe.mask_error_details
            && err.is_auto_classified()
            && err.category() == ErrorCategory::Server
            && err.reason().is_none()
        {
            McpError::new(
                err.code(),
                format!(
                    "The {kind} `{name}` failed with an internal error. The details stay in the server's log \
                     under request id {id}.",
                    kind = self.kind,
                    name = self.name,
                    id = self.request_id,
                ),
            )
        } else {
            err.clone().with_contract(self.contract)
        };
        let answer = if err.is_protocol_error() { answer.into_protocol_error() } else { answer };
        answer.with_request_id(&self.request_id)
    }

    /// The answer of a call whose client cancelled it, or went away:
    /// RequestCancelled (-32011, the reference's since 0.12.4), logged at
    /// INFO as an outcome, not a failure, with no stack.
    fn cancelled(&self, span: &tracing::Span, started: std::time::Instant) -> McpError {
        self.ended(span, started, Outcome::Cancelled);
        span.in_scope(|| {
            tracing::info!(outcome = "cancelled", request_id = &*self.request_id, "call cancelled by the client");
        });
        McpError::request_cancelled(format!("The client cancelled this {} call.", self.kind))
            .with_request_id(&self.request_id)
    }

    /// One line per finished call: INFO (DEBUG for a completion) with the
    /// outcome, its code and reason, the duration and the request's id; WARN
    /// for a failure on the server's side (InternalError and friends) that no
    /// declared reason expected, so a declared failure never logs above INFO.
    /// A declared reason's `severity` sets its line's level.
    fn finished(&self, span: &tracing::Span, started: std::time::Instant, outcome: Result<(), &McpError>) {
        let elapsed = started.elapsed();
        let millis = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        span.record("duration_ms", millis);
        let error_type = outcome.err().map(|err| self.error_type(err.code().as_i32(), !err.is_protocol_error()));
        let failure = outcome.err().zip(error_type.as_deref()).map(|(err, error_type)| Failure {
            error_type,
            code: err.code().as_i32(),
            reason: err.reason(),
            category: err.category().as_str(),
            severity: self.severity(err.reason()),
        });
        let ended = if failure.is_some() { Outcome::Error } else { Outcome::Ok };
        self.observe.finished(self.metric_kind(), self.method(), self.name, ended, failure, elapsed.as_secs_f64());
        self.after(match outcome {
            Ok(()) => CallOutcome::Ok { duration: elapsed },
            Err(error) => CallOutcome::Error { error, duration: elapsed },
        });
        let Err(err) = outcome else {
            span.record("outcome", "ok");
            span.record("mcp_contract.outcome", "ok");
            if self.completion {
                tracing::debug!(duration_ms = millis, outcome = "ok", "completion finished");
            } else {
                tracing::info!(
                    duration_ms = millis,
                    outcome = "ok",
                    repairs = self.repairs.as_deref(),
                    "call finished"
                );
            }
            return;
        };
        let (code, reason, message) = (err.code().as_i32(), err.reason(), bounded(err));
        let request_id = &*self.request_id;
        span.record("outcome", "error");
        span.record("code", code);
        span.record("reason", reason);
        // A declared failure is one the contract names (a reason it lists); any
        // other is undeclared, whatever its code.
        let declared = reason.is_some_and(|reason| self.contract.iter().any(|entry| entry.reason == reason));
        span.record("mcp_contract.outcome", if declared { "declared_failure" } else { "undeclared_failure" });
        span.record("mcp_contract.code", code);
        span.record("mcp_contract.reason", reason);
        span.record("error.type", error_type.as_deref());
        if self.kind != PrimitiveKind::Tool || self.completion || err.is_protocol_error() {
            span.record("rpc.response.status_code", code.to_string());
        }
        span.record("otel.status_code", "error");
        span.record("otel.status_description", message.message());
        if err.category() == ErrorCategory::Server && reason.is_none() {
            tracing::warn!(
                duration_ms = millis,
                outcome = "error",
                code,
                request_id,
                error = message.message(),
                "call failed on the server's side"
            );
            return;
        }
        let severity = reason.and_then(|reason| self.contract.iter().find(|entry| entry.reason == reason));
        let level = match severity.and_then(|entry| entry.severity) {
            Some(severity) => severity.level(),
            None if self.completion => tracing::Level::DEBUG,
            None => tracing::Level::INFO,
        };
        let what = if self.completion { "completion failed" } else { "call finished with an error" };
        // `tracing`'s macros take the level as a constant.
        macro_rules! line {
            ($level:expr) => {
                tracing::event!(
                    $level,
                    duration_ms = millis,
                    outcome = "error",
                    code,
                    reason,
                    request_id,
                    repairs = self.repairs.as_deref(),
                    error = message.message(),
                    "{what}"
                )
            };
        }
        match level {
            tracing::Level::DEBUG => line!(tracing::Level::DEBUG),
            tracing::Level::WARN => line!(tracing::Level::WARN),
            _ => line!(tracing::Level::INFO),
        }
    }
}

/// A resource's, prompt's or completion's answer, or its JSON-RPC error.
pub(crate) type Answer<T> = Result<T, ErrorData>;

/// The client cancelled the call before the handler finished (or the handler
/// failed once it was cancelled): the answer, a RequestCancelled, for a
/// client still listening. rmcp sends none for a request the client
/// cancelled with `notifications/cancelled`, as MCP asks; a task ends
/// `cancelled`.
pub(crate) struct Cancelled(pub(crate) McpError);

/// How a tool call ended: with its result, with a protocol error of its
/// handler ([`McpError::into_protocol_error`]), or (in a stateless round)
/// with asks of the client that the request did not answer.
pub(crate) enum Finished {
    Complete(CallToolResult),
    Failed(ErrorData),
    Ended(RoundEnd),
}

/// Who calls (`AuthInfo::name`), with auth on.
fn caller(ctx: &Context) -> Option<&str> {
    ctx.auth().and_then(|caller| caller.name())
}

/// Whether the rate limit lets a call of the tool `name` in: checked once a
/// request, before the call runs or becomes a task, so that a caller past
/// the limit gets no task (whose handler would only find the refusal). The
/// refusal is a call that ended (its span, its log line, its metrics, the
/// hooks' `after`), answered as a tool error result.
pub(crate) fn admit_tool(name: &'static str, ctx: &Context, observe: &Arc<Observe>) -> Result<(), CallToolResult> {
    // The log of the call is made for a refusal only: the call that runs makes its own.
    let Err(refused) = observe.admit(caller(ctx), ctx.client_ip()) else { return Ok(()) };
    let log = Call::new(PrimitiveKind::Tool, name, ctx, observe);
    let span = log.span();
    let _entered = span.enter();
    log.finished(&span, std::time::Instant::now(), Err(&refused));
    Err(error_result(&log.answer(&refused)))
}

/// Whether the arguments of a call of `tool` that is to become a task decode
/// (repaired as [`run_tool`] will repair them): a task is created for
/// arguments its handler can take, so a refusal reaches the client as the
/// call's answer, the `invalid_arguments` envelope a plain call gets, and not
/// as a task that fails later. A refusal is a call that ended, as
/// [`admit_tool`]'s is; the repairs are counted once, by the task's run.
/// The refusal is the call's answer: a JSON-RPC error (`Err`) for a protocol
/// error, as arguments that do not decode are, else a tool error result.
pub(crate) fn check_tool_arguments(
    tool: &dyn DynTool,
    arguments: &JsonObject,
    ctx: &Context,
    observe: &Arc<Observe>,
) -> Result<(), Result<CallToolResult, ErrorData>> {
    let definition = tool.definition();
    let mut repaired = arguments.clone();
    let repairs = if observe.repair_arguments && definition.repair_arguments {
        crate::define::repair(&mut repaired, &definition.input_schema, definition.input_aliases)
    } else {
        Vec::new()
    };
    let beside = crate::define::aliases_beside_fields(&repaired, definition.input_aliases);
    let Err(err) = tool.check_arguments(repaired) else { return Ok(()) };
    let log = Call::new(PrimitiveKind::Tool, definition.name, ctx, observe);
    let span = log.span();
    let _entered = span.enter();
    let err = crate::define::with_rewrites(err, &repairs, &beside);
    let answer = log.answer(&err);
    log.finished(&span, std::time::Instant::now(), Err(&err));
    Err(if err.is_protocol_error() { Err(envelope(&answer)) } else { Ok(error_result(&answer)) })
}

/// Run one tool call, which [`admit_tool`] let in: decode, handle, render;
/// every failure becomes a tool error result, but for a protocol error, which
/// stays a JSON-RPC error. A panicking handler becomes an InternalError result
/// without its panic message (which may hold internals), and the server keeps
/// serving.
///
/// The call runs in its request's task (rmcp spawns one for each request, a
/// task runs in one of its own), so that a handler that holds its worker
/// thread for a while delays no other call on the connection; a cancelled
/// call is dropped at its next `.await`. (A plain `fn` handler runs on a
/// thread of its own, see [`crate::contract::run_blocking`], and is not aborted:
/// it checks [`Context::is_cancelled`] itself.)
pub(crate) async fn run_tool(
    tool: Arc<dyn DynTool>,
    arguments: JsonObject,
    ctx: Context,
    cancellation: &CancellationToken,
    observe: &Arc<Observe>,
    round: Option<Arc<InputRound>>,
) -> Result<Finished, Cancelled> {
    let call = ToolCall::new(tool.as_ref(), &ctx, observe);
    run_tool_call(call, tool, arguments, ctx, cancellation, observe, round).await
}

/// A tool call's log and span, made before it runs: a task makes them
/// before the call that creates it is answered, so that the task's later
/// rounds find the span to link to.
pub(crate) struct ToolCall {
    log: Call,
    span: tracing::Span,
}

impl ToolCall {
    pub(crate) fn new(tool: &dyn DynTool, ctx: &Context, observe: &Arc<Observe>) -> Self {
        let log = Call::new(PrimitiveKind::Tool, tool.definition().name, ctx, observe);
        let span = log.span();
        Self { log, span }
    }

    /// The span of the call, current while its handler runs.
    #[cfg_attr(not(feature = "otel"), allow(dead_code, reason = "only the OpenTelemetry export links to it"))]
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }
}

/// [`run_tool`] with its log and span made already.
pub(crate) async fn run_tool_call(
    call: ToolCall,
    tool: Arc<dyn DynTool>,
    arguments: JsonObject,
    ctx: Context,
    cancellation: &CancellationToken,
    observe: &Arc<Observe>,
    round: Option<Arc<InputRound>>,
) -> Result<Finished, Cancelled> {
    let name = tool.definition().name;
    let ToolCall { log, span } = call;
    let mut log = log;
    let mut arguments = arguments;
    let repairs = log.repair(tool.definition(), &mut arguments, &span);
    let beside = crate::define::aliases_beside_fields(&arguments, tool.definition().input_aliases);
    let started = std::time::Instant::now();
    let _in_flight = observe.started();
    let before = log.before();
    // In the request's own task (see above), caught if it panics. Boxed: that
    // task's future then holds a pointer, not the handler's state, which
    // every move of it (as tokio stores it) copies.
    let call = AssertUnwindSafe(Box::pin(
        async move {
            let handler = async move {
                before.await?;
                tool.call_json(arguments, ctx).await
            };
            match round {
                Some(round) => round.drive(handler).await,
                None => Ok(handler.await),
            }
        }
        .instrument(span.clone()),
    ))
    .catch_unwind();
    let outcome = tokio::select! {
        biased;
        () = cancellation.cancelled() => return Err(Cancelled(log.cancelled(&span, started))),
        outcome = call => outcome,
    };
    Ok(Finished::Complete(match outcome {
        Ok(Err(end)) => {
            let _entered = span.enter();
            log.round_ended(&span);
            return Ok(Finished::Ended(end));
        }
        Ok(Ok(Ok(output))) => {
            let _entered = span.enter();
            log.finished(&span, started, Ok(()));
            success_result(output)
        }
        // Whatever a handler fails with once its call was cancelled (a
        // blocking handler that saw `is_cancelled`, an upstream call the
        // cancellation cut) is the cancellation's, not a failure of its own.
        Ok(Ok(Err(_))) if cancellation.is_cancelled() => return Err(Cancelled(log.cancelled(&span, started))),
        Ok(Ok(Err(err))) => {
            let _entered = span.enter();
            let err = crate::define::with_rewrites(err, &repairs, &beside);
            let answer = log.answer(&err);
            log.finished(&span, started, Err(&err));
            if err.is_protocol_error() {
                return Ok(Finished::Failed(envelope(&answer)));
            }
            error_result(&answer)
        }
        Err(panic) => {
            let _entered = span.enter();
            let message = panic_message(panic.as_ref()).to_owned();
            log.ended(&span, started, Outcome::Panic);
            tracing::error!(tool = name, panic = message, request_id = &*log.request_id, "tool handler panicked");
            error_result(&log.answer(&McpError::internal_error(format!(
                "The tool `{name}` failed with an internal error. The details stay in the server's log; \
                 the server keeps serving other calls."
            ))))
        }
    }))
}

pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    if let Some(message) = panic.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = panic.downcast_ref::<String>() {
        message
    } else {
        "<non-string panic payload>"
    }
}

/// Run a resource, prompt or completion handler: its error in the JSON-RPC
/// envelope; a panic as an InternalError without its message (which may hold
/// internals), the server serving on; a cancelled request as rmcp's
/// cancellation answer.
pub(crate) async fn guarded<T>(
    future: BoxFuture<'_, Result<T, McpError>>,
    cancellation: &CancellationToken,
    log: Call,
) -> Answer<T> {
    guard(future, cancellation, log, |_| false).await
}

/// [`guarded`] for a resource or prompt handler driven by the request's input
/// round: one whose round ended (`Err` inside) is no finished call, as for a
/// tool in [`run_tool`].
pub(crate) async fn guarded_round<T>(
    future: BoxFuture<'_, Result<Result<T, RoundEnd>, McpError>>,
    cancellation: &CancellationToken,
    log: Call,
) -> Answer<Result<T, RoundEnd>> {
    guard(future, cancellation, log, Result::is_err).await
}

async fn guard<T>(
    future: BoxFuture<'_, Result<T, McpError>>,
    cancellation: &CancellationToken,
    log: Call,
    ends_round: impl Fn(&T) -> bool,
) -> Answer<T> {
    let (kind, name) = (log.kind, log.name);
    let span = log.span();
    let started = std::time::Instant::now();
    let _in_flight = log.observe.started();
    if let Err(refused) = log.admit() {
        let _entered = span.enter();
        log.finished(&span, started, Err(&refused));
        return Err(envelope(&log.answer(&refused)));
    }
    let before = log.before();
    let future = async move {
        before.await?;
        future.await
    };
    let call = AssertUnwindSafe(future.instrument(span.clone())).catch_unwind();
    let outcome = tokio::select! {
        biased;
        () = cancellation.cancelled() => return Err(envelope(&log.cancelled(&span, started))),
        outcome = call => outcome,
    };
    if matches!(outcome, Ok(Err(_))) && cancellation.is_cancelled() {
        return Err(envelope(&log.cancelled(&span, started)));
    }
    let _entered = span.enter();
    match outcome {
        Ok(Ok(value)) if ends_round(&value) => {
            log.round_ended(&span);
            Ok(value)
        }
        Ok(Ok(value)) => {
            log.finished(&span, started, Ok(()));
            Ok(value)
        }
        Ok(Err(err)) => {
            let answer = log.answer(&err);
            log.finished(&span, started, Err(&err));
            Err(envelope(&answer))
        }
        Err(panic) => {
            log.ended(&span, started, Outcome::Panic);
            let panic = panic_message(panic.as_ref());
            tracing::error!(%kind, name, panic, request_id = &*log.request_id, "handler panicked");
            Err(envelope(&log.answer(&McpError::internal_error(format!(
                "The {kind} `{name}` failed with an internal error. The details stay in the server's log; \
                 the server keeps serving other requests."
            )))))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// The level and message of every event logged while `log` runs.
    fn levels(log: impl FnOnce()) -> Vec<(tracing::Level, String)> {
        struct Levels(Arc<Mutex<Vec<(tracing::Level, String)>>>);
        struct Message<'a>(&'a mut String);
        impl tracing::field::Visit for Message<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    *self.0 = format!("{value:?}");
                }
            }
        }
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Levels {
            fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
                let mut message = String::new();
                event.record(&mut Message(&mut message));
                self.0.lock().unwrap().push((*event.metadata().level(), message));
            }
        }
        use tracing_subscriber::layer::SubscriberExt as _;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Levels(Arc::clone(&seen)));
        tracing::subscriber::with_default(subscriber, log);
        seen.lock().unwrap().clone()
    }

    #[test]
    fn each_finished_call_logs_one_line_and_only_an_undeclared_server_failure_warns() {
        let observe = Arc::new(Observe::default());
        let call = || Call::new(PrimitiveKind::Tool, "search", &Context::new("search", &[]), &observe);
        let started = std::time::Instant::now();
        let cases = [
            (None, tracing::Level::INFO, "call finished"),
            (
                Some(McpError::internal_error("the index is corrupt")),
                tracing::Level::WARN,
                "call failed on the server's side",
            ),
            (
                Some(McpError::database_error("no connection").with_reason("catalog_offline")),
                tracing::Level::INFO,
                "call finished with an error",
            ),
            (Some(McpError::not_found("no object 7")), tracing::Level::INFO, "call finished with an error"),
        ];
        for (err, level, message) in cases {
            let seen = levels(|| call().finished(&tracing::Span::none(), started, err.as_ref().map_or(Ok(()), Err)));
            assert_eq!(seen, vec![(level, message.to_owned())], "{err:?}");
        }
        let seen = levels(|| call().completion().finished(&tracing::Span::none(), started, Ok(())));
        assert_eq!(seen, vec![(tracing::Level::DEBUG, "completion finished".to_owned())]);
    }

    #[test]
    fn a_declared_severity_sets_the_level_of_its_line_and_notice_is_info() {
        use crate::error::{ErrorSeverity, JsonRpcErrorCode};
        static CONTRACT: [ErrorContract; 3] = [
            ErrorContract::new("declined", JsonRpcErrorCode::InvalidRequest, "w", "r")
                .with_severity(ErrorSeverity::Debug),
            ErrorContract::new("quota", JsonRpcErrorCode::RateLimited, "w", "r").with_severity(ErrorSeverity::Warning),
            ErrorContract::new("miss", JsonRpcErrorCode::NotFound, "w", "r").with_severity(ErrorSeverity::Notice),
        ];
        let observe = Arc::new(Observe::default());
        let started = std::time::Instant::now();
        for (reason, level) in
            [("declined", tracing::Level::DEBUG), ("quota", tracing::Level::WARN), ("miss", tracing::Level::INFO)]
        {
            let call = Call::new(PrimitiveKind::Tool, "search", &Context::new("search", &CONTRACT), &observe);
            let err = McpError::not_found("x").with_reason(reason);
            let seen = levels(|| call.finished(&tracing::Span::none(), started, Err(&err)));
            assert_eq!(seen, vec![(level, "call finished with an error".to_owned())], "{reason}");
        }
    }

    #[test]
    fn every_answer_carries_the_calls_request_id_and_the_declared_hint() {
        use crate::error::JsonRpcErrorCode;
        static CONTRACT: [ErrorContract; 1] =
            [ErrorContract::new("miss", JsonRpcErrorCode::NotFound, "w", "Search first.")];
        let observe = Arc::new(Observe::default());
        let call = Call::new(PrimitiveKind::Tool, "search", &Context::new("search", &CONTRACT), &observe);
        // Built below the handler, by a service that knows the reason only.
        let answer = call.answer(&McpError::not_found("No object 7.").with_reason("miss"));
        assert_eq!(answer.request_id(), Some(&*call.request_id));
        assert_eq!(answer.recovery_hint(), Some("Search first."));
        let undeclared = call.answer(&McpError::conflict("Exists."));
        assert_eq!(undeclared.request_id(), Some(&*call.request_id));
        assert!(undeclared.recovery_hint().is_none());
        let protocol = call.answer(&McpError::conflict("Exists.").into_protocol_error());
        assert!(protocol.is_protocol_error());
    }

    /// A request whose client cancelled it, or went away, is answered
    /// RequestCancelled with its request id (for a client still listening:
    /// rmcp drops the answer of one cancelled by `notifications/cancelled`),
    /// logged at INFO; and so is a handler's error once it was cancelled.
    #[test]
    fn a_cancelled_request_is_answered_request_cancelled_and_logged_at_info() {
        use crate::error::JsonRpcErrorCode;
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let observe = Arc::new(Observe::default());
        let call = || Call::new(PrimitiveKind::Resource, "ledger", &Context::new("ledger", &[]), &observe);

        let cancellation = CancellationToken::new();
        cancellation.cancel();
        let hangs: BoxFuture<'_, Result<(), McpError>> = Box::pin(std::future::pending());
        let answer = runtime.block_on(guarded(hangs, &cancellation, call())).unwrap_err();
        assert_eq!(answer.code.0, JsonRpcErrorCode::RequestCancelled.as_i32());
        let data = answer.data.expect("data");
        assert!(data["requestId"].as_str().is_some_and(|id| id.len() == 11), "{data}");

        let cancellation = CancellationToken::new();
        let token = cancellation.clone();
        let fails_after: BoxFuture<'_, Result<(), McpError>> = Box::pin(async move {
            token.cancel();
            Err(McpError::service_unavailable("the upstream call was cut"))
        });
        let answer = runtime.block_on(guarded(fails_after, &cancellation, call())).unwrap_err();
        assert_eq!(answer.code.0, -32011, "the cancellation's, not the handler's: {answer:?}");

        let cancellation = CancellationToken::new();
        cancellation.cancel();
        let seen = levels(|| {
            let hangs: BoxFuture<'_, Result<(), McpError>> = Box::pin(std::future::pending());
            let _ = runtime.block_on(guarded(hangs, &cancellation, call()));
        });
        assert_eq!(seen, vec![(tracing::Level::INFO, "call cancelled by the client".to_owned())]);
    }
}

#[cfg(test)]
mod repairs {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use super::*;
    use crate::define::InputAlias;

    /// The `repairs` field of every event logged while `log` runs.
    fn repairs_logged(log: impl FnOnce()) -> Vec<Option<String>> {
        struct Seen(Arc<Mutex<Vec<Option<String>>>>);
        struct Field<'a>(&'a mut Option<String>);
        impl tracing::field::Visit for Field<'_> {
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                if field.name() == "repairs" {
                    *self.0 = Some(value.to_owned());
                }
            }
            fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
        }
        impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Seen {
            fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
                let mut repairs = None;
                event.record(&mut Field(&mut repairs));
                self.0.lock().unwrap().push(repairs);
            }
        }
        use tracing_subscriber::layer::SubscriberExt as _;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Seen(Arc::clone(&seen)));
        tracing::subscriber::with_default(subscriber, log);
        seen.lock().unwrap().clone()
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code, reason = "only its schema is read")]
    struct Input {
        query: String,
        limit: Option<u32>,
    }

    const ALIASES: &[InputAlias] = &[InputAlias::new("query", &["q"])];

    #[test]
    fn the_call_s_log_line_lists_its_repairs_unless_repair_is_off() {
        let definition =
            ToolDefinition::new("search", crate::schema::input_schema::<Input>()).with_input_aliases(ALIASES);
        let sent = json!({"q": "vase", "limit": "5"}).as_object().unwrap().clone();
        let on = Arc::new(Observe { repair_arguments: true, ..Observe::default() });
        let seen = repairs_logged(|| {
            let mut call = Call::new(PrimitiveKind::Tool, "search", &Context::new("search", &[]), &on);
            let mut arguments = sent.clone();
            let repairs = call.repair(&definition, &mut arguments, &tracing::Span::none());
            assert_eq!(repairs.len(), 2);
            assert_eq!(serde_json::Value::Object(arguments), json!({"query": "vase", "limit": 5}));
            call.finished(&tracing::Span::none(), std::time::Instant::now(), Ok(()));
        });
        assert_eq!(seen, [Some("aliased:q->query, string_as_number:limit".to_owned())]);

        let off = Arc::new(Observe { repair_arguments: false, ..Observe::default() });
        let seen = repairs_logged(|| {
            let mut call = Call::new(PrimitiveKind::Tool, "search", &Context::new("search", &[]), &off);
            let mut arguments = sent.clone();
            assert!(call.repair(&definition, &mut arguments, &tracing::Span::none()).is_empty());
            assert_eq!(arguments, sent);
            call.finished(&tracing::Span::none(), std::time::Instant::now(), Ok(()));
        });
        assert_eq!(seen, [None]);
        // The tool's own switch, with the server's on.
        let strict = definition.clone().with_argument_repair(false);
        let mut call = Call::new(PrimitiveKind::Tool, "search", &Context::new("search", &[]), &on);
        let mut arguments = sent.clone();
        assert!(call.repair(&strict, &mut arguments, &tracing::Span::none()).is_empty());
    }
}
