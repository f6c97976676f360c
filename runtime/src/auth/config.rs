//! [`AuthConfig`]: the auth mode and its settings, from code or from the
//! environment with the reference framework's variable names.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use super::env::{self, AuthMode, MIN_SECRET_LEN};
use super::error::AuthConfigError;

impl FromStr for AuthMode {
    type Err = AuthConfigError;

    fn from_str(value: &str) -> Result<Self, AuthConfigError> {
        match value.trim().to_ascii_lowercase().as_str() {
            "" | "none" => Ok(Self::None),
            "jwt" => Ok(Self::Jwt),
            "oauth" => Ok(Self::Oauth),
            _ => Err(AuthConfigError::UnknownMode { value: value.to_owned() }),
        }
    }
}

/// A shared secret. Its `Debug` shows no byte of it, so a config can be logged.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Box<[u8]>);

impl Secret {
    /// Wrap the secret's bytes.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into().into_boxed_slice())
    }

    /// The bytes, for the verifier.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The auth settings of a server's Streamable HTTP transport.
///
/// Set it in code with [`Server::auth`](crate::server::Server::auth), or leave
/// it unset and the transport reads [`AuthConfig::from_env`] when it starts, so
/// a deployment switches modes without a rebuild. Stdio never authenticates.
///
/// ```
/// use mcp_contract::auth::{AuthConfig, AuthMode};
/// let jwt = AuthConfig::jwt("a shared secret of at least 32 bytes!!");
/// assert!(jwt.validate().is_ok());
/// assert!(AuthConfig::jwt("too short").validate().is_err());
///
/// let oauth = AuthConfig::oauth("https://auth.example.org", "https://museum.example.org/mcp")
///     .resource_identifier("https://museum.example.org/mcp");
/// assert_eq!(oauth.mode(), AuthMode::Oauth);
/// assert_eq!(oauth.jwks_uri().as_deref(), Some("https://auth.example.org/.well-known/jwks.json"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub struct AuthConfig {
    mode: AuthMode,
    secret: Option<Secret>,
    issuer: Option<String>,
    audience: Option<String>,
    jwks_uri: Option<String>,
    resource_identifier: Option<String>,
    disable_scope_checks: bool,
    leeway: Duration,
    jwks_cooldown: Duration,
    jwks_max_age: Duration,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self::none()
    }
}

impl AuthConfig {
    /// No authentication.
    pub fn none() -> Self {
        Self {
            mode: AuthMode::None,
            secret: None,
            issuer: None,
            audience: None,
            jwks_uri: None,
            resource_identifier: None,
            disable_scope_checks: false,
            leeway: Duration::from_secs(60),
            jwks_cooldown: Duration::from_secs(30),
            jwks_max_age: Duration::from_secs(600),
        }
    }

    /// HS256 tokens signed with `secret` (at least [`MIN_SECRET_LEN`] bytes,
    /// checked by [`Self::validate`]).
    pub fn jwt(secret: impl Into<Vec<u8>>) -> Self {
        Self { mode: AuthMode::Jwt, secret: Some(Secret::new(secret)), ..Self::none() }
    }

    /// Tokens of the OAuth authorization server `issuer`, for `audience`,
    /// verified against the issuer's JWKS.
    pub fn oauth(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        Self { mode: AuthMode::Oauth, issuer: Some(issuer.into()), audience: Some(audience.into()), ..Self::none() }
    }

