// Drive the museum example with the official TypeScript MCP SDK client, which
// validates `structuredContent` against a tool's `outputSchema` even on error
// results. Run by tests/e2e.rs:
//
//     node strict_client.mjs <path to the museum binary> <path to collection.json>
//
// Prints `ok: <n> checks` and exits 0 when every check passed.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const [museum, dataPath] = process.argv.slice(2);
const records = JSON.parse(readFileSync(dataPath, "utf8"));
let checks = 0;

function check(condition, what, detail = "") {
  if (!condition) {
    throw new Error(`${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
  checks += 1;
}

const transport = new StdioClientTransport({
  command: museum,
  env: { PATH: process.env.PATH ?? "", MUSEUM_TEST_TOOLS: "1" },
  stderr: "inherit",
});
const client = new Client({ name: "mcp-contract-e2e", version: "0.0.0" });
await client.connect(transport);

try {
  check(client.getServerVersion()?.name === "museum", "server info", client.getServerVersion());
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
  for (const name of ["search_objects", "get_object", "get_object_image", "collection_stats"]) {
    check(byName[name]?.outputSchema, `${name} declares an output schema`);
  }

  // Successes validate against the advertised schemas.
  const first = records[0];
  const found = await client.callTool({ name: "get_object", arguments: { object_id: first.id } });
  check(!found.isError && found.structuredContent.id === first.id, "get_object succeeds", found);
  const page = await client.callTool({ name: "search_objects", arguments: { query: "portrait", page_size: 3 } });
  check(!page.isError && page.structuredContent.results.length === 3, "search_objects succeeds", page);

  // Error results of tools with an output schema: accepted, not an output-validation failure.
  const throttledId = records.find((record) => record.id % 3 === 0).id;
  const cases = [
    ["get_object_image", { object_id: throttledId }, -32003, "image_service_busy"],
    ["get_object_image", { object_id: 5 }, -32001, "not_in_collection"],
    ["get_object", { object_id: 5 }, -32001, "not_in_collection"],
    ["search_objects", { query: "portrait", page_size: 99 }, -32007, "invalid_page_size"],
  ];
  for (const [name, args, code, reason] of cases) {
    const result = await client.callTool({ name, arguments: args });
    check(result.isError === true, `${name}/${reason} is an error result`, result);
    check(result.structuredContent.error.code === code, `${name}/${reason} code`, result);
    check(result.structuredContent.error.data.reason === reason, `${name}/${reason} data.reason`, result);
    check(result.content[0].text.startsWith("Error: "), `${name}/${reason} text`, result);
  }
  const bad = await client.callTool({ name: "get_object", arguments: { object_id: "one" } });
  check(bad.isError === true && bad.structuredContent.error.code === -32602, "bad arguments", bad);
  const panicked = await client.callTool({ name: "debug_panic", arguments: {} });
  check(panicked.isError === true && panicked.structuredContent.error.code === -32603, "panic", panicked);

  // Resources and prompts: errors arrive in the JSON-RPC envelope, not as results.
  const rejection = async (promise) => {
    try {
      await promise;
    } catch (err) {
      return err;
    }
    return undefined;
  };
  const { resources } = await client.listResources();
  check(
    resources.map((resource) => resource.uri).join(" ") === "museum://about museum://guestbook ui://museum/object-viewer skill://collection-search/SKILL.md",
    "resources/list",
    resources,
  );
  const { resourceTemplates } = await client.listResourceTemplates();
  check(resourceTemplates[0]?.uriTemplate === "museum://objects/{object_id}", "templates/list", resourceTemplates);
  const record = await client.readResource({ uri: `museum://objects/${first.id}` });
  check(JSON.parse(record.contents[0].text).id === first.id, "read an object record", record);
  const missing = await rejection(client.readResource({ uri: "museum://objects/5" }));
  check(missing?.code === -32001 && missing.data?.reason === "not_in_collection", "an unknown object", missing);
  const nowhere = await rejection(client.readResource({ uri: "museum://nowhere/1" }));
  check(nowhere?.code === -32002 && nowhere.data?.uri === "museum://nowhere/1", "a URI matching no template", nowhere);
  const department = records.find((r) => r.on_view).department;
  const plan = await client.getPrompt({ name: "plan_visit", arguments: { department, hours: "3" } });
  check(plan.messages[0].content.text.includes(`3-hour visit of the ${department}`), "plan_visit", plan);
  const noArgs = await rejection(client.getPrompt({ name: "plan_visit", arguments: {} }));
  check(noArgs?.code === -32602 && noArgs.data?.argument === "department", "a missing argument", noArgs);

  // Control: the same error result against the schema without its error
  // envelope is what the SDK rejects, so the checks above can fail.
  const narrowed = structuredClone(byName.get_object.outputSchema);
  delete narrowed.properties.error;
  narrowed.required = ["id", "title"];
  const notFound = await client.callTool({ name: "get_object", arguments: { object_id: 5 } });
  const verdict = new AjvJsonSchemaValidator().getValidator(narrowed)(notFound.structuredContent);
  check(!verdict.valid, "an unwidened schema would reject the error result", verdict);
} finally {
  await client.close();
}
console.log(`ok: ${checks} checks`);
