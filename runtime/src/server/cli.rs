//! The command line of a server binary: [`ServeArgs`], the serving flags a
//! server flattens into its own `clap` parser, and [`Server::run_cli`] for a
//! binary with no flags of its own. Serve over stdio or Streamable HTTP, lint
//! the definitions, or print `server.json`.

use std::path::PathBuf;

use clap::Args;

use super::HttpOptions;
use crate::lint::Profile;

/// The serving command line of a server binary, as a `clap` [`Args`] struct:
/// `#[command(flatten)]` it into your own parser beside your own flags, then
/// hand it the server with [`ServeArgs::run`]. [`Server::run_cli`](crate::server::Server::run_cli) parses it
/// alone, for a binary without flags of its own.
///
/// - no subcommand: serve over stdio (what MCP clients launch), or with
///   `--http ADDR` Streamable HTTP (`--stateless`, `--path`,
///   `--allowed-hosts`, `--allowed-origins`, `--trusted-proxies`,
///   `--metrics-path`, `--rate-limit`, `--max-sessions`,
///   `--max-awake-sessions`, `--session-idle-timeout`,
///   `--session-hibernate-after`); each HTTP setting without its flag comes
///   from its environment variable (`MCP_HTTP_ADDR`, `MCP_HTTP_PATH`,
///   `MCP_ALLOWED_HOSTS`, `MCP_ALLOWED_ORIGINS`, `MCP_TRUSTED_PROXIES`,
///   `MCP_METRICS_PATH`, `MCP_RATE_LIMIT`, `MCP_MAX_SESSIONS`,
///   `MCP_MAX_AWAKE_SESSIONS`, `MCP_SESSION_IDLE_TIMEOUT`,
///   `MCP_SESSION_HIBERNATE_AFTER`); with the `redis` feature, `MCP_REDIS_URL`
///   gives the Redis that replicas share;
/// - `lint`, `server-json`: see [`ServeCommand`]. They read no environment
///   and build no state: the factories of [`Server::state_with`](crate::server::Server::state_with) run only
///   when the server serves.
///
/// Every serving flag is defined here, in this one struct. Its subcommands
/// (`lint`, `server-json`) join the parser's; a parser with subcommands of
/// its own takes `ServeArgs` as one of them (`Serve(Box<ServeArgs>)`: `tracker
/// serve --http ADDR`, `tracker serve lint`).
///
/// ```no_run
/// use clap::Parser;
/// use mcp_contract::server::{ServeArgs, Server};
///
/// #[derive(Parser)]
/// struct Cli {
///     /// The SQLite database of the issues.
///     #[arg(long, default_value = "tracker.db")]
///     db: std::path::PathBuf,
///     #[command(flatten)]
///     serve: ServeArgs,
/// }
///
/// struct Db(std::path::PathBuf);
///
/// #[tokio::main]
/// async fn main() -> std::process::ExitCode {
///     let cli = Cli::parse();
///     let db = cli.db;
///     let server = Server::new("tracker", "1.0.0")
///         // Runs when serving starts: `--help` and `lint` never open the database.
///         .state_with(move || async move { std::fs::metadata(&db).map(|_| Db(db)) });
///     cli.serve.run(server).await
/// }
/// ```
#[derive(Args, Clone, Debug, Default, PartialEq, Eq)]
// This doc is for rustdoc: the help's about text is the server's own.
#[command(about = None, long_about = None)]
#[non_exhaustive]
pub struct ServeArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio; port 0 lets the system choose
    /// [env: MCP_HTTP_ADDR]
    // The doc is clap's help text, where the URL stands bare.
    #[allow(rustdoc::bare_urls)]
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: no sessions, so any replica answers any request
    #[arg(long)]
    pub stateless: bool,
    /// With --http: the endpoint's path [default: /mcp] [env: MCP_HTTP_PATH]
    #[arg(long, value_name = "PATH")]
    pub path: Option<String>,
    /// With --http: Host values to accept besides loopback's [env: MCP_ALLOWED_HOSTS]
    #[arg(long, value_name = "HOST,..", value_delimiter = ',')]
    pub allowed_hosts: Option<Vec<String>>,
    /// With --http: browser origins to accept besides the server's own [env: MCP_ALLOWED_ORIGINS]
    #[arg(long, value_name = "ORIGIN,..", value_delimiter = ',')]
    pub allowed_origins: Option<Vec<String>>,
    /// With --http: proxies (addresses, networks) whose Forwarded / X-Forwarded-* headers count
    /// [env: MCP_TRUSTED_PROXIES]
    #[arg(long, value_name = "ADDR|NET,..", value_delimiter = ',')]
    pub trusted_proxies: Option<Vec<String>>,
    /// With --http: serve Prometheus metrics at PATH (feature `metrics`) [env: MCP_METRICS_PATH]
    #[arg(long, value_name = "PATH")]
    pub metrics_path: Option<String>,
    /// With --http: calls per caller, e.g. 120/min or 2/s,burst=20 (feature `rate-limit`)
    /// [env: MCP_RATE_LIMIT]
    #[arg(long, value_name = "N/s|N/min|N/h[,burst=B]")]
    pub rate_limit: Option<String>,
    /// With --http: the most sessions held, awake or asleep; past it the idlest closes
    /// [default: 1024] [env: MCP_MAX_SESSIONS]
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<String>,
    /// With --http: the most sessions awake, each with its worker; past it the idlest hibernate
    /// [default: 256] [env: MCP_MAX_AWAKE_SESSIONS]
    #[arg(long, value_name = "N")]
    pub max_awake_sessions: Option<String>,
    /// With --http: a session without a request this many seconds ends, asleep or not
    /// [default: 300] [env: MCP_SESSION_IDLE_TIMEOUT]
    #[arg(long, value_name = "SECONDS")]
    pub session_idle_timeout: Option<String>,
    /// With --http: a session idle this many seconds hibernates, only its initialize kept, until
    /// its next request [env: MCP_SESSION_HIBERNATE_AFTER]
    #[arg(long, value_name = "SECONDS")]
    pub session_hibernate_after: Option<String>,
    /// What to do instead of serving.
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
}

