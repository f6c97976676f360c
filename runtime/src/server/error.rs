//! [`ServerError`]: why a server could not be built or stopped serving, and
//! [`MissingState`], a state type a handler takes that was never registered.

use std::error::Error as StdError;
use std::fmt;

use crate::auth::AuthConfigError;
use crate::define::PrimitiveKind;
use crate::lint::LintReport;

/// Why a server could not be built or stopped serving.
///
/// Its `Debug` form is the readable message and its causes, because that is what
/// `fn main() -> Result<(), Box<dyn Error>>` prints when serving fails to start.
#[non_exhaustive]
pub enum ServerError {
    /// Two tools were registered under one name (rule `name-unique`).
    DuplicateTool {
        /// The name both tools carry.
        name: &'static str,
    },
    /// The definition linter found errors in the tools' definitions; the
    /// report holds every diagnostic, warnings included.
    Lint(LintReport),
    /// Tools take shared state that was never registered with [`Server::state`](crate::server::Server::state):
    /// each tool and state type, in registration order.
    MissingState(Vec<MissingState>),
    /// A resource or prompt has the name of another tool, resource or prompt
    /// (rule `name-unique`): names are one namespace across the three kinds.
    DuplicateName {
        /// The shared name.
        name: &'static str,
        /// The kind registered first under it.
        first: PrimitiveKind,
        /// The kind registered second.
        second: PrimitiveKind,
    },
    /// A resource's URI is not a valid RFC 6570 URI template (rule `uri-template-valid`).
    InvalidUriTemplate {
        /// The resource's name.
        resource: &'static str,
        /// What is wrong, and at which byte.
        error: mcp_contract_uri_template::ParseError,
    },
    /// A resource or prompt takes shared state that was never registered with
    /// [`Server::state`](crate::server::Server::state) (the first such type).
    MissingStateOf {
        /// Whether a resource or a prompt.
        kind: PrimitiveKind,
        /// Its name.
        name: &'static str,
        /// The state type's name.
        type_name: &'static str,
    },
    /// Two resources are registered under one URI or URI template.
    DuplicateResourceUri {
        /// The URI or template.
        uri: &'static str,
        /// The resource registered first.
        first: &'static str,
        /// The resource registered second.
        second: &'static str,
    },
    /// Binding the address or reading and writing the transport failed.
    Io(std::io::Error),
    /// [`Server::build`](crate::server::Server::build) was called before the state of [`Server::state_with`](crate::server::Server::state_with)
    /// was built: serve the server, or call [`Server::build_state`](crate::server::Server::build_state) first.
    StatePending {
        /// The state type's name.
        type_name: &'static str,
    },
    /// A factory of [`Server::state_with`](crate::server::Server::state_with) failed: the server does not start.
    StateFactory {
        /// The state type's name.
        type_name: &'static str,
        /// What the factory returned.
        error: Box<dyn StdError + Send + Sync>,
    },
    /// A hook of [`Server::on_serve`](crate::server::Server::on_serve) failed: the server does not serve.
    OnServe(Box<dyn StdError + Send + Sync>),
    /// The client's `initialize` handshake failed.
    Initialize(Box<rmcp::service::ServerInitializeError>),
    /// The task serving the connection ended abnormally.
    Task(tokio::task::JoinError),
    /// The auth configuration cannot protect the HTTP transport (a missing or
    /// short secret, a missing issuer, ..): the server does not start open.
    Auth(AuthConfigError),
    /// The URL given to [`Server::redis`](crate::server::Server::redis) is not a Redis URL.
    #[cfg(feature = "redis")]
    Redis(RedisUrlError),
    /// The folder of [`Server::skills_dir`](crate::server::Server::skills_dir) cannot be read, or
    /// holds skills that cannot be served (rules `skill-frontmatter`,
    /// `skill-files`, `skill-size-limit`): every problem, each with its fix.
    Skills {
        /// The folder.
        dir: std::path::PathBuf,
        /// What is wrong, one sentence each.
        problems: Vec<String>,
    },
    /// The key given to [`Server::request_state_key`](crate::server::Server::request_state_key) cannot sign a
    /// `requestState` (shorter than 32 bytes), or none could be drawn.
    RequestStateKey(String),
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateTool { name } => write!(
                f,
                "Two tools are registered under the name `{name}`; a client could only reach one of them. \
                 Rename one of the tools or register it once (rule `name-unique`: {})",
                mcp_contract_rules::docs_url("name-unique"),
            ),
            Self::DuplicateName { name, first, second } => write!(
                f,
                "A {second} is registered under the name `{name}`, which a {first} already has; names are unique \
                 across tools, resources and prompts. Rename one of them (rule `name-unique`: {})",
                mcp_contract_rules::docs_url("name-unique"),
            ),
            Self::InvalidUriTemplate { resource, error } => write!(
                f,
                "The URI of the resource `{resource}` is not a valid URI template: {error} \
                 (rule `uri-template-valid`: {})",
                mcp_contract_rules::docs_url("uri-template-valid"),
            ),
            Self::MissingStateOf { kind, name, type_name } => write!(
                f,
                "The {kind} `{name}` takes `State<{type_name}>`, which this server never registered; \
                 register the value with `Server::state(..)`, or its factory with `Server::state_with(..)`, before serving."
            ),
            Self::DuplicateResourceUri { uri, first, second } => write!(
                f,
                "The resources `{first}` and `{second}` are both registered under the URI `{uri}`; \
                 a client could only read one of them. Give each resource its own URI."
            ),
            Self::Lint(report) => {
                writeln!(f, "The tools' definitions do not pass the definition linter; the server was not built.")?;
                writeln!(f, "{report}")?;
                f.write_str("Fix the errors, or turn the linter off with `Server::lint_at_build(false)`.")
            }
            Self::MissingState(missing) => {
                f.write_str("Tools take shared state that this server never registered:")?;
                for MissingState { tool, type_name } in missing {
                    write!(f, " the tool `{tool}` takes `State<{type_name}>`;")?;
                }
                f.write_str(" register each value with `Server::state(..)`, or its factory with `Server::state_with(..)`, before serving.")
            }
            Self::StatePending { type_name } => write!(
                f,
                "The state `{type_name}` is built by its factory (`Server::state_with`) when the server is served; \
                 call `Server::build_state().await` before `Server::build`."
            ),
            Self::StateFactory { type_name, error } => write!(f, "Building the state `{type_name}` failed: {error}."),
            Self::OnServe(err) => write!(f, "A hook of `Server::on_serve` failed: {err}."),
            Self::Io(err) => write!(f, "The server's transport failed: {err}."),
            Self::Initialize(err) => write!(f, "The MCP initialize handshake failed: {err}."),
            Self::Task(err) => write!(f, "The task serving the connection failed: {err}."),
            Self::Auth(err) => write!(f, "The auth configuration is not usable: {err}."),
            #[cfg(feature = "redis")]
            Self::Redis(err) => write!(f, "{err}."),
            Self::Skills { dir, problems } => {
                write!(f, "The skills folder `{}` cannot be served:", dir.display())?;
                for problem in problems {
                    write!(f, "\n  - {problem}")?;
                }
                Ok(())
            }
            Self::RequestStateKey(why) => write!(
                f,
                "The requestState key cannot sign multi-round-trip requests: {why}. Give `Server::request_state_key(..)` a random secret of at least 32 bytes, the same on every replica."
            ),
        }
    }
}

