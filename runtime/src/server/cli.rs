//! The command line every server binary gets from [`Server::run_cli`]:
//! serve over stdio or Streamable HTTP, or lint the definitions.

use std::io::Write;
use std::process::ExitCode;

use tokio::net::TcpListener;

use super::{HttpOptions, Server};
use crate::lint::Profile;

/// `std::eprintln!` panics when stderr cannot be written (`2>/dev/full`, a
/// closed pipe), which ended a server before it served. What the command line
/// says on stderr is for a person; when nobody can read it, it is dropped.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Stdio,
    Http { addr: String, stateless: bool, deployment: Deployment },
    Lint { json: bool, server_json: Option<String>, profile: Option<Profile> },
    Help,
}

/// The HTTP settings a deployment behind a proxy needs, each from its flag or,
/// without one, from its environment variable; unset ones keep
/// [`HttpOptions`]' defaults.
#[derive(Debug, Default, PartialEq, Eq)]
struct Deployment {
    path: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    trusted_proxies: Option<Vec<String>>,
    #[cfg(feature = "metrics")]
    metrics_path: Option<String>,
    #[cfg(feature = "rate-limit")]
    rate_limit: Option<super::RateLimit>,
}

impl Deployment {
    fn apply(self, mut options: HttpOptions) -> HttpOptions {
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
        options
    }
}

/// The environment variables of the HTTP settings, beside their flags.
const ENV_HTTP_ADDR: &str = "MCP_HTTP_ADDR";
const ENV_HTTP_PATH: &str = "MCP_HTTP_PATH";
const ENV_ALLOWED_HOSTS: &str = "MCP_ALLOWED_HOSTS";
const ENV_ALLOWED_ORIGINS: &str = "MCP_ALLOWED_ORIGINS";
const ENV_TRUSTED_PROXIES: &str = "MCP_TRUSTED_PROXIES";
#[cfg(feature = "metrics")]
const ENV_METRICS_PATH: &str = "MCP_METRICS_PATH";
#[cfg(feature = "rate-limit")]
const ENV_RATE_LIMIT: &str = "MCP_RATE_LIMIT";

/// A comma-separated list, blanks dropped.
fn list(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|item| !item.is_empty()).map(str::to_owned).collect()
}

/// The usage text, with the name the binary was started as.
fn usage(program: &str) -> String {
    format!(
        "usage:
  {program}                                   serve MCP over stdio (what MCP clients launch)
  {program} --http ADDR [--stateless]         serve Streamable HTTP at http://ADDR/mcp
      [--path /mcp]                          the endpoint's path                       (or MCP_HTTP_PATH)
      [--allowed-hosts HOST,..]              Host values to accept, beside loopback's  (or MCP_ALLOWED_HOSTS)
      [--allowed-origins ORIGIN,..]          browser origins to accept                 (or MCP_ALLOWED_ORIGINS)
      [--trusted-proxies ADDR|NET,..]        proxies whose X-Forwarded-* count         (or MCP_TRUSTED_PROXIES)
      [--metrics-path /metrics]              Prometheus metrics (feature `metrics`)    (or MCP_METRICS_PATH)
      [--rate-limit 120/min[,burst=N]]       calls per caller (feature `rate-limit`)   (or MCP_RATE_LIMIT)
                                             (MCP_HTTP_ADDR stands for `--http ADDR`; with the
                                             `redis` feature, MCP_REDIS_URL shares sessions,
                                             streams and tasks with other replicas)
  {program} lint [--format text|json] [--server-json PATH] [--profile default|strict|gemini]
                                             check the tool definitions (exit 1 on errors)
  {program} server-json [--name NAME] [--remote URL]
                                             print the MCP registry's server.json
  {program} --help"
    )
}

/// The file name of the running binary, as `argv[0]` names it.
fn program_name(argv0: Option<String>) -> Option<String> {
    let argv0 = argv0?;
    let name = std::path::Path::new(&argv0).file_name()?.to_string_lossy().into_owned();
    (!name.is_empty()).then_some(name)
}

