//! Shared state: values every call shares, taken by handlers as `State<T>`.
//! A counter is registered as it is (`Server::state`); the catalog is opened
//! by a factory (`Server::state_with`) that runs only when the server serves,
//! so `--help` and `lint` never read the file.
//!
//! ```text
//! cargo run --example state                                     # stdio, the built-in catalog
//! CATALOG=titles.txt cargo run --example state -- --http 127.0.0.1:8080   # one title a line
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_contract::prelude::*;

/// The titles of the collection, read once at start-up.
pub struct Catalog {
    titles: Vec<String>,
}

impl Catalog {
    /// The file `path` names, one title a line; without one, a catalog of three.
    async fn open(path: Option<std::path::PathBuf>) -> std::io::Result<Catalog> {
        let titles = match path {
            // Read once, before the server serves: blocking the start-up is fine.
            Some(path) => std::fs::read_to_string(path)?.lines().map(str::to_owned).collect(),
            None => ["Wheat Field with Cypresses", "The Great Wave", "Water Lilies"].map(String::from).to_vec(),
        };
        Ok(Catalog { titles })
    }
}

/// How many lookups the server answered since it started.
#[derive(Default)]
pub struct Lookups(AtomicU64);

#[derive(Deserialize, JsonSchema)]
pub struct TitleInput {
    /// Position in the catalog, from 0.
    pub index: usize,
}

/// Read one title of the catalog by its position.
#[mcp_tool(
    annotations(read_only, open_world = false),
    errors(no_such_index(code = NotFound, when = "The catalog has no title at this position",
        recovery = "Ask for a position below the catalog's size, which catalog_size gives.")),
)]
async fn title(
    input: TitleInput,
    catalog: State<Catalog>,
    lookups: State<Lookups>,
    ctx: Ctx,
) -> Result<String, McpError> {
    lookups.0.fetch_add(1, Ordering::Relaxed);
    catalog
        .titles
        .get(input.index)
        .cloned()
        .ok_or_else(|| ctx.fail(no_such_index, format!("No title at {}.", input.index)))
}

/// Tell how many titles the catalog holds and how many lookups were made.
#[mcp_tool(annotations(read_only, open_world = false))]
async fn catalog_size(catalog: State<Catalog>, lookups: State<Lookups>) -> Result<String, McpError> {
    Ok(format!("{} titles, {} lookups so far.", catalog.titles.len(), lookups.0.load(Ordering::Relaxed)))
}

fn server(catalog: Option<std::path::PathBuf>) -> Server {
    mcp_contract::server_from_crate!()
        .tool(Title)
        .tool(CatalogSize)
        .state(Lookups::default())
        .state_with(move || Catalog::open(catalog))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server(std::env::var_os("CATALOG").map(Into::into)).run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::server::ServerError;
    use mcp_contract::testing::Client;
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn every_call_shares_the_state() {
        let client = Client::connect(server(None)).await.expect("the factory runs when the client connects");
        assert_eq!(client.call(Title, json!({"index": 1})).await.unwrap(), "The Great Wave");
        let err = client.call(Title, json!({"index": 3})).await.unwrap_err();
        assert_eq!(err.reason(), Some("no_such_index"));
        assert_eq!(client.call(CatalogSize, json!({})).await.unwrap(), "3 titles, 2 lookups so far.");
    }

    #[tokio::test]
    async fn the_factory_reads_the_catalog_and_a_failed_one_stops_the_server() {
        let file = std::env::temp_dir().join(format!("mcp-contract-state-example-{}.txt", std::process::id()));
        std::fs::write(&file, "Vase\nBowl\n").unwrap();
        let client = Client::connect(server(Some(file.clone()))).await.unwrap();
        std::fs::remove_file(&file).unwrap();
        assert_eq!(client.call(Title, json!({"index": 1})).await.unwrap(), "Bowl");

        let Err(err) = Client::connect(server(Some(file))).await else { panic!("the catalog is gone") };
        assert!(matches!(err, ServerError::StateFactory { .. }), "{err}");
    }

    #[test]
    fn a_handler_alone_takes_its_state() {
        let catalog = State::new(Catalog { titles: vec!["Vase".into()] });
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let found = runtime.block_on(title(
            TitleInput { index: 0 },
            catalog,
            State::new(Lookups::default()),
            Title::test_ctx(),
        ));
        assert_eq!(found.unwrap(), "Vase");
    }
}