/// The message and its causes, not the variant's fields: see [`ServerError`].
impl fmt::Debug for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)?;
        let mut source = self.source();
        while let Some(cause) = source {
            write!(f, "\n  caused by: {cause}")?;
            source = cause.source();
        }
        Ok(())
    }
}

impl StdError for ServerError {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Self::DuplicateTool { .. }
            | Self::Lint(_)
            | Self::MissingState(_)
            | Self::DuplicateName { .. }
            | Self::MissingStateOf { .. }
            | Self::DuplicateResourceUri { .. }
            | Self::StatePending { .. }
            | Self::StateFactory { .. }
            | Self::Skills { .. }
            | Self::RequestStateKey(_) => None,
            Self::InvalidUriTemplate { error, .. } => Some(error),
            Self::OnServe(err) => Some(&**err),
            Self::Io(err) => Some(err),
            Self::Initialize(err) => Some(&**err),
            Self::Task(err) => Some(err),
            Self::Auth(err) => Some(err),
            #[cfg(feature = "redis")]
            Self::Redis(_) => None,
        }
    }
}

/// A tool's shared state type that the server has no value of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingState {
    /// The tool's name.
    pub tool: &'static str,
    /// The state type's name, e.g. `museum::Collection`.
    pub type_name: &'static str,
}

impl From<std::io::Error> for ServerError {
    fn from(err: std::io::Error) -> Self {
        Self::Io(err)
    }
}

#[cfg(feature = "redis")]
/// A Redis URL that cannot be used.
#[derive(Debug)]
pub struct RedisUrlError(pub(crate) String);

#[cfg(feature = "redis")]
impl std::fmt::Display for RedisUrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The Redis URL is not usable ({}); write it as redis://[user:password@]host[:port][/db], rediss:// for TLS, or redis+sentinel://host:port[,host:port..]/service[/db]",
            self.0
        )
    }
}

#[cfg(feature = "redis")]
impl std::error::Error for RedisUrlError {}

#[cfg(feature = "redis")]
impl RedisUrlError {
    /// What was wrong, without the URL: it may hold a password.
    pub(crate) fn from_redis(err: redis::RedisError) -> Self {
        Self(err.detail().map_or_else(|| err.category().to_owned(), |detail| format!("{}: {detail}", err.category())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of a short requestState key once held a run of spaces
    /// where a line of its source was continued.
    #[test]
    fn the_request_state_key_message_reads_as_one_sentence() {
        let message = ServerError::RequestStateKey("it has 8 bytes".into()).to_string();
        assert!(!message.contains("  "), "{message}");
        assert!(message.contains("it has 8 bytes. Give `Server::request_state_key(..)`"), "{message}");
    }
}