    /// The configuration the environment describes (see [`env`](self::env) for
    /// the variable names); mode `none` when `MCP_AUTH_MODE` is unset.
    ///
    /// # Errors
    ///
    /// An [`AuthConfigError`] for an unknown mode or flag value, or a mode whose
    /// settings are missing or unsafe ([`Self::validate`]). Never a silent fallback
    /// to `none`.
    pub fn from_env() -> Result<Self, AuthConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] over any source of variables, for tests and config files.
    ///
    /// ```
    /// use mcp_contract::auth::AuthConfig;
    /// let vars = [("MCP_AUTH_MODE", "jwt"), ("MCP_AUTH_SECRET_KEY", "0123456789abcdef0123456789abcdef")];
    /// let lookup = |name: &str| vars.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string());
    /// assert_eq!(AuthConfig::from_lookup(lookup).unwrap().mode().as_str(), "jwt");
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Self::from_env`].
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, AuthConfigError> {
        // An empty variable counts as unset, as shells and .env files often leave them.
        let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let mode: AuthMode = get(env::MODE).as_deref().unwrap_or("none").parse()?;
        let mut config = Self { mode, ..Self::none() };
        config.secret = get(env::SECRET_KEY).map(Secret::new);
        config.issuer = get(env::ISSUER_URL);
        config.audience = get(env::AUDIENCE);
        config.jwks_uri = get(env::JWKS_URI);
        config.resource_identifier = get(env::RESOURCE_IDENTIFIER);
        config.disable_scope_checks = match get(env::DISABLE_SCOPE_CHECKS) {
            None => false,
            Some(value) => match env::flag(&value) {
                Some(on) => on,
                None => return Err(AuthConfigError::InvalidFlag { variable: env::DISABLE_SCOPE_CHECKS, value }),
            },
        };
        config.validate()?;
        Ok(config)
    }

    /// Where the issuer's keys are (`OAUTH_JWKS_URI`); `<issuer>/.well-known/jwks.json` by default.
    pub fn with_jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(uri.into());
        self
    }

    /// This server's resource identifier (RFC 8707): published as the `resource`
    /// of the protected-resource metadata, and, in mode `oauth`, required in the
    /// token's `aud` (or `resource`) claim, so a token minted for another server
    /// is refused here.
    pub fn resource_identifier(mut self, resource: impl Into<String>) -> Self {
        self.resource_identifier = Some(resource.into());
        self
    }

    /// Authenticate callers but do not check tools' scopes
    /// (`MCP_AUTH_DISABLE_SCOPE_CHECKS`). The server warns at startup.
    pub fn disable_scope_checks(mut self, disable: bool) -> Self {
        self.disable_scope_checks = disable;
        self
    }

    /// Clock skew tolerated on `exp` and `nbf`; 60 seconds by default.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The shortest time between two JWKS fetches caused by tokens with an
    /// unknown `kid`, so forged key ids cannot make the server hammer the
    /// issuer; 30 seconds by default.
    pub fn jwks_cooldown(mut self, cooldown: Duration) -> Self {
        self.jwks_cooldown = cooldown;
        self
    }

    /// How long fetched keys are trusted before they are fetched again; 10 minutes by default.
    pub fn jwks_max_age(mut self, max_age: Duration) -> Self {
        self.jwks_max_age = max_age;
        self
    }

    /// The mode.
    pub fn mode(&self) -> AuthMode {
        self.mode
    }

    /// The HS256 secret of mode `jwt`.
    pub fn secret(&self) -> Option<&Secret> {
        self.secret.as_ref()
    }

    /// The issuer URL of mode `oauth`.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The audience tokens must name.
    pub fn audience(&self) -> Option<&str> {
        self.audience.as_deref()
    }

    /// Where the issuer's keys are: the override, else `<issuer>/.well-known/jwks.json`.
    pub fn jwks_uri(&self) -> Option<String> {
        self.jwks_uri.clone().or_else(|| {
            self.issuer.as_ref().map(|issuer| format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/')))
        })
    }

    /// This server's resource identifier, when configured.
    pub fn resource(&self) -> Option<&str> {
        self.resource_identifier.as_deref()
    }

    /// Whether scope checks are disabled.
    pub fn scope_checks_disabled(&self) -> bool {
        self.disable_scope_checks
    }

    /// Clock skew tolerated on `exp` and `nbf`.
    pub fn leeway_duration(&self) -> Duration {
        self.leeway
    }

    /// See [`Self::jwks_cooldown`].
    pub fn jwks_cooldown_duration(&self) -> Duration {
        self.jwks_cooldown
    }

    /// See [`Self::jwks_max_age`].
    pub fn jwks_max_age_duration(&self) -> Duration {
        self.jwks_max_age
    }

    /// Check that the mode has what it needs: never start with an open door
    /// where a protected one was asked for.
    ///
    /// # Errors
    ///
    /// - `jwt`: [`AuthConfigError::MissingSecret`], [`AuthConfigError::SecretTooShort`];
    /// - `oauth`: [`AuthConfigError::MissingIssuer`], [`AuthConfigError::MissingAudience`],
    ///   [`AuthConfigError::InsecureUrl`] for keys fetched over plain HTTP from
    ///   anything but a loopback address.
    pub fn validate(&self) -> Result<(), AuthConfigError> {
        match self.mode {
            AuthMode::None => Ok(()),
            AuthMode::Jwt => match &self.secret {
                None => Err(AuthConfigError::MissingSecret),
                Some(secret) if secret.expose().len() < MIN_SECRET_LEN => Err(AuthConfigError::SecretTooShort),
                Some(_) => Ok(()),
            },
            AuthMode::Oauth => {
                let Some(issuer) = &self.issuer else {
                    return Err(AuthConfigError::MissingIssuer);
                };
                if self.audience.is_none() {
                    return Err(AuthConfigError::MissingAudience);
                }
                check_url(env::ISSUER_URL, issuer)?;
                if let Some(jwks_uri) = &self.jwks_uri {
                    check_url(env::JWKS_URI, jwks_uri)?;
                }
                Ok(())
            }
        }
    }
}

/// Keys fetched over plain HTTP could be swapped in transit; only a loopback
/// issuer (a local test or a sidecar) may skip TLS.
fn check_url(variable: &'static str, url: &str) -> Result<(), AuthConfigError> {
    if url.starts_with("https://") {
        return Ok(());
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(AuthConfigError::InvalidUrl { variable });
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.rsplit_once(':').map_or(authority, |(host, _port)| host),
    };
    let loopback =
        host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if loopback { Ok(()) } else { Err(AuthConfigError::InsecureUrl { variable }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<AuthConfig, AuthConfigError> {
        AuthConfig::from_lookup(|name| vars.iter().find(|(key, _)| *key == name).map(|(_, value)| (*value).to_owned()))
    }

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn unset_mode_is_none() {
        assert_eq!(from(&[]).unwrap().mode(), AuthMode::None);
        assert_eq!(from(&[(env::MODE, "  ")]).unwrap().mode(), AuthMode::None);
    }

    #[test]
    fn jwt_needs_a_long_enough_secret() {
        assert_eq!(from(&[(env::MODE, "jwt")]), Err(AuthConfigError::MissingSecret));
        assert_eq!(from(&[(env::MODE, "jwt"), (env::SECRET_KEY, "")]), Err(AuthConfigError::MissingSecret));
        let short = &SECRET[..31];
        let err = from(&[(env::MODE, "JWT"), (env::SECRET_KEY, short)]).unwrap_err();
        assert_eq!(err, AuthConfigError::SecretTooShort);
        assert!(!err.to_string().contains(short), "the message never shows the secret");
        let config = from(&[(env::MODE, "jwt"), (env::SECRET_KEY, SECRET)]).unwrap();
        assert_eq!(config.secret().unwrap().expose(), SECRET.as_bytes());
        assert!(!format!("{config:?}").contains(SECRET), "Debug redacts the secret");
    }

    #[test]
    fn oauth_reads_the_reference_variables() {
        let config = from(&[
            (env::MODE, "oauth"),
            (env::ISSUER_URL, "https://auth.example.org/"),
            (env::AUDIENCE, "museum"),
            (env::RESOURCE_IDENTIFIER, "https://museum.example.org/mcp"),
            (env::DISABLE_SCOPE_CHECKS, "true"),
        ])
        .unwrap();
        assert_eq!(config.mode(), AuthMode::Oauth);
        assert_eq!(config.issuer(), Some("https://auth.example.org/"));
        assert_eq!(config.audience(), Some("museum"));
        assert_eq!(config.jwks_uri().as_deref(), Some("https://auth.example.org/.well-known/jwks.json"));
        assert_eq!(config.resource(), Some("https://museum.example.org/mcp"));
        assert!(config.scope_checks_disabled());
        let config = from(&[
            (env::MODE, "oauth"),
            (env::ISSUER_URL, "https://auth.example.org"),
            (env::AUDIENCE, "museum"),
            (env::JWKS_URI, "https://keys.example.org/jwks"),
        ])
        .unwrap();
        assert_eq!(config.jwks_uri().as_deref(), Some("https://keys.example.org/jwks"));
        assert!(!config.scope_checks_disabled());
    }

    #[test]
    fn oauth_settings_are_checked() {
        assert_eq!(from(&[(env::MODE, "oauth")]), Err(AuthConfigError::MissingIssuer));
        assert_eq!(
            from(&[(env::MODE, "oauth"), (env::ISSUER_URL, "https://a.example")]),
            Err(AuthConfigError::MissingAudience)
        );
        let oauth = |issuer: &str| AuthConfig::oauth(issuer, "aud").validate();
        assert_eq!(oauth("http://auth.example.org"), Err(AuthConfigError::InsecureUrl { variable: env::ISSUER_URL }));
        assert_eq!(oauth("ftp://auth.example.org"), Err(AuthConfigError::InvalidUrl { variable: env::ISSUER_URL }));
        for loopback in ["http://127.0.0.1:9000", "http://localhost:1/x", "http://[::1]:80/", "http://127.0.0.1"] {
            assert_eq!(oauth(loopback), Ok(()), "{loopback}");
        }
        let remote_keys = AuthConfig::oauth("https://a.example", "aud").with_jwks_uri("http://10.0.0.1/jwks");
        assert_eq!(remote_keys.validate(), Err(AuthConfigError::InsecureUrl { variable: env::JWKS_URI }));
    }

    #[test]
    fn bad_values_are_errors_not_defaults() {
        assert_eq!(from(&[(env::MODE, "basic")]), Err(AuthConfigError::UnknownMode { value: "basic".to_owned() }));
        assert!(matches!(
            from(&[(env::DISABLE_SCOPE_CHECKS, "maybe")]),
            Err(AuthConfigError::InvalidFlag { variable: env::DISABLE_SCOPE_CHECKS, .. })
        ));
    }
}
