//! A long call as a task: `task(optional)` answers a client that declares
//! the tasks extension at once with a task it polls (`tasks/get`), and any
//! other client with the plain result. The handler is the same `async fn`;
//! its `ctx.progress(..)` becomes the task's `statusMessage`, and progress
//! notifications where the call asked for them.
//!
//! ```text
//! cargo run --example tasks -- --http 127.0.0.1:8080
//! ```

use std::time::Duration;

use mcp_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct ExportInput {
    /// The department to export, e.g. "Asian Art".
    pub department: String,
}

/// Export a department's records as one file; takes a while, so it may run as a task.
#[mcp_tool(task(optional), annotations(read_only, open_world = false))]
async fn export_department(input: ExportInput, ctx: Ctx) -> Result<String, McpError> {
    for part in 1..=3 {
        tokio::time::sleep(Duration::from_millis(20)).await; // the long part
        ctx.progress(f64::from(part), Some(3.0), Some(format!("Exporting {}", input.department))).await;
    }
    Ok(format!("Exported {} to export.csv.", input.department))
}

fn server() -> Server {
    // Tasks are kept in memory (1024 of them, 15 minutes each) unless a
    // `.task_store(..)` shared by replicas is given.
    mcp_contract::server_from_crate!().tool(ExportDepartment)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server().run_cli().await
}

#[cfg(test)]
mod tests {
    use mcp_contract::testing::{Client, Notification};
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn a_client_of_the_extension_gets_a_task_and_polls_it() {
        let client = Client::builder().tasks().connect(server()).await.unwrap();
        let task = client.call_tool_as_task("export_department", json!({"department": "Asian Art"})).await.unwrap();
        let polled = client.get_task(&task.task_id).await.unwrap();
        assert_eq!(polled.task.task_id, task.task_id);
        let result = client.task_result(&task.task_id).await.unwrap();
        assert_eq!(result.content[0].as_text().unwrap().text, "Exported Asian Art to export.csv.");
        let done = client.get_task(&task.task_id).await.unwrap();
        assert_eq!(serde_json::to_value(done.status()).unwrap(), "completed");
        // The session heard the task's progress under the call's token.
        let progress = client.wait_for(3, |n| matches!(n, Notification::Progress { .. })).await.unwrap();
        assert!(matches!(&progress[2], Notification::Progress { progress, .. } if *progress == 3.0), "{progress:?}");
    }

    #[tokio::test]
    async fn any_other_client_gets_the_plain_result() {
        let client = Client::connect(server()).await.unwrap();
        let exported = client.call(ExportDepartment, json!({"department": "Egyptian Art"})).await.unwrap();
        assert_eq!(exported, "Exported Egyptian Art to export.csv.");
        let progress = client.wait_for(3, |n| matches!(n, Notification::Progress { .. })).await.unwrap();
        assert!(
            matches!(&progress[0], Notification::Progress { message: Some(message), total: Some(_), .. } if message == "Exporting Egyptian Art"),
            "{progress:?}"
        );
    }
}
