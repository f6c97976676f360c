//! The caller of a request: its [`AuthInfo`] (read from a verified bearer token
//! by [`auth`](crate::auth)), the [`ScopePolicy`] a server applies, and
//! [`check_scopes`] for scopes computed at run time.

use std::collections::BTreeSet;
use std::fmt;

use serde_json::Value;

use super::Context;
use crate::error::{JsonObject, McpError};

/// The caller of a tool, read from a verified bearer token.
///
/// The token itself is not kept: nothing that holds an `AuthInfo` can leak it.
///
/// ```
/// use mcp_contract::auth::AuthInfo;
/// let claims = serde_json::json!({
///     "sub": "user-7", "cid": "desk-app", "tid": "museum-north",
///     "scp": ["objects:read"], "scope": "images:read objects:read",
/// });
/// let caller = AuthInfo::from_claims(claims.as_object().unwrap()).unwrap();
/// assert_eq!(caller.client_id.as_deref(), Some("desk-app"));
/// assert_eq!(caller.tenant.as_deref(), Some("museum-north"));
/// assert!(caller.has_scope("images:read") && caller.has_scope("objects:read"));
/// ```
#[derive(Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AuthInfo {
    /// The OAuth client that obtained the token: `cid`, else `client_id`, else `azp`.
    pub client_id: Option<String>,
    /// The subject the token speaks for (`sub`): a user, or the client itself.
    pub subject: Option<String>,
    /// The granted scopes: the union of `scp`, `scope` and `mcp_tool_scopes`, sorted.
    pub scopes: BTreeSet<String>,
    /// The tenant (`tid`), validated by [`validate_tenant`].
    pub tenant: Option<String>,
    /// When the token expires (`exp`), in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// Every claim of the token, for what the fields above do not cover.
    pub claims: JsonObject,
}

impl AuthInfo {
    /// Who calls, as the rate limit, a call's log line and a session's owner
    /// name it: the subject, else the client id.
    #[cfg(feature = "rmcp")]
    pub(crate) fn name(&self) -> Option<&str> {
        self.subject.as_deref().or(self.client_id.as_deref())
    }

    /// The caller a token's (already verified) claims describe.
    ///
    /// # Errors
    ///
    /// A [`ClaimsError`] when a claim the server relies on has the wrong shape,
    /// or the tenant is not a safe identifier. The error names the claim, never its value.
    pub fn from_claims(claims: &JsonObject) -> Result<Self, ClaimsError> {
        let string = |name: &'static str| match claims.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(value)) => Ok(Some(value.clone())),
            Some(_) => Err(ClaimsError::Malformed { claim: name }),
        };
        let client_id = match string("cid")? {
            Some(cid) => Some(cid),
            None => match string("client_id")? {
                Some(id) => Some(id),
                None => string("azp")?,
            },
        };
        let tenant = string("tid")?;
        if let Some(tenant) = &tenant {
            validate_tenant(tenant)?;
        }
        let mut scopes = BTreeSet::new();
        for claim in ["scp", "scope", "mcp_tool_scopes"] {
            add_scopes(&mut scopes, claims.get(claim), claim)?;
        }
        Ok(Self {
            client_id,
            subject: string("sub")?,
            scopes,
            tenant,
            expires_at: claims.get("exp").and_then(Value::as_u64),
            claims: claims.clone(),
        })
    }

    /// A caller with these scopes and nothing else: for tests of handlers that
    /// read the caller.
    pub fn with_scopes(scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self { scopes: scopes.into_iter().map(Into::into).collect(), ..Self::default() }
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }

    /// The scopes of `required` the token does not grant, in the order given.
    pub fn missing_scopes<'a>(&self, required: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
        let mut missing: Vec<&str> = Vec::new();
        for scope in required {
            if !self.has_scope(scope) && !missing.contains(&scope) {
                missing.push(scope);
            }
        }
        missing
    }
}

impl fmt::Debug for AuthInfo {
    // The claims stay out of logs: they may hold personal data (names, e-mail).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthInfo")
            .field("client_id", &self.client_id)
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("tenant", &self.tenant)
            .finish_non_exhaustive()
    }
}

/// `scp` as an array (or one string), `scope` space-separated, `mcp_tool_scopes` either way.
fn add_scopes(scopes: &mut BTreeSet<String>, value: Option<&Value>, claim: &'static str) -> Result<(), ClaimsError> {
    match value {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(list)) => {
            scopes.extend(list.split_whitespace().map(str::to_owned));
            Ok(())
        }
        Some(Value::Array(items)) => {
            for item in items {
                let Value::String(scope) = item else {
                    return Err(ClaimsError::Malformed { claim });
                };
                scopes.extend(scope.split_whitespace().map(str::to_owned));
            }
            Ok(())
        }
        Some(_) => Err(ClaimsError::Malformed { claim }),
    }
}

/// The longest tenant id accepted.
pub const MAX_TENANT_LEN: usize = 128;

