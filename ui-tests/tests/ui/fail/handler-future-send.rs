use std::sync::Mutex;

use mcp_contract::prelude::*;

pub struct Vault {
    notes: Mutex<Vec<String>>,
}

async fn save(_note: &str) {}

/// Count the notes, saving the first on the way.
#[mcp_tool]
async fn count_notes(vault: State<Vault>) -> Result<String, McpError> {
    let notes = vault.notes.lock().unwrap();
    // The guard lives across the `.await`: the future is not `Send`.
    save(&notes[0]).await;
    Ok(notes.len().to_string())
}

/// Without state, the handler's call goes through the runtime: the same one error.
#[mcp_tool]
async fn first_note() -> Result<String, McpError> {
    let shared = std::rc::Rc::new(String::from("first"));
    save(&shared).await;
    Ok(shared.to_string())
}

/// A resource's handler is held to the same: one error, at its name.
#[mcp_resource(uri = "vault://count", name = "Note count")]
async fn note_count(vault: State<Vault>) -> Result<String, McpError> {
    let notes = vault.notes.lock().unwrap();
    save(&notes[0]).await;
    Ok(notes.len().to_string())
}

fn main() {}
