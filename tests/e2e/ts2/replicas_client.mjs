// Drive two museum replicas behind haproxy (round robin, no stickiness) that
// share one Redis, with the TypeScript SDK v2 client
// (`@modelcontextprotocol/client`, pinned in package-lock.json).
// Run by tests/replicas.rs:
//
//     node replicas_client.mjs --data <collection.json> --url http://127.0.0.1:PROXY/mcp --mode share|killed
//
// `share`: one session of the SDK client makes its requests through the proxy,
// which sends each to the next replica; then a task is started and polled
// through the proxy with plain fetch, since the client does not declare the
// tasks extension (as tests/e2e/python/replicas_client.py does).
//
// `killed`: one session calls export_department for the largest department.
// As soon as the response headers of the POST carrying that call arrive, the
// script prints `serving-replica: <name>` (haproxy's `X-Replica` header) on
// stdout; the test kills that replica. The SDK's own reconnection (a GET with
// `Last-Event-ID`) must then bring the call's answer through the other
// replica. The GETs it made, and which replica answered them, go to stderr.
//
// Prints `ok: <n> checks` and exits 0 when every check passed; else prints
// `FAILED after <n> checks: <why>` on stderr and exits 1.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const { values: args } = parseArgs({
  options: { data: { type: "string" }, url: { type: "string" }, mode: { type: "string" } },
});
if (!args.data || !args.url || !["share", "killed"].includes(args.mode)) {
  console.error("usage: node replicas_client.mjs --data <collection.json> --url <proxy URL> --mode share|killed");
  process.exit(2);
}
const records = JSON.parse(readFileSync(args.data, "utf8"));
const url = new URL(args.url);
const started = performance.now();
let checks = 0;