/// Check a tenant id (`tid`) before anything uses it as a key or a path
/// segment: 1 to 128 ASCII letters, digits, `-`, `_` or `.`, and no `..`.
///
/// ```
/// use mcp_contract::auth::validate_tenant;
/// assert!(validate_tenant("museum-north.eu_1").is_ok());
/// assert!(validate_tenant("../etc").is_err());
/// ```
///
/// # Errors
///
/// [`ClaimsError::InvalidTenant`] otherwise.
pub fn validate_tenant(tenant: &str) -> Result<(), ClaimsError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if tenant.is_empty() || tenant.len() > MAX_TENANT_LEN || !tenant.chars().all(allowed) || tenant.contains("..") {
        return Err(ClaimsError::InvalidTenant);
    }
    Ok(())
}

/// Why a verified token's claims cannot describe a caller. The messages name
/// the claim, never its value.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClaimsError {
    /// A claim has the wrong JSON type (a number where a string belongs, ..).
    Malformed {
        /// The claim's name.
        claim: &'static str,
    },
    /// The `tid` claim is not a safe tenant id (see [`validate_tenant`]).
    InvalidTenant,
}

impl fmt::Display for ClaimsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed { claim } => write!(f, "the token's `{claim}` claim has the wrong type"),
            Self::InvalidTenant => write!(
                f,
                "the token's `tid` claim is not a valid tenant id (1 to {MAX_TENANT_LEN} letters, digits, `-`, `_` \
                 or `.`, without `..`)"
            ),
        }
    }
}

impl std::error::Error for ClaimsError {}

/// How a server treats declared scopes; the transport decides it per call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ScopePolicy {
    /// No authentication on this transport (stdio, or mode `none`): scopes are not checked.
    #[default]
    Open,
    /// Every call needs a verified caller holding the scopes.
    Enforced,
    /// Callers are authenticated, but `MCP_AUTH_DISABLE_SCOPE_CHECKS` turned scope checks off.
    Bypassed,
}