/// The subcommands of [`ServeArgs`]: what a server binary does instead of serving.
#[derive(clap::Subcommand, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServeCommand {
    /// Check the definitions with the definition linter; exit 1 on errors
    ///
    /// The report goes to stdout: grouped by severity, or one JSON document
    /// `{"passed", "diagnostics": [{"rule", "severity", "kind", "name", "path",
    /// "message"}]}`. The exit code is also 1 when the server would not build
    /// for a reason of its own (a state type a handler takes but nobody
    /// registered, two resources at one URI), which goes to stderr.
    Lint {
        /// How to print the report
        #[arg(long, value_enum, default_value_t = LintFormat::Text)]
        format: LintFormat,
        /// Check this server.json too
        #[arg(long, value_name = "PATH")]
        server_json: Option<PathBuf>,
        /// The portability profile: default, strict or gemini
        #[arg(long, value_name = "NAME", value_parser = |name: &str| name.parse::<Profile>())]
        profile: Option<Profile>,
    },
    /// Print the MCP registry's server.json, checked with the server-json rules
    ///
    /// It is written from the crate's metadata (description, repository,
    /// version) and named `io.github.{owner}/{repo}` after the repository
    /// unless `--name` says otherwise. When it would not pass the
    /// `server-json-*` rules, the findings go to stderr and the exit code is 1.
    ServerJson {
        /// The server's name in the registry, e.g. io.github.owner/repo
        #[arg(long)]
        name: Option<String>,
        /// Its Streamable HTTP remote, e.g. https://mcp.example.com/mcp
        // The doc is clap's help text, where the URL stands bare.
        #[allow(rustdoc::bare_urls)]
        #[arg(long, value_name = "URL")]
        remote: Option<String>,
    },
}

/// How `lint` prints its report.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LintFormat {
    /// Grouped by severity, for a person.
    #[default]
    Text,
    /// One JSON document, for a CI job.
    Json,
}

/// What the command line asks for, once the environment had its say.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Command {
    Stdio,
    Http { addr: String, stateless: bool, deployment: Deployment },
    Lint { json: bool, server_json: Option<PathBuf>, profile: Option<Profile> },
    ServerJson { name: Option<String>, remote: Option<String> },
}

/// The HTTP settings a deployment behind a proxy needs, each from its flag or,
/// without one, from its environment variable; unset ones keep
/// [`HttpOptions`]' defaults.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Deployment {
    pub(crate) path: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    trusted_proxies: Option<Vec<String>>,
    #[cfg(feature = "metrics")]
    metrics_path: Option<String>,
    #[cfg(feature = "rate-limit")]
    rate_limit: Option<super::RateLimit>,
    max_sessions: Option<usize>,
    max_awake_sessions: Option<usize>,
    session_idle_timeout: Option<std::time::Duration>,
    session_hibernate_after: Option<std::time::Duration>,
}