/// The command of `args`, with `env` (the process environment, in tests a
/// table) for the HTTP settings no flag gives.
fn parse(args: impl IntoIterator<Item = String>, env: impl Fn(&str) -> Option<String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let mut http = None;
    let mut deployment = Deployment::default();
    let mut stateless = false;
    let mut lint = false;
    let mut json = false;
    let mut server_json = None;
    let mut profile = None;
    while let Some(arg) = args.next() {
        let mut value = |flag: &str, example: &str| {
            args.next().ok_or_else(|| format!("`{flag}` needs a value, e.g. `{flag} {example}`"))
        };
        match arg.as_str() {
            "--help" | "-h" => return Ok(Command::Help),
            "lint" if !lint => lint = true,
            "--http" => http = Some(value("--http", "127.0.0.1:8080")?),
            "--stateless" => stateless = true,
            "--format" => {
                json = match value("--format", "json")?.as_str() {
                    "json" => true,
                    "text" => false,
                    other => return Err(format!("unknown format `{other}`; use `text` or `json`")),
                }
            }
            "--path" => deployment.path = Some(value("--path", "/mcp")?),
            "--allowed-hosts" => deployment.allowed_hosts = Some(list(&value("--allowed-hosts", "mcp.example.com")?)),
            "--allowed-origins" => {
                deployment.allowed_origins = Some(list(&value("--allowed-origins", "https://app.example.com")?));
            }
            "--trusted-proxies" => {
                deployment.trusted_proxies = Some(list(&value("--trusted-proxies", "10.0.0.0/8")?));
            }
            #[cfg(feature = "metrics")]
            "--metrics-path" => deployment.metrics_path = Some(value("--metrics-path", "/metrics")?),
            #[cfg(feature = "rate-limit")]
            "--rate-limit" => deployment.rate_limit = Some(value("--rate-limit", "120/min")?.parse()?),
            #[cfg(not(feature = "metrics"))]
            "--metrics-path" => return Err("`--metrics-path` needs the crate's `metrics` feature".into()),
            #[cfg(not(feature = "rate-limit"))]
            "--rate-limit" => return Err("`--rate-limit` needs the crate's `rate-limit` feature".into()),
            "--server-json" => server_json = Some(value("--server-json", "server.json")?),
            "--profile" => profile = Some(value("--profile", "strict")?.parse::<Profile>()?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let flagged = deployment != Deployment::default();
    let env = |name: &str| env(name).filter(|value| !value.trim().is_empty());
    deployment.path = deployment.path.or_else(|| env(ENV_HTTP_PATH));
    deployment.allowed_hosts = deployment.allowed_hosts.or_else(|| env(ENV_ALLOWED_HOSTS).map(|hosts| list(&hosts)));
    deployment.allowed_origins =
        deployment.allowed_origins.or_else(|| env(ENV_ALLOWED_ORIGINS).map(|origins| list(&origins)));
    deployment.trusted_proxies =
        deployment.trusted_proxies.or_else(|| env(ENV_TRUSTED_PROXIES).map(|proxies| list(&proxies)));
    #[cfg(feature = "metrics")]
    {
        deployment.metrics_path = deployment.metrics_path.or_else(|| env(ENV_METRICS_PATH));
    }
    #[cfg(feature = "rate-limit")]
    if deployment.rate_limit.is_none()
        && let Some(limit) = env(ENV_RATE_LIMIT)
    {
        deployment.rate_limit = Some(limit.parse().map_err(|why| format!("{ENV_RATE_LIMIT}: {why}"))?);
    }
    if lint && flagged {
        return Err(
            "the HTTP settings (`--path`, `--allowed-hosts`, `--trusted-proxies`, ..) belong to `--http ADDR`".into()
        );
    }
    // The environment's address only for a serving command line, so that
    // `lint` and `--help` stay what they are wherever it is set.
    let http = if lint { http } else { http.or_else(|| env(ENV_HTTP_ADDR)) };
    match (lint, http) {
        (true, Some(_)) => Err("`lint` does not serve: drop `--http`".into()),
        (true, None) => Ok(Command::Lint { json, server_json, profile }),
        (false, _) if json || server_json.is_some() || profile.is_some() => {
            Err("`--format`, `--server-json` and `--profile` belong to `lint`".into())
        }
        (false, Some(addr)) => Ok(Command::Http { addr, stateless, deployment }),
        (false, None) if stateless || flagged => {
            Err("`--stateless` and the HTTP settings (`--path`, `--allowed-hosts`, ..) belong to `--http ADDR`".into())
        }
        (false, None) => Ok(Command::Stdio),
    }
}

impl Server {
    /// Run the command line of a server binary, from `std::env::args()`:
    ///
    /// - no argument: serve over stdio (what MCP clients launch);
    /// - `--http ADDR [--stateless]`: serve Streamable HTTP at `http://ADDR/mcp`
    ///   (port 0 lets the system choose; the address is printed on stderr), with
    ///   `--path PATH`, `--allowed-hosts HOST,..`, `--allowed-origins
    ///   ORIGIN,..`, `--trusted-proxies ADDR|NET,..`, `--metrics-path PATH`
    ///   (feature `metrics`) and `--rate-limit N/min[,burst=B]` (feature
    ///   `rate-limit`); without a flag, each comes from `MCP_HTTP_ADDR`,
    ///   `MCP_HTTP_PATH`, `MCP_ALLOWED_HOSTS`, `MCP_ALLOWED_ORIGINS`,
    ///   `MCP_TRUSTED_PROXIES`, `MCP_METRICS_PATH` and `MCP_RATE_LIMIT`; with the
    ///   `redis` feature, `MCP_REDIS_URL` gives the Redis that replicas share
    ///   (unless `Server::redis` gave one);
    /// - `lint [--format text|json] [--server-json PATH] [--profile NAME]`: run the
    ///   definition linter and print its report on stdout: grouped by severity, or
    ///   one JSON document `{"passed", "diagnostics": [{"rule", "severity", "kind",
    ///   "name", "path", "message"}]}`. The exit code is 1 when it finds an error,
    ///   or when the server would not build for a reason of its own (a state
    ///   type a handler takes but nobody registered, two resources at one URI),
    ///   which goes to stderr;
    /// - `server-json [--name NAME] [--remote URL]`: print the MCP registry's
    ///   `server.json`, written from the crate's metadata (description,
    ///   repository, version) and named `io.github.{owner}/{repo}` after the
    ///   repository unless `--name` says otherwise, with `URL` as its Streamable
    ///   HTTP remote. It is checked with the `server-json-*` rules first: exit 1,
    ///   the findings on stderr, when it would not pass them.
    ///
    /// Bad arguments print the usage, with the binary's name, and exit with 2.
    ///
    /// ```no_run
    /// use mcp_contract::server::Server;
    ///
    /// #[tokio::main]
    /// async fn main() -> std::process::ExitCode {
    ///     Server::new("museum", "1.0.0").run_cli().await
    /// }
    /// ```
    pub async fn run_cli(self) -> ExitCode {
        let mut args = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned());
        let program = program_name(args.next());
        self.run_cli_as(program, args).await
    }

    /// [`Server::run_cli`] with the arguments given (without the program name);
    /// the usage text names the server.
    pub async fn run_cli_with(self, args: impl IntoIterator<Item = String>) -> ExitCode {
        self.run_cli_as(None, args).await
    }

    async fn run_cli_as(self, program: Option<String>, args: impl IntoIterator<Item = String>) -> ExitCode {
        let code = self.run_command(program, args).await;
        // The log thread ends with the process: let it write what is queued.
        #[cfg(feature = "logging")]
        crate::logging::flush(std::time::Duration::from_secs(1));
        code
    }

    async fn run_command(self, program: Option<String>, args: impl IntoIterator<Item = String>) -> ExitCode {
        let name = self.info.name.clone();
        let usage = usage(program.as_deref().unwrap_or(&name));
        let mut args = args.into_iter().peekable();
        if args.peek().is_some_and(|arg| arg == "server-json") {
            return self.server_json_command(&usage, args.skip(1));
        }
        let command = match parse(args, |name| std::env::var(name).ok()) {
            Ok(command) => command,
            Err(err) => {
                eprintln!("{name}: {err}\n{usage}");
                return ExitCode::from(2);
            }
        };
        let served = match command {
            Command::Help => return print_stdout(&format!("{usage}\n")),
            Command::Lint { json, server_json, profile } => return self.lint_command(json, server_json, profile),
            Command::Stdio => {
                // stdout is the protocol; a person who started this in a terminal reads stderr.
                eprintln!("{name}: serving MCP over stdio; connect a client, Ctrl-C to stop");
                self.serve_stdio().await
            }
            Command::Http { addr, stateless, deployment } => match self.with_redis_from_env().build() {
                Err(err) => Err(err),
                Ok(server) => match TcpListener::bind(&addr).await {
                    Err(err) => {
                        eprintln!("{name}: cannot listen on {addr}: {err}");
                        return ExitCode::FAILURE;
                    }
                    Ok(listener) => {
                        let path = deployment.path.clone().unwrap_or_else(|| "/mcp".to_owned());
                        let options = deployment.apply(HttpOptions::default().stateless(stateless));
                        match listener.local_addr() {
                            Ok(local) => eprintln!("{name}: serving Streamable HTTP at http://{local}{path}"),
                            Err(_) => eprintln!("{name}: serving Streamable HTTP on {addr}"),
                        }
                        server.serve_http_on(listener, options).await
                    }
                },
            },
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("{name}: {err}");
                ExitCode::FAILURE
            }
        }
    }

    /// With the `redis` feature, the Redis of `MCP_REDIS_URL` (when set and
    /// the server was given none): the replicas of one deployment share it.
    fn with_redis_from_env(self) -> Self {
        #[cfg(feature = "redis")]
        if !self.has_redis()
            && let Some(url) = std::env::var(super::REDIS_URL_ENV).ok().filter(|url| !url.trim().is_empty())
        {
            eprintln!("{}: sessions, streams and tasks in the Redis of {}", self.info.name, super::REDIS_URL_ENV);
            return self.redis(url.trim());
        }
        self
    }

    fn lint_command(mut self, json: bool, server_json: Option<String>, profile: Option<Profile>) -> ExitCode {
        let text = match &server_json {
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => Some(text),
                Err(err) => {
                    eprintln!("{}: cannot read {path}: {err}", self.info.name);
                    return ExitCode::from(2);
                }
            },
            None => None,
        };
        if let Some(profile) = profile {
            let mut options = self.lint.clone().unwrap_or_default();
            options.profile = profile;
            self.lint = Some(options);
        }
        let report = self.lint(text.as_deref());
        let printed = if json { format!("{}\n", report.to_json_string()) } else { format!("{report}\n") };
        let code = print_stdout(&printed);
        if code != ExitCode::SUCCESS {
            return code;
        }
        if !report.passed {
            return ExitCode::FAILURE;
        }
        // Clean definitions can still make a server that refuses to start (a
        // state type never registered, two resources at one URI): a CI job that
        // runs `lint` learns it here rather than at deployment. The linter has
        // had its say, so the build does not run it again.
        let name = self.info.name.clone();
        match self.lint_at_build(false).build() {
            Ok(_) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("{name}: the definitions pass the linter, but the server does not build: {err}");
                ExitCode::FAILURE
            }
        }
    }
}

