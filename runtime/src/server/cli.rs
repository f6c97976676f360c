//! The command line every server binary gets from [`Server::run_cli`]:
//! serve over stdio or Streamable HTTP, or lint the definitions.

use std::io::Write;
use std::process::ExitCode;

use tokio::net::TcpListener;

use super::{HttpOptions, Server};
use crate::lint::Profile;

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Stdio,
    Http { addr: String, stateless: bool },
    Lint { json: bool, server_json: Option<String>, profile: Option<Profile> },
    Help,
}

const USAGE: &str = "\
usage:
  <server>                                   serve MCP over stdio (what MCP clients launch)
  <server> --http ADDR [--stateless]         serve Streamable HTTP at http://ADDR/mcp
  <server> lint [--format text|json] [--server-json PATH] [--profile default|strict|gemini]
                                             check the tool definitions (exit 1 on errors)
  <server> server-json [--name NAME] [--remote URL]
                                             print the MCP registry's server.json
  <server> --help";

fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let mut http = None;
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
            "--server-json" => server_json = Some(value("--server-json", "server.json")?),
            "--profile" => profile = Some(value("--profile", "strict")?.parse::<Profile>()?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    match (lint, http) {
        (true, Some(_)) => Err("`lint` does not serve: drop `--http`".into()),
        (true, None) => Ok(Command::Lint { json, server_json, profile }),
        (false, _) if json || server_json.is_some() || profile.is_some() => {
            Err("`--format`, `--server-json` and `--profile` belong to `lint`".into())
        }
        (false, Some(addr)) => Ok(Command::Http { addr, stateless }),
        (false, None) if stateless => Err("`--stateless` belongs to `--http ADDR`".into()),
        (false, None) => Ok(Command::Stdio),
    }
}

impl Server {
    /// Run the command line of a server binary, from `std::env::args()`:
    ///
    /// - no argument: serve over stdio (what MCP clients launch);
    /// - `--http ADDR [--stateless]`: serve Streamable HTTP at `http://ADDR/mcp`
    ///   (port 0 lets the system choose; the address is printed on stderr);
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
    /// Bad arguments print the usage and exit with 2.
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
        self.run_cli_with(std::env::args().skip(1)).await
    }

    /// [`Server::run_cli`] with the arguments given (without the program name).
    pub async fn run_cli_with(self, args: impl IntoIterator<Item = String>) -> ExitCode {
        let name = self.info.name.clone();
        let mut args = args.into_iter().peekable();
        if args.peek().is_some_and(|arg| arg == "server-json") {
            return self.server_json_command(args.skip(1));
        }
        let command = match parse(args) {
            Ok(command) => command,
            Err(err) => {
                eprintln!("{name}: {err}\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let served = match command {
            Command::Help => return print_stdout(&format!("{USAGE}\n")),
            Command::Lint { json, server_json, profile } => return self.lint_command(json, server_json, profile),
            Command::Stdio => {
                // stdout is the protocol; a person who started this in a terminal reads stderr.
                eprintln!("{name}: serving MCP over stdio; connect a client, Ctrl-C to stop");
                self.serve_stdio().await
            }
            Command::Http { addr, stateless } => match self.build() {
                Err(err) => Err(err),
                Ok(server) => match TcpListener::bind(&addr).await {
                    Err(err) => {
                        eprintln!("{name}: cannot listen on {addr}: {err}");
                        return ExitCode::FAILURE;
                    }
                    Ok(listener) => {
                        let options = HttpOptions::default().stateless(stateless);
                        match listener.local_addr() {
                            Ok(local) => eprintln!("{name}: serving Streamable HTTP at http://{local}/mcp"),
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
    fn server_json_command(self, args: impl IntoIterator<Item = String>) -> ExitCode {
        let name = self.info.name.clone();
        let args = match parse_server_json(args) {
            Ok(args) => args,
            Err(err) => {
                eprintln!("{name}: {err}\n{USAGE}");
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
        parse(line.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn parses_the_serving_modes() {
        assert_eq!(args(""), Ok(Command::Stdio));
        assert_eq!(args("--http 127.0.0.1:0"), Ok(Command::Http { addr: "127.0.0.1:0".into(), stateless: false }));
        assert_eq!(
            args("--http 127.0.0.1:0 --stateless"),
            Ok(Command::Http { addr: "127.0.0.1:0".into(), stateless: true })
        );
        assert_eq!(args("--stateless --http [::1]:80"), Ok(Command::Http { addr: "[::1]:80".into(), stateless: true }));
        assert_eq!(args("-h"), Ok(Command::Help));
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
            ("--stateless", "belongs to `--http ADDR`"),
            ("lint lint", "unknown argument `lint`"),
        ] {
            let err = args(line).expect_err(line);
            assert!(err.contains(expected), "{line}: {err}");
        }
    }
}