impl Deployment {
    pub(crate) fn apply(self, mut options: HttpOptions) -> HttpOptions {
        if let Some(path) = self.path {
            options = options.path(path);
        }
        if let Some(hosts) = self.allowed_hosts {
            options = options.allowed_hosts(hosts);
        }
        if let Some(origins) = self.allowed_origins {
            options = options.allowed_origins(origins);
        }
        if let Some(proxies) = self.trusted_proxies {
            options = options.trusted_proxies(proxies);
        }
        #[cfg(feature = "metrics")]
        if let Some(path) = self.metrics_path {
            options = options.metrics_path(path);
        }
        #[cfg(feature = "rate-limit")]
        if let Some(limit) = self.rate_limit {
            options = options.rate_limit(limit);
        }
        if let Some(max) = self.max_sessions {
            options = options.max_sessions(max);
        }
        if let Some(max) = self.max_awake_sessions {
            options = options.max_awake_sessions(max);
        }
        if let Some(timeout) = self.session_idle_timeout {
            options = options.session_idle_timeout(timeout);
        }
        if let Some(idle) = self.session_hibernate_after {
            options = options.session_hibernate_after(idle);
        }
        options
    }
}

/// The environment variables of the HTTP settings, beside their flags.
const ENV_HTTP_ADDR: &str = "MCP_HTTP_ADDR";
const ENV_HTTP_PATH: &str = "MCP_HTTP_PATH";
const ENV_ALLOWED_HOSTS: &str = "MCP_ALLOWED_HOSTS";
const ENV_ALLOWED_ORIGINS: &str = "MCP_ALLOWED_ORIGINS";
const ENV_TRUSTED_PROXIES: &str = "MCP_TRUSTED_PROXIES";
const ENV_METRICS_PATH: &str = "MCP_METRICS_PATH";
const ENV_RATE_LIMIT: &str = "MCP_RATE_LIMIT";
const ENV_MAX_SESSIONS: &str = "MCP_MAX_SESSIONS";
const ENV_MAX_AWAKE_SESSIONS: &str = "MCP_MAX_AWAKE_SESSIONS";
const ENV_SESSION_IDLE_TIMEOUT: &str = "MCP_SESSION_IDLE_TIMEOUT";
const ENV_SESSION_HIBERNATE_AFTER: &str = "MCP_SESSION_HIBERNATE_AFTER";

/// Seconds, whole or not (`30`, `0.5`), as a duration.
fn seconds(source: &str, value: &str) -> Result<std::time::Duration, String> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .and_then(|seconds| std::time::Duration::try_from_secs_f64(seconds).ok())
        .filter(|idle| !idle.is_zero())
        .ok_or_else(|| format!("{source}: `{value}` is no number of seconds above 0, e.g. `30` or `0.5`"))
}

/// A count of sessions, at least 1.
fn sessions(source: &str, value: &str) -> Result<usize, String> {
    value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|count| *count > 0)
        .ok_or_else(|| format!("{source}: `{value}` is no whole number of sessions above 0, e.g. `10000`"))
}

/// The path of the metrics endpoint, as given.
#[cfg(feature = "metrics")]
fn metrics_path(_: &str, value: &str) -> Result<String, String> {
    Ok(value.to_owned())
}

/// No metrics endpoint without the feature that serves one: a path asked
/// for is refused rather than left to answer 404.
#[cfg(not(feature = "metrics"))]
fn metrics_path(source: &str, _: &str) -> Result<std::convert::Infallible, String> {
    Err(format!("`{source}` needs the crate's `metrics` feature"))
}

/// A rate limit (`120/min`, `2/s,burst=20`).
#[cfg(feature = "rate-limit")]
fn rate(source: &str, value: &str) -> Result<super::RateLimit, String> {
    value.parse().map_err(|why| format!("{source}: {why}"))
}

/// No rate limit without the feature that enforces one: a limit asked for
/// is refused rather than let go unenforced.
#[cfg(not(feature = "rate-limit"))]
fn rate(source: &str, _: &str) -> Result<std::convert::Infallible, String> {
    Err(format!("`{source}` needs the crate's `rate-limit` feature"))
}

