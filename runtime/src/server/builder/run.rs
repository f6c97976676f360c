//! Serving a [`Server`]: over stdio, over Streamable HTTP, or as the command
//! line of a server binary asks ([`Server::run_cli`], [`ServeArgs::run`]).

use std::convert::Infallible;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, FromArgMatches};
use tokio::net::{TcpListener, ToSocketAddrs};

use crate::lint::Profile;
use crate::server::builder::Server;
use crate::server::cli::ServeArgs;
use crate::server::cli::{Command, program_name};
use crate::server::dispatch::lifecycle::Serving;
use crate::server::error::ServerError;
use crate::server::transport::http::HttpOptions;
use crate::server::transport::stdio::StdioOptions;

/// `std::eprintln!` panics when stderr cannot be written (`2>/dev/full`, a
/// closed pipe), which ended a server before it served. What the command line
/// says on stderr is for a person; when nobody can read it, it is dropped.
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

impl Server {
    /// Serve over stdio until the client closes stdin or the process gets
    /// SIGINT/SIGTERM. Logs must go to stderr: stdout carries the protocol.
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when building fails ([`Server::build`]), the handshake
    /// fails, or the serving task dies.
    pub async fn serve_stdio(self) -> Result<(), ServerError> {
        self.build_state().await?.build()?.serve_stdio().await
    }

    /// [`Server::serve_stdio`] with the shutdown of `options`.
    ///
    /// # Errors
    ///
    /// As [`Server::serve_stdio`].
    pub async fn serve_stdio_with(self, options: StdioOptions) -> Result<(), ServerError> {
        self.build_state().await?.build()?.serve_stdio_with(options).await
    }

    /// Serve Streamable HTTP at `addr` (endpoint `/mcp`) until SIGINT/SIGTERM.
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when building fails or the address cannot be bound.
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> Result<(), ServerError> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`Server::serve_http`] with options: path, stateless mode, allowed hosts, shutdown.
    ///
    /// # Errors
    ///
    /// A [`ServerError`] when building fails or the address cannot be bound.
    pub async fn serve_http_with(self, addr: impl ToSocketAddrs, options: HttpOptions) -> Result<(), ServerError> {
        let server = self.build_state().await?.build()?;
        let listener = TcpListener::bind(addr).await?;
        server.serve_http_on(listener, options).await
    }
}

impl ServeArgs {
    /// Do what the command line asks of `server`: serve it (building its
    /// state first, see [`Server::state_with`]), lint it, or print its
    /// `server.json`. The exit code is 0 on success, 1 when serving fails or
    /// `lint` finds an error, 2 for flags that do not go together.
    pub async fn run(self, server: Server) -> ExitCode {
        let code = server.run_command(self).await;
        // The log thread ends with the process: let it write what is queued.
        #[cfg(feature = "logging")]
        crate::logging::flush(std::time::Duration::from_secs(1));
        code
    }
}

