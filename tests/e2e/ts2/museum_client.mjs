// Drive the museum example with the TypeScript SDK v2 client
// (`@modelcontextprotocol/client`, pinned in package-lock.json) over stdio.
// Run by tests/e2e.rs:
//
//     node museum_client.mjs <path to the museum binary> <path to collection.json>
//
// Checks search_objects' enrichment on both surfaces (structuredContent and the
// trailer block of content[]), and answers the museum's two client requests: an
// elicitation (take_off_view asks the user to confirm; declined once, then
// accepted) and a sampling request (summarize_object asks the model). Prints
// `ok: <n> checks` and exits 0 when every check passed.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [museum, dataPath] = process.argv.slice(2);
const records = JSON.parse(readFileSync(dataPath, "utf8"));
let checks = 0;

function check(condition, what, detail = "") {
  if (!condition) {
    throw new Error(`${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
  checks += 1;
}

const asked = [];
let confirm = false;

const transport = new StdioClientTransport({
  command: museum,
  env: { PATH: process.env.PATH ?? "", MUSEUM_TEST_TOOLS: "1" },
  stderr: "inherit",
});
const client = new Client(
  { name: "mcp-contract-e2e-v2", version: "0.0.0" },
  { capabilities: { elicitation: { form: {} }, sampling: {} } },
);
// The user: reads the form, confirms only when the test says so.
client.setRequestHandler("elicitation/create", async (request) => {
  asked.push(request.params);
  return { action: "accept", content: { confirm } };
});
// The model: a fixed summary echoing the record's title, so the check sees what was sent.
client.setRequestHandler("sampling/createMessage", async (request) => {
  asked.push(request.params);
  const prompt = request.params.messages[0].content.text;
  return {
    role: "assistant",
    content: { type: "text", text: `In short: ${prompt.split(" by ")[0]}.` },
    model: "e2e-model",
    stopReason: "endTurn",
  };
});
await client.connect(transport);

try {
  check(client.getServerVersion()?.name === "museum", "server info", client.getServerVersion());

  // Enrichment: the advertised schema, structuredContent and the trailer.
  const { tools } = await client.listTools();
  const search = tools.find((tool) => tool.name === "search_objects");
  for (const field of ["effectiveQuery", "totalCount", "notice", "truncated", "shown", "cap"]) {
    check(field in search.outputSchema.properties, `the output schema advertises ${field}`, search.outputSchema);
  }
  const page = await client.callTool({ name: "search_objects", arguments: { query: "  Portrait a ", page_size: 5 } });
  check(!page.isError, "search_objects succeeds", page);
  const found = page.structuredContent;
  const notice = `Showing 5 of ${found.total}; ask for page 2 for more.`;
  const expected = { effectiveQuery: "portrait", totalCount: found.total, truncated: true, shown: 5, cap: 5, notice };
  for (const [key, value] of Object.entries(expected)) {
    check(found[key] === value, `structuredContent.${key}`, found);
  }
  check(page.content.length === 2 && page.content[1].type === "text", "the format text, then the trailer", page.content);
  check(
    page.content[1].text ===
      `\n\nQuery: portrait\n**${found.total} total**\n**truncated:** true\n**shown:** 5\n**cap:** 5\n> ${notice}`,
    "the trailer",
    page.content[1].text,
  );
  const none = await client.callTool({ name: "search_objects", arguments: { query: "zzyzx" } });
  check(none.structuredContent.totalCount === 0 && !("truncated" in none.structuredContent), "an empty search", none);
  check(
    none.content.at(-1).text === "\n\nQuery: zzyzx\n**0 total**\n> Nothing matched every word: search with fewer or broader words.",
    "the empty search's notice",
    none.content,
  );

  // Elicitation: declined first (the object stays), then confirmed.
  const onView = records.find((record) => record.on_view);
  const kept = await client.callTool({ name: "take_off_view", arguments: { object_id: onView.id } });
  check(!kept.isError && kept.content[0].text === `"${onView.title}" stays where it is: the user did not confirm.`,
    "an unconfirmed take_off_view changes nothing", kept);
  const form = asked.at(-1);
  check(form.message.includes(onView.title), "the elicitation names the object", form);
  check(form.requestedSchema.properties.confirm.type === "boolean" && form.requestedSchema.required[0] === "confirm",
    "the form asks for a boolean confirm", form);
  const still = await client.callTool({ name: "get_object", arguments: { object_id: onView.id } });
  check(still.structuredContent.on_view === true, "still on view", still.structuredContent);
  confirm = true;
  const taken = await client.callTool({ name: "take_off_view", arguments: { object_id: onView.id } });
  check(!taken.isError && taken.content[0].text === `"${onView.title}" is off view.`, "a confirmed take_off_view", taken);
  const after = await client.callTool({ name: "get_object", arguments: { object_id: onView.id } });
  check(after.structuredContent.on_view === false, "off view afterwards", after.structuredContent);

  // Sampling: the model's text is the tool's answer.
  const first = records[0];
  const summary = await client.callTool({ name: "summarize_object", arguments: { object_id: first.id } });
  check(!summary.isError && summary.content[0].text === `In short: ${first.title}.`, "summarize_object", summary);
  const sampled = asked.at(-1);
  check(sampled.maxTokens === 120 && typeof sampled.systemPrompt === "string", "the sampling request's limits", sampled);
} finally {
  await client.close();
}
console.log(`ok: ${checks} checks`);
