// Drive a tool that runs as a task (the MCP tasks extension, SEP-2663) from the
// TypeScript SDK v2 client: `client.request` with a result schema of our own.
// The part between the `recipe` markers is the README's recipe, word for word
// (tests/e2e.rs checks it); the rest checks the museum example with it.
//
//     node tasks_recipe.mjs target/debug/examples/museum
//
// Exits 0 and prints `ok: <n> checks` when every check passed.

import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

let checks = 0;
function check(condition, what, detail) {
  if (!condition) {
    throw new Error(`${what}: ${JSON.stringify(detail)}`);
  }
  checks += 1;
}

// --- recipe: tasks from the TypeScript client
import { Client } from "@modelcontextprotocol/client";
import { z } from "zod";

const Task = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollIntervalMs: z.number().optional(),
  result: z.any().optional(),
  error: z.any().optional(),
});

async function exportAsTask(client, department, seen) {
  // A client of the extension gets a task: the task's fields, `resultType: "task"`.
  let task = await client.request(
    { method: "tools/call", params: { name: "export_department", arguments: { department } } },
    Task,
  );
  while (task.status === "working" || task.status === "input_required") {
    await new Promise((done) => setTimeout(done, task.pollIntervalMs ?? 500));
    task = await client.request({ method: "tasks/get", params: { taskId: task.taskId } }, Task);
    if (task.statusMessage) seen.push(task.statusMessage); // the handler's progress
  }
  return task; // "completed" has `result`, "failed" has `error`; "cancelled" has neither
}

// Declare the extension at `initialize`:
// const client = new Client({ name: "exporter", version: "1.0.0" },
//   { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } });
// --- end recipe

const client = new Client(
  { name: "exporter", version: "1.0.0" },
  { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
);
await client.connect(new StdioClientTransport({ command: process.argv[2] }));
try {
  const seen = [];
  const done = await exportAsTask(client, "Paintings", seen);
  check(done.status === "completed", "the task completes", done);
  check(done.result.content[0].text.startsWith("id,title,year\n"), "its result is the CSV", done);
  check(seen.some((message) => message.includes(" of ")), "tasks/get showed the task's progress", seen);
} finally {
  await client.close();
}
console.log(`ok: ${checks} checks`);