/// The flag's value, or else its environment variable's, parsed by `parse`
/// with the name of the one it came from.
fn flag_or_env<T>(
    flag: (&str, Option<String>),
    env: (&str, Option<String>),
    parse: impl Fn(&str, &str) -> Result<T, String>,
) -> Result<Option<T>, String> {
    match (flag, env) {
        ((name, Some(value)), _) | (_, (name, Some(value))) => parse(name, &value).map(Some),
        _ => Ok(None),
    }
}

/// A comma-separated list, blanks dropped.
fn list(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|item| !item.is_empty()).map(str::to_owned).collect()
}

/// The items of a list flag, trimmed, blanks dropped (`--allowed-hosts "a, b"`).
fn tidy(items: Vec<String>) -> Vec<String> {
    items.iter().flat_map(|item| list(item)).collect()
}

/// The file name of the running binary, as `argv[0]` names it.
pub(crate) fn program_name(argv0: Option<String>) -> Option<String> {
    let argv0 = argv0?;
    let name = std::path::Path::new(&argv0).file_name()?.to_string_lossy().into_owned();
    (!name.is_empty()).then_some(name)
}

impl ServeArgs {
    /// The command, with `env` (the process environment, in tests a table)
    /// for the HTTP settings no flag gives.
    pub(crate) fn command(self, env: impl Fn(&str) -> Option<String>) -> Result<Command, String> {
        let mut deployment = Deployment {
            path: self.path,
            allowed_hosts: self.allowed_hosts.map(tidy),
            allowed_origins: self.allowed_origins.map(tidy),
            trusted_proxies: self.trusted_proxies.map(tidy),
            // Parsed below, with their environment variables.
            #[cfg(feature = "metrics")]
            metrics_path: None,
            #[cfg(feature = "rate-limit")]
            rate_limit: None,
            max_sessions: None,
            max_awake_sessions: None,
            session_idle_timeout: None,
            session_hibernate_after: None,
        };
        let session_flag = [
            ("--max-sessions", &self.max_sessions),
            ("--max-awake-sessions", &self.max_awake_sessions),
            ("--session-idle-timeout", &self.session_idle_timeout),
            ("--session-hibernate-after", &self.session_hibernate_after),
        ]
        .into_iter()
        .find_map(|(flag, value)| value.is_some().then_some(flag));
        let flagged = deployment != Deployment::default()
            || self.metrics_path.is_some()
            || self.rate_limit.is_some()
            || session_flag.is_some();
        let serving = self.http.is_some() || self.stateless || flagged;
        match self.command {
            Some(_) if serving => {
                return Err("`--http`, `--stateless` and the HTTP settings (`--path`, `--allowed-hosts`, \
                            `--trusted-proxies`, ..) are for serving: drop them to lint or print server.json"
                    .into());
            }
            Some(ServeCommand::Lint { format, server_json, profile }) => {
                return Ok(Command::Lint { json: format == LintFormat::Json, server_json, profile });
            }
            Some(ServeCommand::ServerJson { name, remote }) => return Ok(Command::ServerJson { name, remote }),
            None => {}
        }
        let env = |name: &str| env(name).filter(|value| !value.trim().is_empty());
        deployment.path = deployment.path.or_else(|| env(ENV_HTTP_PATH));
        deployment.allowed_hosts =
            deployment.allowed_hosts.or_else(|| env(ENV_ALLOWED_HOSTS).map(|hosts| list(&hosts)));
        deployment.allowed_origins =
            deployment.allowed_origins.or_else(|| env(ENV_ALLOWED_ORIGINS).map(|origins| list(&origins)));
        deployment.trusted_proxies =
            deployment.trusted_proxies.or_else(|| env(ENV_TRUSTED_PROXIES).map(|proxies| list(&proxies)));
        let metrics_path = flag_or_env(
            ("--metrics-path", self.metrics_path),
            (ENV_METRICS_PATH, env(ENV_METRICS_PATH)),
            metrics_path,
        )?;
        let rate_limit = flag_or_env(("--rate-limit", self.rate_limit), (ENV_RATE_LIMIT, env(ENV_RATE_LIMIT)), rate)?;
        // Without its feature, each parser refused any value given.
        #[cfg(feature = "metrics")]
        {
            deployment.metrics_path = metrics_path;
        }
        #[cfg(not(feature = "metrics"))]
        let None = metrics_path;
        #[cfg(feature = "rate-limit")]
        {
            deployment.rate_limit = rate_limit;
        }
        #[cfg(not(feature = "rate-limit"))]
        let None = rate_limit;
        if let Some(flag) = session_flag.filter(|_| self.stateless) {
            // A stateless server holds no session to count or put to sleep.
            // The environment's values are let be: replicas of both kinds
            // may share it.
            return Err(format!("`{flag}` is for sessions, which `--stateless` has none of: drop one of them"));
        }
        deployment.max_sessions =
            flag_or_env(("--max-sessions", self.max_sessions), (ENV_MAX_SESSIONS, env(ENV_MAX_SESSIONS)), sessions)?;
        deployment.max_awake_sessions = flag_or_env(
            ("--max-awake-sessions", self.max_awake_sessions),
            (ENV_MAX_AWAKE_SESSIONS, env(ENV_MAX_AWAKE_SESSIONS)),
            sessions,
        )?;
        deployment.session_idle_timeout = flag_or_env(
            ("--session-idle-timeout", self.session_idle_timeout),
            (ENV_SESSION_IDLE_TIMEOUT, env(ENV_SESSION_IDLE_TIMEOUT)),
            seconds,
        )?;
        deployment.session_hibernate_after = flag_or_env(
            ("--session-hibernate-after", self.session_hibernate_after),
            (ENV_SESSION_HIBERNATE_AFTER, env(ENV_SESSION_HIBERNATE_AFTER)),
            seconds,
        )?;
        match self.http.or_else(|| env(ENV_HTTP_ADDR)) {
            Some(addr) => Ok(Command::Http { addr, stateless: self.stateless, deployment }),
            None if self.stateless || flagged => {
                Err("`--stateless` and the HTTP settings (`--path`, `--allowed-hosts`, `--trusted-proxies`, ..) \
                     belong to `--http ADDR`"
                    .into())
            }
            None => Ok(Command::Stdio),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::FromArgMatches;

    use super::*;

    fn cli() -> clap::Command {
        ServeArgs::augment_args(clap::Command::new("museum-server"))
    }

    fn parse(line: &str) -> Result<ServeArgs, String> {
        let args = std::iter::once("museum-server").chain(line.split_whitespace());
        cli()
            .try_get_matches_from(args)
            .and_then(|matches| ServeArgs::from_arg_matches(&matches))
            .map_err(|err| err.to_string())
    }

    fn args(line: &str) -> Result<Command, String> {
        with_env(line, &[])
    }

    fn with_env(line: &str, env: &[(&str, &str)]) -> Result<Command, String> {
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        parse(line)?.command(|name| env.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()))
    }

    fn http(addr: &str, stateless: bool, deployment: Deployment) -> Result<Command, String> {
        Ok(Command::Http { addr: addr.into(), stateless, deployment })
    }

    fn strings(items: &[&str]) -> Option<Vec<String>> {
        Some(items.iter().map(|item| (*item).to_owned()).collect())
    }

    fn lint() -> Result<Command, String> {
        Ok(Command::Lint { json: false, server_json: None, profile: None })
    }

    #[test]
    fn the_serving_flags_are_a_well_formed_clap_command() {
        cli().debug_assert();
    }

    /// Each deployment setting is read from its flag and from its environment
    /// variable, the flag winning; `lint` ignores the environment.
    #[test]
    fn each_deployment_setting_comes_from_its_flag_or_its_environment_variable() {
        let from_flags = Deployment {
            path: Some("/v1/mcp".into()),
            allowed_hosts: strings(&["mcp.example.com", "10.0.0.7:8080"]),
            allowed_origins: strings(&["https://app.example.com"]),
            ..Deployment::default()
        };
        assert_eq!(
            args(
                "--http 0.0.0.0:8080 --path /v1/mcp --allowed-hosts mcp.example.com,10.0.0.7:8080 --allowed-origins https://app.example.com"
            ),
            http("0.0.0.0:8080", false, from_flags)
        );
        let env = [
            ("MCP_HTTP_ADDR", "0.0.0.0:9090"),
            ("MCP_HTTP_PATH", "/env/mcp"),
            ("MCP_ALLOWED_HOSTS", "env.example.com, other.example.com"),
            ("MCP_ALLOWED_ORIGINS", "https://env.example.com"),
        ];
        let from_env = Deployment {
            path: Some("/env/mcp".into()),
            allowed_hosts: strings(&["env.example.com", "other.example.com"]),
            allowed_origins: strings(&["https://env.example.com"]),
            ..Deployment::default()
        };
        assert_eq!(with_env("", &env), http("0.0.0.0:9090", false, from_env));
        assert_eq!(
            with_env("--http 127.0.0.1:1 --stateless --path /flag --allowed-hosts flag.example.com", &env),
            http(
                "127.0.0.1:1",
                true,
                Deployment {
                    path: Some("/flag".into()),
                    allowed_hosts: strings(&["flag.example.com"]),
                    allowed_origins: strings(&["https://env.example.com"]),
                    ..Deployment::default()
                }
            )
        );
        assert_eq!(with_env("lint", &env), lint());
        assert_eq!(with_env("", &[("MCP_HTTP_ADDR", " ")]), Ok(Command::Stdio));
        // The address from the environment, `--stateless` from the flag.
        assert_eq!(with_env("--stateless", &env[..1]), http("0.0.0.0:9090", true, Deployment::default()));
    }

    /// The settings of operating behind a proxy, from their flags and from
    /// their environment variables, the flag winning.
    #[test]
    #[cfg(all(feature = "metrics", feature = "rate-limit"))]
    fn the_proxy_metrics_and_rate_limit_settings_come_from_their_flags_or_their_environment() {
        let flags = "--http 0.0.0.0:8080 --trusted-proxies 10.0.0.0/8,fd00::/8 --metrics-path /metrics --rate-limit 2/s,burst=20";
        let from_flags = Deployment {
            trusted_proxies: strings(&["10.0.0.0/8", "fd00::/8"]),
            metrics_path: Some("/metrics".into()),
            rate_limit: Some(super::super::RateLimit::per_second(2).burst(20)),
            ..Deployment::default()
        };
        assert_eq!(args(flags), http("0.0.0.0:8080", false, from_flags));
        let env = [
            ("MCP_HTTP_ADDR", "0.0.0.0:9090"),
            ("MCP_TRUSTED_PROXIES", "192.168.0.0/16"),
            ("MCP_METRICS_PATH", "/env-metrics"),
            ("MCP_RATE_LIMIT", "120/min"),
        ];
        let from_env = Deployment {
            trusted_proxies: strings(&["192.168.0.0/16"]),
            metrics_path: Some("/env-metrics".into()),
            rate_limit: Some(super::super::RateLimit::per_minute(120)),
            ..Deployment::default()
        };
        assert_eq!(with_env("", &env), http("0.0.0.0:9090", false, from_env));
        let mixed = Deployment {
            trusted_proxies: strings(&["10.0.0.1"]),
            metrics_path: Some("/env-metrics".into()),
            rate_limit: Some(super::super::RateLimit::per_minute(120)),
            ..Deployment::default()
        };
        assert_eq!(with_env("--trusted-proxies 10.0.0.1", &env), http("0.0.0.0:9090", false, mixed));
        let err = with_env("", &[("MCP_HTTP_ADDR", "0.0.0.0:1"), ("MCP_RATE_LIMIT", "lots")]).unwrap_err();
        assert!(err.starts_with("MCP_RATE_LIMIT: `lots` is no rate limit"), "{err}");
        assert!(args("--http 0.0.0.0:1 --rate-limit 0/s").unwrap_err().contains("e.g. `120/min`"));
        assert!(args("--trusted-proxies 10.0.0.1").unwrap_err().contains("belong to `--http ADDR`"));
        assert!(args("--rate-limit 2/s lint").unwrap_err().contains("are for serving"));
        let options = format!(
            "{:?}",
            Deployment { trusted_proxies: strings(&["10.0.0.1"]), ..Deployment::default() }
                .apply(HttpOptions::default())
        );
        assert!(options.contains("\"10.0.0.1\""), "{options}");
    }

    #[test]
    fn the_session_limits_come_from_their_flags_or_their_environment() {
        let limits =
            |max_sessions, max_awake_sessions| Deployment { max_sessions, max_awake_sessions, ..Deployment::default() };
        assert_eq!(
            args("--http 0.0.0.0:1 --max-sessions 10000 --max-awake-sessions 1000"),
            http("0.0.0.0:1", false, limits(Some(10_000), Some(1_000)))
        );
        let env = [("MCP_HTTP_ADDR", "0.0.0.0:2"), ("MCP_MAX_SESSIONS", " 20000 "), ("MCP_MAX_AWAKE_SESSIONS", "64")];
        assert_eq!(with_env("", &env), http("0.0.0.0:2", false, limits(Some(20_000), Some(64))));
        assert_eq!(
            with_env("--max-awake-sessions 128", &env),
            http("0.0.0.0:2", false, limits(Some(20_000), Some(128)))
        );
        for bad in ["0", "-1", "many", "1.5", "1e4"] {
            let err = args(&format!("--http 0.0.0.0:1 --max-sessions={bad}")).unwrap_err();
            assert!(err.starts_with("--max-sessions: `"), "{err}");
            assert!(err.contains("is no whole number of sessions above 0"), "{err}");
            let err = with_env("", &[("MCP_HTTP_ADDR", "0.0.0.0:1"), ("MCP_MAX_AWAKE_SESSIONS", bad)]).unwrap_err();
            assert!(err.starts_with("MCP_MAX_AWAKE_SESSIONS: `"), "{err}");
        }
        assert!(args("--max-sessions 10").unwrap_err().contains("belong to `--http ADDR`"));
        assert!(args("--max-awake-sessions 10 lint").unwrap_err().contains("are for serving"));
        // A stateless server has no sessions: a flag for them is a mistake,
        // the environment's (perhaps shared with stateful replicas) is not.
        for flag in [
            "--max-sessions 10",
            "--max-awake-sessions 10",
            "--session-idle-timeout 600",
            "--session-hibernate-after 30",
        ] {
            let err = args(&format!("--http 0.0.0.0:1 --stateless {flag}")).unwrap_err();
            let name = flag.split(' ').next().unwrap();
            assert_eq!(err, format!("`{name}` is for sessions, which `--stateless` has none of: drop one of them"));
        }
        assert_eq!(with_env("--stateless", &env[..2]), http("0.0.0.0:2", true, limits(Some(20_000), None)));
        let options = format!("{:?}", limits(Some(10_000), Some(1_000)).apply(HttpOptions::default()));
        assert!(options.contains("max_sessions: 10000,"), "{options}");
        assert!(options.contains("max_awake_sessions: 1000,"), "{options}");
    }

    /// The session's durations, each from its flag or its environment
    /// variable, in seconds whole or not.
    #[test]
    fn the_session_durations_come_from_their_flags_or_their_environment_in_seconds() {
        type Setting = fn(std::time::Duration) -> Deployment;
        let settings: [(&str, &str, Setting, &str); 2] = [
            (
                "--session-idle-timeout",
                ENV_SESSION_IDLE_TIMEOUT,
                |timeout| Deployment { session_idle_timeout: Some(timeout), ..Deployment::default() },
                "session_idle_timeout: 30s,",
            ),
            (
                "--session-hibernate-after",
                ENV_SESSION_HIBERNATE_AFTER,
                |idle| Deployment { session_hibernate_after: Some(idle), ..Deployment::default() },
                "session_hibernate_after: Some(30s)",
            ),
        ];
        for (flag, variable, setting, debug) in settings {
            let set = |seconds: f64| setting(std::time::Duration::from_secs_f64(seconds));
            assert_eq!(args(&format!("--http 0.0.0.0:1 {flag} 30")), http("0.0.0.0:1", false, set(30.0)));
            let env = [("MCP_HTTP_ADDR", "0.0.0.0:2"), (variable, "0.5")];
            assert_eq!(with_env("", &env), http("0.0.0.0:2", false, set(0.5)));
            assert_eq!(with_env(&format!("{flag} 2"), &env), http("0.0.0.0:2", false, set(2.0)));
            for bad in ["0", "-1", "soon", "NaN"] {
                let err = args(&format!("--http 0.0.0.0:1 {flag}={bad}")).unwrap_err();
                assert!(err.starts_with(&format!("{flag}: `")), "{err}");
                assert!(err.contains("is no number of seconds above 0"), "{err}");
                let err = with_env("", &[("MCP_HTTP_ADDR", "0.0.0.0:1"), (variable, bad)]).unwrap_err();
                assert!(err.starts_with(&format!("{variable}: `")), "{err}");
            }
            assert!(args(&format!("{flag} 30")).unwrap_err().contains("belong to `--http ADDR`"));
            let options = format!("{:?}", set(30.0).apply(HttpOptions::default()));
            assert!(options.contains(debug), "{options}");
        }
    }

    #[test]
    fn the_deployment_settings_reach_the_http_options() {
        let deployment = Deployment {
            path: Some("/v1/mcp".into()),
            allowed_hosts: strings(&["mcp.example.com"]),
            allowed_origins: strings(&["https://app.example.com"]),
            ..Deployment::default()
        };
        let options = format!("{:?}", deployment.apply(HttpOptions::default()));
        for expected in ["\"/v1/mcp\"", "\"mcp.example.com\"", "\"https://app.example.com\""] {
            assert!(options.contains(expected), "{options}");
        }
    }

    #[test]
    fn parses_the_serving_modes() {
        assert_eq!(args(""), Ok(Command::Stdio));
        assert_eq!(args("--http 127.0.0.1:0"), http("127.0.0.1:0", false, Deployment::default()));
        assert_eq!(args("--http 127.0.0.1:0 --stateless"), http("127.0.0.1:0", true, Deployment::default()));
        assert_eq!(args("--stateless --http [::1]:80"), http("[::1]:80", true, Deployment::default()));
        assert_eq!(
            args("--http 127.0.0.1:0 --allowed-hosts a.example,b.example --allowed-hosts c.example"),
            http(
                "127.0.0.1:0",
                false,
                Deployment {
                    allowed_hosts: strings(&["a.example", "b.example", "c.example"]),
                    ..Deployment::default()
                }
            )
        );
    }

    #[test]
    fn the_usage_names_the_binary_as_it_was_started() {
        assert_eq!(program_name(Some("/usr/local/bin/museum-server".into())).as_deref(), Some("museum-server"));
        assert_eq!(program_name(Some("museum".into())).as_deref(), Some("museum"));
        assert_eq!(program_name(Some(String::new())), None);
        assert_eq!(program_name(None), None);
        let text = cli().render_help().to_string();
        assert!(text.contains("Usage: museum-server [OPTIONS] [COMMAND]"), "{text}");
        for flag in [
            "--http <ADDR>",
            "--stateless",
            "--path <PATH>",
            "--allowed-hosts",
            "--allowed-origins",
            "--trusted-proxies",
            "--metrics-path",
            "--rate-limit",
            "--max-sessions <N>",
            "--max-awake-sessions <N>",
            "--session-idle-timeout <SECONDS>",
            "--session-hibernate-after <SECONDS>",
            "lint",
        ] {
            assert!(text.contains(flag), "{flag}: {text}");
        }
        for variable in [
            ENV_HTTP_ADDR,
            ENV_HTTP_PATH,
            ENV_ALLOWED_HOSTS,
            ENV_ALLOWED_ORIGINS,
            ENV_TRUSTED_PROXIES,
            ENV_METRICS_PATH,
            ENV_RATE_LIMIT,
            ENV_MAX_SESSIONS,
            ENV_MAX_AWAKE_SESSIONS,
            ENV_SESSION_IDLE_TIMEOUT,
            ENV_SESSION_HIBERNATE_AFTER,
        ] {
            assert!(text.contains(variable), "{variable}: {text}");
        }
        assert!(!text.contains("<server>"), "{text}");
    }

    #[test]
    fn parses_lint() {
        assert_eq!(args("lint"), lint());
        assert_eq!(
            args("lint --format json --server-json server.json --profile gemini"),
            Ok(Command::Lint { json: true, server_json: Some("server.json".into()), profile: Some(Profile::Gemini) })
        );
    }

    #[test]
    fn parses_server_json() {
        assert_eq!(args("server-json"), Ok(Command::ServerJson { name: None, remote: None }));
        assert_eq!(
            args("server-json --remote https://m.example/mcp --name io.example/m"),
            Ok(Command::ServerJson { name: Some("io.example/m".into()), remote: Some("https://m.example/mcp".into()) })
        );
        assert!(args("server-json --name").is_err());
        assert!(args("server-json --http x").unwrap_err().contains("unexpected argument '--http'"));
    }

    #[test]
    fn refuses_what_it_does_not_know() {
        for (line, expected) in [
            ("--http", "a value is required for '--http <ADDR>'"),
            ("--serve", "unexpected argument '--serve'"),
            ("lint --format yaml", "invalid value 'yaml' for '--format <FORMAT>'"),
            ("lint --profile claude", "unknown portability profile `claude`"),
            ("lint --http 127.0.0.1:0", "unexpected argument '--http'"),
            ("--http 127.0.0.1:0 lint", "are for serving"),
            ("--format json", "unexpected argument '--format'"),
            ("--stateless", "belong to `--http ADDR`"),
            ("--allowed-hosts mcp.example.com", "belong to `--http ADDR`"),
            ("--path /mcp lint", "are for serving"),
            ("lint lint", "unexpected argument 'lint'"),
        ] {
            let err = args(line).expect_err(line);
            assert!(err.contains(expected), "{line}: {err}");
        }
    }
}
