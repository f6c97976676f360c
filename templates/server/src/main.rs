//! No argument: serve over stdio. `--http 127.0.0.1:8080`: Streamable HTTP.
//! `lint`: the definition linter (exit 1 on errors). `--help`: the rest.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    // Failed calls and panics on stderr, filtered by RUST_LOG.
    mcp_contract::logging::init();
    {{crate_name}}::server().run_cli().await
}