impl Server {
    /// Run the command line of a server binary that has no flags of its own,
    /// from `std::env::args()`: [`ServeArgs`], parsed alone.
    ///
    /// - no argument: serve over stdio (what MCP clients launch);
    /// - `--http ADDR [--stateless]`: serve Streamable HTTP at `http://ADDR/mcp`
    ///   (port 0 lets the system choose; the address is printed on stderr), with
    ///   `--path PATH`, `--allowed-hosts HOST,..`, `--allowed-origins
    ///   ORIGIN,..`, `--trusted-proxies ADDR|NET,..`, `--metrics-path PATH`
    ///   (feature `metrics`), `--rate-limit N/min[,burst=B]` (feature
    ///   `rate-limit`), `--max-sessions N`, `--max-awake-sessions N`,
    ///   `--session-idle-timeout SECONDS` and `--session-hibernate-after
    ///   SECONDS`; without a flag, each comes from `MCP_HTTP_ADDR`,
    ///   `MCP_HTTP_PATH`, `MCP_ALLOWED_HOSTS`, `MCP_ALLOWED_ORIGINS`,
    ///   `MCP_TRUSTED_PROXIES`, `MCP_METRICS_PATH`, `MCP_RATE_LIMIT`,
    ///   `MCP_MAX_SESSIONS`, `MCP_MAX_AWAKE_SESSIONS`,
    ///   `MCP_SESSION_IDLE_TIMEOUT` and `MCP_SESSION_HIBERNATE_AFTER`; with the `redis` feature,
    ///   `MCP_REDIS_URL` gives the Redis that replicas share (unless
    ///   `Server::redis` gave one), and `MCP_REDIS_WRITE_BEHIND=1` sends a
    ///   call's events while they are written to it (`RedisStore::write_behind`);
    /// - `lint [--format text|json] [--server-json PATH] [--profile NAME]`: run the
    ///   definition linter (see [`ServeCommand::Lint`](crate::server::ServeCommand::Lint));
    /// - `server-json [--name NAME] [--remote URL]`: print the MCP registry's
    ///   `server.json` (see [`ServeCommand::ServerJson`](crate::server::ServeCommand::ServerJson)).
    ///
    /// `--help` prints the usage, with the binary's name; bad arguments print
    /// what is wrong and exit with 2. A server with settings of its own (a
    /// database path, an API key) flattens [`ServeArgs`] into its own parser
    /// instead, and builds its state after parsing with [`Server::state_with`].
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
        let program = program.unwrap_or_else(|| self.info.name.clone());
        let command = ServeArgs::augment_args(clap::Command::new(program.clone()).version(self.info.version.clone()));
        let parsed = command
            .try_get_matches_from(std::iter::once(program).chain(args))
            .and_then(|matches| ServeArgs::from_arg_matches(&matches));
        match parsed {
            Ok(args) => args.run(self).await,
            Err(err) => {
                // `--help` and `--version` are "errors" that print on stdout and exit 0.
                let _ = err.print();
                ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2))
            }
        }
    }

    async fn run_command(self, args: ServeArgs) -> ExitCode {
        let name = self.info.name.clone();
        let command = match args.command(|name| std::env::var(name).ok()) {
            Ok(command) => command,
            Err(err) => {
                eprintln!("{name}: {err}\n\nFor more information, try '--help'.");
                return ExitCode::from(2);
            }
        };
        let served = match command {
            Command::Lint { json, server_json, profile } => return self.lint_command(json, server_json, profile),
            Command::ServerJson { name, remote } => return self.server_json_command(name, remote),
            // Serving is announced by the last `on_serve` hook: once the state
            // is built, the server checked, the address bound and the hooks
            // before it passed. A server that cannot start says why, and
            // nothing that would send a client to it.
            Command::Stdio => {
                // stdout is the protocol; a person who started this in a terminal reads stderr.
                let announce = name.clone();
                self.on_serve(move |_| async move {
                    eprintln!("{announce}: serving MCP over stdio; connect a client, Ctrl-C to stop");
                    Ok::<_, Infallible>(())
                })
                .serve_stdio()
                .await
            }
            Command::Http { addr, stateless, deployment } => {
                let path = deployment.path.clone().unwrap_or_else(|| "/mcp".to_owned());
                let (announce, asked) = (name.clone(), addr.clone());
                let server = self.with_redis_from_env().on_serve(move |serving: Serving| async move {
                    match serving.addr {
                        Some(local) => eprintln!("{announce}: serving Streamable HTTP at http://{local}{path}"),
                        None => eprintln!("{announce}: serving Streamable HTTP on {asked}"),
                    }
                    Ok::<_, Infallible>(())
                });
                match server.build_state().await.and_then(Server::build) {
                    Err(err) => Err(err),
                    Ok(server) => match TcpListener::bind(&addr).await {
                        Err(err) => {
                            eprintln!("{name}: cannot listen on {addr}: {err}");
                            return ExitCode::FAILURE;
                        }
                        Ok(listener) => {
                            let options = deployment.apply(HttpOptions::default().stateless(stateless));
                            server.serve_http_on(listener, options).await
                        }
                    },
                }
            }
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
            && let Some(url) =
                std::env::var(crate::server::store::redis::REDIS_URL_ENV).ok().filter(|url| !url.trim().is_empty())
        {
            use crate::server::error::RedisUrlError;
            use crate::server::store::redis::{
                REDIS_CA_FILE_ENV, REDIS_CLIENT_CERT_FILE_ENV, REDIS_CLIENT_KEY_FILE_ENV, REDIS_SENTINEL_PASSWORD_ENV,
                REDIS_URL_ENV, REDIS_WRITE_BEHIND_ENV, RedisStore,
            };
            eprintln!("{}: sessions, streams and tasks in the Redis of {REDIS_URL_ENV}", self.info.name);
            let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
            // A file an operator named and the server cannot read is an error, not a silent default.
            let read = |name: &str, what: &str| -> Result<Option<Vec<u8>>, RedisUrlError> {
                let Some(path) = set(name) else { return Ok(None) };
                std::fs::read(&path).map(Some).map_err(|err| {
                    RedisUrlError(format!(
                        "cannot read the {what} of {name}, {}: {err}",
                        std::path::Path::new(&path).display()
                    ))
                })
            };
            let store = RedisStore::new(url.trim()).and_then(|mut store| {
                if let Some(pem) = read(REDIS_CA_FILE_ENV, "CA")? {
                    store = store.ca_certificate(pem)?;
                }
                match (read(REDIS_CLIENT_CERT_FILE_ENV, "certificate")?, read(REDIS_CLIENT_KEY_FILE_ENV, "key")?) {
                    (Some(certificate), Some(key)) => store = store.client_certificate(certificate, key)?,
                    (None, None) => {}
                    _ => {
                        return Err(RedisUrlError(format!(
                            "{REDIS_CLIENT_CERT_FILE_ENV} and {REDIS_CLIENT_KEY_FILE_ENV} go together: set both or neither"
                        )));
                    }
                }
                if let Some(password) = set(REDIS_SENTINEL_PASSWORD_ENV) {
                    let password = password.into_string().map_err(|_| {
                        RedisUrlError(format!("{REDIS_SENTINEL_PASSWORD_ENV} is not UTF-8"))
                    })?;
                    store = store.sentinel_password(password)?;
                }
                if let Some(value) = set(REDIS_WRITE_BEHIND_ENV) {
                    let Some(on) = crate::auth::env::flag(&value.to_string_lossy()) else {
                        return Err(RedisUrlError(format!("{REDIS_WRITE_BEHIND_ENV} is `true` or `false`")));
                    };
                    if on {
                        eprintln!("{}: a call's events sent while they are written to Redis ({REDIS_WRITE_BEHIND_ENV})", self.info.name);
                    }
                    store = store.write_behind(on);
                }
                Ok(store)
            });
            return self.with_redis_store(store);
        }
        self
    }

    fn lint_command(mut self, json: bool, server_json: Option<PathBuf>, profile: Option<Profile>) -> ExitCode {
        let text = match &server_json {
            Some(path) => match std::fs::read_to_string(path) {
                Ok(text) => Some(text),
                Err(err) => {
                    eprintln!("{}: cannot read {}: {err}", self.info.name, path.display());
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
        // had its say, so the build does not run it again; the state of a
        // factory counts as registered, and the factory does not run.
        let name = self.info.name.clone();
        let promised: Vec<_> = self.pending_states.drain(..).map(|pending| pending.state_type).collect();
        match self.lint_at_build(false).build_counting(&promised) {
            Ok(_) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("{name}: the definitions pass the linter, but the server does not build: {err}");
                ExitCode::FAILURE
            }
        }
    }

    /// Print `server.json`, the MCP registry's manifest, from the crate's
    /// metadata and the definitions, after checking it with the server-json rules.
    fn server_json_command(self, registry_name: Option<String>, remote: Option<String>) -> ExitCode {
        let name = self.info.name.clone();
        let manifest = match crate::server::transport::landing::server_json(
            &self.published(),
            registry_name.as_deref(),
            remote.as_deref(),
        ) {
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
    use crate::server::builder::Server;
    use crate::server::transport::landing::server_json;

    #[test]
    fn server_json_passes_every_server_json_rule() {
        let server = Server::new("museum", "1.4.2")
            .title("Museum")
            .description("Search a museum's collection. ".repeat(6))
            .repository("https://github.com/acme/museum");
        let manifest = server_json(&server.published(), None, Some("https://museum.example.org/mcp")).unwrap();
        assert_eq!(manifest["name"], "io.github.acme/museum");
        let report = server.lint(Some(&manifest.to_string()));
        assert!(report.diagnostics.iter().all(|d| !d.rule.starts_with("server-json")), "{report}");
        let unnamed = Server::new("museum", "1.0.0").description("A museum");
        assert!(server_json(&unnamed.published(), None, None).unwrap_err().contains("--name"));
        assert!(
            server_json(&unnamed.published(), Some("io.example/museum"), Some("ftp://x"))
                .unwrap_err()
                .contains("https://")
        );
        assert!(
            server_json(&Server::new("m", "1.0.0").published(), Some("io.example/m"), None)
                .unwrap_err()
                .contains("description")
        );
    }
}
