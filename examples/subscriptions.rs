//! Announcing changes while the server runs: with a `Changes` handle the
//! server offers `resources/subscribe`, tells the subscribed sessions when a
//! resource changed (`resource_updated`), and hides a tool and tells every
//! session so (`disable_tool`, `list_changed`).
//!
//! ```text
//! cargo run --example subscriptions -- --http 127.0.0.1:8080
//! ```

use std::sync::Mutex;

use mcp_contract::prelude::*;
use mcp_contract::server::Changes;

const EXHIBITION: &str = "museum://exhibitions/current";

/// The exhibition on show, which `change_exhibition` replaces.
pub struct OnShow(Mutex<String>);

/// The exhibition on show now.
#[mcp_resource(uri = "museum://exhibitions/current", name = "current_exhibition", mime_type = "text/plain")]
fn current_exhibition(on_show: State<OnShow>) -> Result<String, McpError> {
    Ok(on_show.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone())
}

#[derive(Deserialize, JsonSchema)]
pub struct ExhibitionInput {
    /// The exhibition's title, e.g. "Ancient Egypt".
    pub title: String,
}

/// Put another exhibition on show; subscribers of museum://exhibitions/current hear of it.
#[mcp_tool(annotations(destructive = false, idempotent, open_world = false))]
async fn change_exhibition(
    input: ExhibitionInput,
    on_show: State<OnShow>,
    changes: State<Changes>,
) -> Result<String, McpError> {
    // The guard ends before the `.await`: a handler's future must be `Send`.
    *on_show.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = input.title.clone();
    let reached = changes.resource_updated(EXHIBITION).await;
    Ok(format!("Now on show: {} ({reached} subscribers told).", input.title))
}

/// Book a guided tour of the exhibition.
#[mcp_tool(annotations(destructive = false, open_world = false))]
async fn book_tour() -> Result<String, McpError> {
    Ok("Tour booked for 14:00.".to_owned())
}

/// Close the tour bookings for the day: book_tour disappears from the tools.
#[mcp_tool(annotations(destructive = false, idempotent, open_world = false))]
async fn close_bookings(changes: State<Changes>) -> Result<String, McpError> {
    changes.disable_tool("book_tour").await;
    Ok("Bookings closed.".to_owned())
}

fn server() -> Server {
    mcp_contract::server_from_crate!()
        .resource(CurrentExhibition)
        .tool(ChangeExhibition)
        .tool(BookTour)
        .tool(CloseBookings)
        .state(OnShow(Mutex::new("Ancient Egypt".to_owned())))
        .changes(Changes::new())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::server::PrimitiveKind;
    use mcp_contract::testing::{Client, Notification};
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn a_subscriber_hears_of_the_change() {
        let client = Client::connect(server()).await.unwrap();
        client.subscribe(EXHIBITION).await.unwrap();
        let changed = client.call(ChangeExhibition, json!({"title": "Samurai"})).await.unwrap();
        assert_eq!(changed, "Now on show: Samurai (1 subscribers told).");
        let heard = client.wait_for(1, |n| matches!(n, Notification::ResourceUpdated { .. })).await.unwrap();
        assert_eq!(heard, [Notification::ResourceUpdated { uri: EXHIBITION.to_owned() }]);
        let read = serde_json::to_value(client.read_resource(EXHIBITION).await.unwrap()).unwrap();
        assert_eq!(read["contents"][0]["text"], "Samurai");
    }

    #[tokio::test]
    async fn a_disabled_tool_is_gone_and_every_session_hears_so() {
        let client = Client::connect(server()).await.unwrap();
        assert_eq!(client.call(BookTour, json!({})).await.unwrap(), "Tour booked for 14:00.");
        client.call(CloseBookings, json!({})).await.unwrap();
        client.wait_for(1, |n| *n == Notification::ListChanged(PrimitiveKind::Tool)).await.unwrap();
        let tools = client.list_tools().await.unwrap();
        assert!(tools.iter().all(|tool| tool.name != "book_tour"), "hidden from tools/list");
        assert!(client.call(BookTour, json!({})).await.is_err(), "and refused");
    }
}