/// Refuse the call unless the caller holds every scope of `required`: for
/// scopes computed at run time, for example from the input. The server runs
/// the same check with a tool's declared `auth(..)` scopes before its handler.
///
/// - without authentication on the transport (stdio, mode `none`), or with
///   scope checks disabled, it passes;
/// - with authentication but no caller on the context: `Unauthorized` (-32006);
/// - with scopes missing: `Forbidden` (-32005), `data.missingScopes` listing
///   them (and not the scopes the caller has).
///
/// ```
/// use mcp_contract::auth::{AuthInfo, ScopePolicy, check_scopes};
/// use mcp_contract::{Context, JsonRpcErrorCode};
/// use std::sync::Arc;
///
/// let caller = Arc::new(AuthInfo::with_scopes(["objects:read"]));
/// let ctx = Context::new("edit_object", &[]).with_auth(ScopePolicy::Enforced, Some(caller));
/// let department = "ceramics";
/// let err = check_scopes(&ctx, ["objects:read".to_owned(), format!("objects:write:{department}")]).unwrap_err();
/// assert_eq!(err.code(), JsonRpcErrorCode::Forbidden);
/// assert_eq!(err.data().unwrap()["missingScopes"], serde_json::json!(["objects:write:ceramics"]));
/// ```
///
/// # Errors
///
/// The `Forbidden` or `Unauthorized` [`McpError`] above.
pub fn check_scopes<S: AsRef<str>>(ctx: &Context, required: impl IntoIterator<Item = S>) -> Result<(), McpError> {
    match ctx.scope_policy() {
        ScopePolicy::Open | ScopePolicy::Bypassed => Ok(()),
        ScopePolicy::Enforced => {
            let required: Vec<S> = required.into_iter().collect();
            if required.is_empty() {
                return Ok(());
            }
            let Some(caller) = ctx.auth() else {
                return Err(McpError::unauthorized(format!(
                    "The tool `{}` needs an authenticated caller, and this call carries none. Send a bearer token \
                     in the Authorization header.",
                    ctx.tool_name()
                )));
            };
            let missing = caller.missing_scopes(required.iter().map(AsRef::as_ref));
            if missing.is_empty() {
                return Ok(());
            }
            Err(McpError::forbidden(format!(
                "The caller's token lacks the scope{} `{}` that the tool `{}` needs. Ask the authorization server for \
                 a token with {}.",
                if missing.len() == 1 { "" } else { "s" },
                missing.join("`, `"),
                ctx.tool_name(),
                if missing.len() == 1 { "that scope" } else { "those scopes" },
            ))
            .with_data_field("missingScopes", missing))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::error::JsonRpcErrorCode;

    fn claims(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn scopes_from_each_of_the_three_claims() {
        let scp = AuthInfo::from_claims(&claims(json!({"scp": ["a:read", "b:read"]}))).unwrap();
        assert_eq!(scp.scopes, BTreeSet::from(["a:read".to_owned(), "b:read".to_owned()]));
        let scope = AuthInfo::from_claims(&claims(json!({"scope": "a:read  b:write"}))).unwrap();
        assert_eq!(scope.scopes, BTreeSet::from(["a:read".to_owned(), "b:write".to_owned()]));
        let tool_string = AuthInfo::from_claims(&claims(json!({"mcp_tool_scopes": "t:run"}))).unwrap();
        assert_eq!(tool_string.scopes, BTreeSet::from(["t:run".to_owned()]));
        let tool_array = AuthInfo::from_claims(&claims(json!({"mcp_tool_scopes": ["t:run", "t:stop"]}))).unwrap();
        assert_eq!(tool_array.scopes, BTreeSet::from(["t:run".to_owned(), "t:stop".to_owned()]));
    }

    #[test]
    fn scopes_are_the_union_of_the_claims() {
        let caller = AuthInfo::from_claims(&claims(json!({
            "scp": ["a"], "scope": "b a", "mcp_tool_scopes": ["c"],
        })))
        .unwrap();
        assert_eq!(caller.scopes.iter().map(String::as_str).collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn client_id_prefers_cid_then_client_id_then_azp() {
        let id = |value| AuthInfo::from_claims(&claims(value)).unwrap().client_id;
        assert_eq!(id(json!({"cid": "x", "client_id": "y", "azp": "z"})).as_deref(), Some("x"));
        assert_eq!(id(json!({"client_id": "y", "azp": "z"})).as_deref(), Some("y"));
        assert_eq!(id(json!({"azp": "z"})).as_deref(), Some("z"));
        assert_eq!(id(json!({})), None);
    }

    #[test]
    fn malformed_claims_are_named_without_their_value() {
        let err = AuthInfo::from_claims(&claims(json!({"scp": [1, "secret-value"]}))).unwrap_err();
        assert_eq!(err, ClaimsError::Malformed { claim: "scp" });
        assert!(!err.to_string().contains("secret-value"));
        let err = AuthInfo::from_claims(&claims(json!({"sub": 5}))).unwrap_err();
        assert_eq!(err, ClaimsError::Malformed { claim: "sub" });
    }

    #[test]
    fn tenants_are_validated() {
        for good in ["a", "museum-north", "eu_1.prod", &"t".repeat(MAX_TENANT_LEN)] {
            assert_eq!(validate_tenant(good), Ok(()), "{good}");
        }
        for bad in ["", "..", "a..b", "../x", "a/b", "a b", "ä", "a\n", &"t".repeat(MAX_TENANT_LEN + 1)] {
            assert_eq!(validate_tenant(bad), Err(ClaimsError::InvalidTenant), "{bad:?}");
        }
        let err = AuthInfo::from_claims(&claims(json!({"tid": "../../etc"}))).unwrap_err();
        assert_eq!(err, ClaimsError::InvalidTenant);
        assert!(!err.to_string().contains("etc"));
    }

    fn ctx(policy: ScopePolicy, caller: Option<AuthInfo>) -> Context {
        Context::new("edit_object", &[]).with_auth(policy, caller.map(Arc::new))
    }

    #[test]
    fn missing_scopes_are_forbidden_naming_only_the_missing_ones() {
        let caller = AuthInfo::with_scopes(["objects:read", "private:granted"]);
        let err =
            check_scopes(&ctx(ScopePolicy::Enforced, Some(caller)), ["objects:read", "objects:write"]).unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::Forbidden);
        assert_eq!(Value::Object(err.data().unwrap().clone()), json!({"missingScopes": ["objects:write"]}));
        assert!(err.message().contains("`objects:write`") && err.message().contains("`edit_object`"));
        assert!(!err.message().contains("private:granted"));
    }

    #[test]
    fn granted_scopes_pass() {
        let caller = AuthInfo::with_scopes(["objects:read", "objects:write"]);
        assert!(check_scopes(&ctx(ScopePolicy::Enforced, Some(caller)), ["objects:write", "objects:read"]).is_ok());
    }

    #[test]
    fn no_caller_where_one_is_needed_is_unauthorized() {
        let err = check_scopes(&ctx(ScopePolicy::Enforced, None), ["objects:read"]).unwrap_err();
        assert_eq!(err.code(), JsonRpcErrorCode::Unauthorized);
        // A tool without scopes needs no caller.
        assert!(check_scopes(&ctx(ScopePolicy::Enforced, None), Vec::<String>::new()).is_ok());
    }

    #[test]
    fn open_and_bypassed_policies_pass() {
        assert!(check_scopes(&ctx(ScopePolicy::Open, None), ["objects:write"]).is_ok());
        let caller = AuthInfo::with_scopes(["objects:read"]);
        assert!(check_scopes(&ctx(ScopePolicy::Bypassed, Some(caller)), ["objects:write"]).is_ok());
        assert!(check_scopes(&Context::new("t", &[]), ["objects:write"]).is_ok(), "a plain context is open");
    }
}