/// `server-json [--name NAME] [--remote URL]`: what [`Server::run_cli`] prints for it.
#[derive(Debug, Default, PartialEq, Eq)]
struct ServerJsonArgs {
    name: Option<String>,
    remote: Option<String>,
}

fn parse_server_json(args: impl IntoIterator<Item = String>) -> Result<ServerJsonArgs, String> {
    let mut parsed = ServerJsonArgs::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let slot = match arg.as_str() {
            "--name" => &mut parsed.name,
            "--remote" => &mut parsed.remote,
            other => return Err(format!("unknown argument `{other}` of `server-json`")),
        };
        *slot = Some(args.next().ok_or_else(|| format!("`{arg}` needs a value"))?);
    }
    Ok(parsed)
}

impl Server {
    /// Print `server.json`, the MCP registry's manifest, from the crate's
    /// metadata and the definitions, after checking it with the server-json rules.
    fn server_json_command(self, usage: &str, args: impl IntoIterator<Item = String>) -> ExitCode {
        let name = self.info.name.clone();
        let args = match parse_server_json(args) {
            Ok(args) => args,
            Err(err) => {
                eprintln!("{name}: {err}\n{usage}");
                return ExitCode::from(2);
            }
        };
        let manifest = match super::landing::server_json(&self, args.name.as_deref(), args.remote.as_deref()) {
            Ok(manifest) => manifest,
            Err(err) => {
                eprintln!("{name}: {err}");
                return ExitCode::FAILURE;
            }
        };
        let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
        let report = self.lint(Some(&text));
        let findings: Vec<_> =
            report.diagnostics.iter().filter(|d| d.kind == crate::lint::DefinitionKind::ServerJson).collect();
        if !findings.is_empty() {
            for finding in findings {
                eprintln!("{name}: {finding}");
            }
            return ExitCode::FAILURE;
        }
        print_stdout(&format!("{text}\n"))
    }
}