function check(condition, what, detail = "") {
  if (!condition) {
    throw new Error(`${what}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
  checks += 1;
}

/** Milliseconds since the script started, for the diagnosis on stderr. */
function at() {
  return Math.round(performance.now() - started);
}

/** The departments and how many records each holds, in the collection's order. */
function departments() {
  const counts = new Map();
  for (const record of records) {
    counts.set(record.department, (counts.get(record.department) ?? 0) + 1);
  }
  return [...counts];
}

// ---------------------------------------------------------------- what the transport saw

/**
 * Every HTTP exchange of the SDK's transport: method, the JSON-RPC method of a
 * POST, the `Last-Event-ID` of a GET, the replica that answered (haproxy's
 * `X-Replica`), and, read off the SSE body as the SDK reads it, the event ids
 * it carried and whether it carried the answer to `watched.id`.
 */
const exchanges = [];
/** The JSON-RPC id of the call whose answer is followed (killed mode). */
const watched = { id: undefined };

/**
 * A copy of the SSE body that notes each event id and the answer to the
 * watched call on `exchange`; the SDK reads the same bytes.
 */
function observed(body, exchange) {
  const decoder = new TextDecoder();
  let pending = "";
  const look = (line) => {
    if (line.startsWith("id:")) {
      const id = line.slice(3).trim();
      exchange.firstEventId ??= id;
      exchange.lastEventIdSeen = id;
    } else if (line.startsWith("data:") && watched.id !== undefined) {
      try {
        const message = JSON.parse(line.slice(5));
        if (message.id === watched.id && ("result" in message || "error" in message)) {
          exchange.answered = at();
        }
      } catch {
        // A data line split over several lines, or not JSON: the SDK judges it.
      }
    }
  };
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        const lines = pending.split(/\r\n|\r|\n/);
        pending = lines.pop();
        lines.forEach(look);
        controller.enqueue(chunk);
      },
      flush() {
        look(pending + decoder.decode());
      },
    }),
  );
}

/** The fetch the SDK's transport uses: the platform's, watched. */
async function watchingFetch(input, init = {}) {
  const headers = new Headers(init.headers);
  const method = init.method ?? "GET";
  let rpc;
  if (method === "POST" && typeof init.body === "string") {
    try {
      rpc = JSON.parse(init.body);
    } catch {
      rpc = undefined;
    }
  }
  const exchange = {
    method,
    rpc: rpc?.method,
    lastEventId: headers.get("last-event-id") ?? undefined,
    sent: at(),
  };
  exchanges.push(exchange);
  const watchedCall = args.mode === "killed" && rpc?.method === "tools/call" && rpc.params?.name === "export_department";
  if (watchedCall) {
    watched.id = rpc.id;
  }
  let response;
  try {
    response = await fetch(input, init);
  } catch (err) {
    exchange.failed = String(err?.cause?.code ?? err?.message ?? err);
    throw err;
  }
  exchange.status = response.status;
  exchange.replica = response.headers.get("x-replica") ?? undefined;
  exchange.headers = at();
  if (watchedCall) {
    // The test kills this replica on reading the line: written at once, before the SDK reads the body.
    process.stdout.write(`serving-replica: ${exchange.replica ?? "(no X-Replica header)"}\n`);
  }
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || !type.startsWith("text/event-stream")) {
    return response;
  }
  return new Response(observed(response.body, exchange), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function describe(exchange) {
  const what = exchange.method === "POST" ? `POST ${exchange.rpc ?? "(batch)"}` : exchange.method;
  const resumed = exchange.lastEventId ? ` Last-Event-ID ${exchange.lastEventId}` : "";
  const outcome = exchange.failed
    ? `failed (${exchange.failed})`
    : `${exchange.status} from ${exchange.replica ?? "?"} at ${exchange.headers} ms`;
  const events = exchange.firstEventId ? `, events ${exchange.firstEventId}..${exchange.lastEventIdSeen}` : "";
  const answer = exchange.answered !== undefined ? `, the answer at ${exchange.answered} ms` : "";
  return `${what}${resumed} sent at ${exchange.sent} ms: ${outcome}${events}${answer}`;
}

// ---------------------------------------------------------------- the SDK client

async function connect() {
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: watchingFetch,
    // Generous: a GET may still reach the killed replica until haproxy marks
    // it down, and every failed GET counts an attempt. A stream that opens and
    // ends without the answer starts the count again. The server's SSE
    // `retry` field, when it sends one, sets the delay instead of these.
    reconnectionOptions: {
      initialReconnectionDelay: 200,
      maxReconnectionDelay: 2000,
      reconnectionDelayGrowFactor: 1.5,
      maxRetries: 10,
    },
  });
  const client = new Client({ name: "mcp-contract-replicas-v2", version: "0.0.0" }, { capabilities: {} });
  const errors = [];
  client.onerror = (err) => errors.push(`${at()} ms: ${err?.message ?? err}`);
  await client.connect(transport, { timeout: 10_000 });
  return { client, errors };
}

async function oneSession() {
  const { client } = await connect();
  try {
    check(client.getServerVersion()?.name === "museum", "initialize through the proxy", client.getServerVersion());
    const { tools } = await client.listTools();
    const names = new Set(tools.map((tool) => tool.name));
    check(
      ["get_object", "search_objects", "export_department"].every((name) => names.has(name)),
      "tools/list",
      [...names].sort(),
    );
    for (const record of records.slice(0, 12)) {
      const result = await client.callTool({ name: "get_object", arguments: { object_id: record.id } });
      check(!result.isError, "get_object answers on either replica", result);
      check(result.structuredContent?.title === record.title, "the record", result.structuredContent);
    }
    const found = await client.callTool({
      name: "search_objects",
      arguments: { query: records[0].title.split(" ")[0] },
    });
    check(!found.isError, "search_objects", found);
  } finally {
    await client.close();
  }
  const replicas = new Set(exchanges.filter((e) => e.method === "POST" && e.replica).map((e) => e.replica));
  if (replicas.size > 0) {
    check(replicas.size >= 2, "the session's requests reached both replicas", [...replicas]);
  } else {
    console.error("no X-Replica header on the proxy's responses: which replica served each request is not known");
  }
}

// ---------------------------------------------------------------- a task, by plain fetch

/** The JSON-RPC message answering `id`: a JSON body or an SSE event. */
async function answerOf(response, id) {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").startsWith("application/json")) {
    return JSON.parse(text);
  }
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (!line.startsWith("data:")) {
      continue;
    }
    let message;
    try {
      message = JSON.parse(line.slice(5));
    } catch {
      continue;
    }
    if (message.id === id) {
      return message;
    }
  }
  throw new Error(`no answer to request ${id}: ${response.status} ${JSON.stringify(text)}`);
}

async function oneTask() {
  // The smallest department, as the Python client takes it.
  const [department, count] = departments().reduce((least, next) => (next[1] < least[1] ? next : least));
  const headers = {
    Accept: "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-06-18",
  };
  const post = (sessionHeaders, message) =>
    fetch(url, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(10_000),
    });
  const initialize = await post(headers, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
      clientInfo: { name: "replicas-client-v2", version: "1.0.0" },
    },
  });
  const initializeText = await initialize.text();
  check(initialize.status === 200, "initialize (tasks declared)", initializeText);
  const session = { ...headers, "Mcp-Session-Id": initialize.headers.get("mcp-session-id") };
  const initialized = await post(session, { jsonrpc: "2.0", method: "notifications/initialized" });
  await initialized.text();
  check(initialized.status === 202, "notifications/initialized", String(initialized.status));
  const call = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "export_department", arguments: { department } },
  };
  const created = await answerOf(await post(session, call), 1);
  check(created.result?.status === "working", "the call answers with a task", created);
  const taskId = created.result.taskId;
  const deadline = performance.now() + 30_000;
  const pollers = new Set();
  let polls = 0;
  let task;
  for (;;) {
    const id = 2 + polls;
    const response = await post(session, { jsonrpc: "2.0", id, method: "tasks/get", params: { taskId } });
    pollers.add(response.headers.get("x-replica"));
    task = await answerOf(response, id);
    polls += 1;
    check("result" in task, "tasks/get answers on either replica", task);
    if (task.result.status !== "working") {
      break;
    }
    check(performance.now() < deadline, "the task finishes within 30 s", task);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  check(polls >= 2, "polled through both replicas", String(polls));
  if (!pollers.has(null)) {
    check(pollers.size >= 2, "tasks/get reached both replicas", [...pollers]);
  }
  check(task.result.status === "completed", "the task completed", task);
  const csv = task.result.result.content[0].text;
  check(csv.split("\n").length - 1 === count + 1, "the result read through the other replica", csv);
}

// ---------------------------------------------------------------- a call whose replica is killed

async function killedCall() {
  // The largest department: the longest export, ~100 ms a record.
  const [department, count] = departments().reduce((most, next) => (next[1] > most[1] ? next : most));
  const { client, errors } = await connect();
  const progress = [];
  let result;
  let callSent;
  try {
    check(client.getServerVersion()?.name === "museum", "initialize through the proxy", client.getServerVersion());
    const { tools } = await client.listTools();
    check(tools.some((tool) => tool.name === "export_department"), "tools/list", tools.map((tool) => tool.name));
    callSent = at();
    const call = client.callTool(
      { name: "export_department", arguments: { department } },
      {
        // The dead replica's heartbeat expires (~4 s), then the export runs again in full.
        timeout: 60_000,
        // Progress notifications are events of the call's stream: ids to resume after.
        onprogress: (update) => progress.push(`${update.progress}/${update.total} at ${at()} ms`),
      },
    );
    result = await call;
  } finally {
    const answeredAt = at();
    await client.close();
    const post = exchanges.find((e) => e.rpc === "tools/call");
    console.error(`killed mode: export_department of ${department} (${count} records), sent at ${callSent} ms`);
    console.error(`  the call's POST: ${post ? describe(post) : "none"}`);
    const resumed = exchanges.filter((e) => e.method === "GET" && e.lastEventId);
    console.error(`  GETs with Last-Event-ID: ${resumed.length}`);
    for (const exchange of resumed) {
      console.error(`    ${describe(exchange)}`);
    }
    for (const exchange of exchanges.filter((e) => e.method === "GET" && !e.lastEventId)) {
      console.error(`  standalone GET: ${describe(exchange)}`);
    }
    console.error(`  progress: ${progress.join(", ") || "none"}`);
    console.error(`  transport errors: ${errors.join("; ") || "none"}`);
    console.error(`  the call settled at ${answeredAt} ms (${answeredAt - (callSent ?? answeredAt)} ms after it was sent)`);
  }
  check(!result.isError, "the call answers without error", result);
  const csv = result.content[0]?.text ?? "";
  check(csv.split("\n").length - 1 === count + 1, "the whole export", csv);
  const post = exchanges.find((e) => e.rpc === "tools/call");
  check(post.replica !== undefined, "the proxy names the replica serving the call (X-Replica)", describe(post));
  check(post.answered === undefined, "the call's own stream was cut before its answer", describe(post));
  const answering = exchanges.find((e) => e.method === "GET" && e.lastEventId && e.answered !== undefined);
  check(answering !== undefined, "the answer came on a resumed stream (GET with Last-Event-ID)", exchanges.map(describe));
  check(
    answering.replica !== undefined && answering.replica !== post.replica,
    "the answer came through the other replica",
    describe(answering),
  );
}

try {
  if (args.mode === "share") {
    await oneSession();
    await oneTask();
  } else {
    await killedCall();
  }
  console.log(`ok: ${checks} checks`);
  process.exit(0);
} catch (err) {
  console.error(`FAILED after ${checks} checks: ${err?.stack ?? err}`);
  process.exit(1);
}
