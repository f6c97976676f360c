//! The error contract: the failure modes a tool, resource or prompt declares
//! ([`ErrorContract`]), and the [`Reason`] enum the macros generate from them.

use serde::Serialize;

use super::JsonRpcErrorCode;

/// One declared failure mode of a tool: `errors(reason(code = .., when = .., recovery = ..))`.
///
/// Published to clients in `tools/list` so that agents can plan around failures.
/// Built with [`ErrorContract::new`], in a `const` too:
///
/// ```
/// use mcp_contract::{ErrorContract, JsonRpcErrorCode};
///
/// const CONTRACT: &[ErrorContract] = &[
///     ErrorContract::new(
///         "not_in_collection",
///         JsonRpcErrorCode::NotFound,
///         "No object has this ID",
///         "Search with search_objects first to find valid object IDs.",
///     ),
///     ErrorContract::new(
///         "upstream_busy",
///         JsonRpcErrorCode::RateLimited,
///         "The collection API throttles us",
///         "Wait thirty seconds, then call get_object again.",
///     )
///     .with_retryable(true),
/// ];
/// assert!(CONTRACT[1].retryable);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct ErrorContract {
    /// The stable snake_case name, sent as `data.reason`.
    pub reason: &'static str,
    /// The JSON-RPC code an error of this reason carries.
    pub code: JsonRpcErrorCode,
    /// When this failure happens, in words for the model.
    pub when: &'static str,
    /// What the model should do next; sent as `data.recovery.hint` with every
    /// error of this reason, unless [`recovery_private`](Self::recovery_private).
    pub recovery: &'static str,
    /// Whether the same call may succeed later.
    pub retryable: bool,
    /// The log level of a failure of this reason, when the default overstates
    /// it (see [`ErrorSeverity`]); `None` keeps the server's default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<ErrorSeverity>,
    /// Keep the hint out of the answer: an error of this reason reaches the
    /// client without `data.recovery.hint`, unless the call site opts it in
    /// with [`McpError::with_recovery`](crate::error::McpError::with_recovery).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recovery_private: bool,
}

impl ErrorContract {
    /// A failure mode that retrying the same call does not fix.
    pub const fn new(reason: &'static str, code: JsonRpcErrorCode, when: &'static str, recovery: &'static str) -> Self {
        Self { reason, code, when, recovery, retryable: false, severity: None, recovery_private: false }
    }

    /// Say whether the same call may succeed later.
    #[must_use]
    pub const fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// Log a failure of this reason at `severity`.
    #[must_use]
    pub const fn with_severity(mut self, severity: ErrorSeverity) -> Self {
        self.severity = Some(severity);
        self
    }

    /// Keep the recovery hint out of the answer (see [`recovery_private`](Self::recovery_private)).
    #[must_use]
    pub const fn with_recovery_private(mut self) -> Self {
        self.recovery_private = true;
        self
    }
}

/// The log level of a declared failure, as a contract entry's `severity`
/// names it: the reference's four levels below `error` (since its 0.13.5).
///
/// A declared failure is a modelled answer, not an incident: a lookup that
/// misses, a caller who declined. Its call logs at INFO by default; a severity
/// moves that one line, nothing on the wire. `tracing` has no NOTICE, so
/// [`Notice`](Self::Notice) logs at INFO (as `log`'s and syslog's bridges map it).
///
/// ```
/// use mcp_contract::errors::ErrorSeverity;
/// assert_eq!(ErrorSeverity::from_name("notice"), Some(ErrorSeverity::Notice));
/// assert_eq!(ErrorSeverity::Notice.level(), tracing::Level::INFO);
/// assert_eq!(ErrorSeverity::from_name("error"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorSeverity {
    /// Logged at DEBUG.
    Debug,
    /// Logged at INFO.
    Info,
    /// Logged at INFO, `tracing` having no NOTICE.
    Notice,
    /// Logged at WARN.
    Warning,
}