/// Print on stdout, which may be a closed pipe.
fn print_stdout(text: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Result<Command, String> {
        with_env(line, &[])
    }

    fn with_env(line: &str, env: &[(&str, &str)]) -> Result<Command, String> {
        let env: Vec<(String, String)> = env.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        parse(line.split_whitespace().map(str::to_owned), |name| {
            env.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone())
        })
    }

    fn http(addr: &str, stateless: bool, deployment: Deployment) -> Result<Command, String> {
        Ok(Command::Http { addr: addr.into(), stateless, deployment })
    }

    fn strings(items: &[&str]) -> Option<Vec<String>> {
        Some(items.iter().map(|item| (*item).to_owned()).collect())
    }

    /// Each deployment setting is read from its flag and from its environment
    /// variable, the flag winning; `lint` and `--help` ignore the environment.
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
        assert_eq!(with_env("lint", &env), Ok(Command::Lint { json: false, server_json: None, profile: None }));
        assert_eq!(with_env("--help", &env), Ok(Command::Help));
        assert_eq!(with_env("", &[("MCP_HTTP_ADDR", " ")]), Ok(Command::Stdio));
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
        let options = format!(
            "{:?}",
            Deployment { trusted_proxies: strings(&["10.0.0.1"]), ..Deployment::default() }
                .apply(HttpOptions::default())
        );
        assert!(options.contains("\"10.0.0.1\""), "{options}");
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
        assert_eq!(args("-h"), Ok(Command::Help));
    }

    #[test]
    fn the_usage_names_the_binary_as_it_was_started() {
        assert_eq!(program_name(Some("/usr/local/bin/museum-server".into())).as_deref(), Some("museum-server"));
        assert_eq!(program_name(Some("museum".into())).as_deref(), Some("museum"));
        assert_eq!(program_name(Some(String::new())), None);
        assert_eq!(program_name(None), None);
        let text = usage("museum-server");
        assert!(text.contains("  museum-server --http ADDR [--stateless]"), "{text}");
        assert!(!text.contains("<server>"), "{text}");
    }

    #[test]
    fn parses_lint() {
        assert_eq!(args("lint"), Ok(Command::Lint { json: false, server_json: None, profile: None }));
        assert_eq!(
            args("lint --format json --server-json server.json --profile gemini"),
            Ok(Command::Lint { json: true, server_json: Some("server.json".into()), profile: Some(Profile::Gemini) })
        );
    }

    #[test]
    fn parses_server_json() {
        let parse = |line: &str| parse_server_json(line.split_whitespace().map(str::to_owned));
        assert_eq!(parse(""), Ok(ServerJsonArgs::default()));
        assert_eq!(
            parse("--remote https://m.example/mcp --name io.example/m"),
            Ok(ServerJsonArgs { name: Some("io.example/m".into()), remote: Some("https://m.example/mcp".into()) })
        );
        assert!(parse("--name").unwrap_err().contains("needs a value"));
        assert!(parse("--http x").unwrap_err().contains("unknown argument `--http`"));
    }

    #[test]
    fn refuses_what_it_does_not_know() {
        for (line, expected) in [
            ("--http", "`--http` needs a value"),
            ("--serve", "unknown argument `--serve`"),
            ("lint --format yaml", "unknown format `yaml`"),
            ("lint --profile claude", "unknown portability profile `claude`"),
            ("lint --http 127.0.0.1:0", "`lint` does not serve"),
            ("--format json", "belong to `lint`"),
            ("--stateless", "belong to `--http ADDR`"),
            ("--allowed-hosts mcp.example.com", "belong to `--http ADDR`"),
            ("lint --path /mcp", "belong to `--http ADDR`"),
            ("lint lint", "unknown argument `lint`"),
        ] {
            let err = args(line).expect_err(line);
            assert!(err.contains(expected), "{line}: {err}");
        }
    }
}
