//! Testing a server: its `mod tests` (below) calls the tools through the
//! in-process `testing::Client`, as a real client does; fuzzes a tool's
//! contract with `check_contract`, given known-good inputs
//! (`Cases::with_examples`) and a set-up that creates what they name; and
//! pins what a client receives in a reviewed snapshot
//! (`examples/snapshots/notes.contract.snap`) with `assert_contract_pinned!`.
//!
//! ```text
//! cargo test --test examples testing::    # these tests (feature `testing` of the dev-dependency)
//! cargo run --example testing             # the server itself, over stdio
//! ```

use std::collections::BTreeSet;
use std::sync::Mutex;

use mcp_contract::prelude::*;

/// The notes, by title.
#[derive(Default)]
pub struct Notes(Mutex<BTreeSet<String>>);

impl Notes {
    fn titles(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[derive(Deserialize, JsonSchema)]
#[schemars(example = serde_json::json!({"title": "groceries"}))]
pub struct NoteInput {
    /// The note's title, e.g. "groceries".
    pub title: String,
}

/// Create a note; creating one that exists changes nothing.
#[mcp_tool(annotations(destructive = false, idempotent, open_world = false))]
async fn create_note(input: NoteInput, notes: State<Notes>) -> Result<String, McpError> {
    notes.titles().insert(input.title.clone());
    Ok(format!("Created {}.", input.title))
}

/// Delete a note by its title.
#[mcp_tool(
    annotations(destructive, open_world = false),
    errors(no_such_note(code = NotFound, when = "No note has this title",
        recovery = "Call create_note first, or check the title's spelling.")),
)]
async fn delete_note(input: NoteInput, notes: State<Notes>, ctx: Ctx) -> Result<String, McpError> {
    if !notes.titles().remove(&input.title) {
        return Err(ctx.fail(no_such_note, format!("No note `{}`.", input.title)));
    }
    Ok(format!("Deleted {}.", input.title))
}

fn server() -> Server {
    // Named for the pin: the snapshot is `snapshots/notes.contract.snap`.
    Server::new("notes", "1.0.0").tool(CreateNote).tool(DeleteNote).state(Notes::default())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::testing::{Cases, Client, check_contract};
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn create_then_delete_then_fail_as_declared() {
        let client = Client::connect(server()).await.unwrap();
        assert_eq!(client.call(CreateNote, json!({"title": "books"})).await.unwrap(), "Created books.");
        assert_eq!(client.call(DeleteNote, json!({"title": "books"})).await.unwrap(), "Deleted books.");
        let err = client.call(DeleteNote, json!({"title": "books"})).await.unwrap_err();
        assert_eq!((err.code(), err.reason()), (JsonRpcErrorCode::NotFound, Some("no_such_note")));
        assert!(err.recovery_hint().unwrap().contains("create_note"));
    }

    /// Generated inputs find `no_such_note` alone; the examples and the set-up
    /// make successes too, so both sides of the contract are checked.
    #[tokio::test]
    async fn the_contract_holds_for_generated_inputs() {
        let client = Client::connect(server()).await.unwrap();
        let cases = Cases::new(120).seed(33).with_examples([json!({"title": "books"})]).setup(|client| {
            Box::pin(async move {
                for title in ["groceries", "books"] {
                    client.call_tool("create_note", json!({"title": title})).await?;
                }
                Ok(())
            })
        });
        let report = check_contract(&client, DeleteNote, cases).await.unwrap();
        report.assert_passed();
        assert!(report.succeeded > 0 && report.failed > 0, "{report}");
    }

    /// What a client receives, pinned; a breaking change fails unless the
    /// server's version announces it.
    #[tokio::test]
    async fn the_contract_is_pinned() {
        mcp_contract::testing::assert_contract_pinned!(server());
    }
}