impl ErrorSeverity {
    /// The names `severity = ..` accepts, in order.
    pub const NAMES: [&'static str; 4] = mcp_contract_rules::check::ERROR_SEVERITIES;

    /// The severity a name (`"notice"`) spells.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "debug" => Some(Self::Debug),
            "info" => Some(Self::Info),
            "notice" => Some(Self::Notice),
            "warning" => Some(Self::Warning),
            _ => None,
        }
    }

    /// The `tracing` level the failure's log line takes.
    pub fn level(self) -> tracing::Level {
        match self {
            Self::Debug => tracing::Level::DEBUG,
            Self::Info | Self::Notice => tracing::Level::INFO,
            Self::Warning => tracing::Level::WARN,
        }
    }
}

/// A reason enum generated by `#[mcp_tool]`, `#[mcp_resource]` or `#[mcp_prompt]`:
/// one variant per declared failure mode.
///
/// The generated enum gives the contract, every variant and each variant's
/// position; everything else is provided here once, for every tool, rather
/// than generated per tool.
///
/// ```
/// use mcp_contract::{ErrorContract, JsonRpcErrorCode, Reason};
///
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// enum Lookup {
///     NotFound,
/// }
///
/// impl Reason for Lookup {
///     const CONTRACT: &'static [ErrorContract] =
///         &[ErrorContract::new("not_found", JsonRpcErrorCode::NotFound, "No object has this ID", "Search first.")];
///     const ALL: &'static [Self] = &[Self::NotFound];
///
///     fn index(self) -> usize {
///         self as usize
///     }
/// }
///
/// assert_eq!(Lookup::NotFound.as_str(), "not_found");
/// assert_eq!(Lookup::NotFound.code(), JsonRpcErrorCode::NotFound);
/// assert_eq!(Lookup::ALL, [Lookup::NotFound]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a reason of an error contract",
    label = "this handler declares no such failure mode",
    note = "declare failure modes with `errors(reason_name(code = .., when = .., recovery = ..))` in `#[mcp_tool(..)]`, `#[mcp_resource(..)]` or `#[mcp_prompt(..)]`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#error-contract-empty"
)]
pub trait Reason: Copy + Send + Sync + 'static {
    /// Every declared failure mode of the tool, in declaration order.
    const CONTRACT: &'static [ErrorContract];

    /// Every reason, in declaration order: `ALL[i]` is the reason of `CONTRACT[i]`.
    const ALL: &'static [Self];

    /// This reason's position in [`Reason::CONTRACT`] and [`Reason::ALL`].
    fn index(self) -> usize;

    /// This reason's entry of the contract.
    fn contract(self) -> &'static ErrorContract {
        &Self::CONTRACT[self.index()]
    }

    /// The snake_case name, sent as `data.reason`.
    fn as_str(self) -> &'static str {
        self.contract().reason
    }

    /// The JSON-RPC code of an error of this reason.
    fn code(self) -> JsonRpcErrorCode {
        self.contract().code
    }

    /// When this failure happens.
    fn when(self) -> &'static str {
        self.contract().when
    }

    /// The recovery hint for the model.
    fn recovery(self) -> &'static str {
        self.contract().recovery
    }

    /// Whether the same call may succeed later.
    fn retryable(self) -> bool {
        self.contract().retryable
    }
}

/// The reason type of a handler that declares no error contract, and the
/// default of [`Ctx`](crate::call::Ctx)'s parameter. It has no values, and it
/// is not a [`Reason`], so such a handler's context has no `fail`: it builds
/// its errors with the factories of [`McpError`](crate::error::McpError).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoContract {}

/// Never implemented: the bound that makes `fail` on a contract-less tool,
/// resource or prompt a compile error with a message, rather than a puzzle
/// about trait bounds.
#[diagnostic::on_unimplemented(
    message = "this handler declares no error contract, so `ctx.fail` has no reasons to fail with",
    label = "no `errors(..)` in this handler's attribute",
    note = "declare the failure modes in its `#[mcp_tool(..)]`, `#[mcp_resource(..)]` or `#[mcp_prompt(..)]`: `errors(reason_name(code = NotFound, when = \"..\", recovery = \"..\"))`",
    note = "or build the error with a factory such as `McpError::not_found(..)`; see https://docs.rs/mcp-contract/latest/mcp_contract/rules/index.html#error-contract-empty"
)]
pub trait ContractDeclared {}
