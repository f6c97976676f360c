"""Drive two museum replicas behind haproxy (round robin, no stickiness) that
share one Redis, with the official Python MCP client (PyPI `mcp`).

Run by tests/replicas.rs:

    python replicas_client.py --data examples/data/collection.json --url http://127.0.0.1:PROXY/mcp --mode share|killed

`share`: one session of the MCP client makes its requests through the proxy,
which sends each to the next replica; then a task is started and polled
through the proxy with plain HTTP (httpx), since the client does not declare
the tasks extension.

`killed`: the client calls `export_department` on the largest department and,
once the call's response stream has begun, prints `serving-replica: <name>`
(haproxy's `X-Replica` header): the test kills that replica. The client's own
reconnection (`Last-Event-ID`) must then bring the call's answer through the
other replica.

Exits 0 and prints `ok: <n> checks` when every check passed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from checks import check, passed


async def one_session(url: str, records: list[dict]) -> None:
    async with httpx2.AsyncClient() as http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                check(init.server_info.name == "museum", "initialize through the proxy", init.server_info)
                tools = {tool.name for tool in (await session.list_tools()).tools}
                check({"get_object", "search_objects", "export_department"} <= tools, "tools/list", sorted(tools))
                for record in records[:12]:
                    result = await session.call_tool("get_object", {"object_id": record["id"]})
                    check(not result.is_error, "get_object answers on either replica", result)
                    check(result.structured_content["title"] == record["title"], "the record", result.structured_content)
                found = await session.call_tool("search_objects", {"query": records[0]["title"].split()[0]})
                check(not found.is_error, "search_objects", found)


def answer_of(response: httpx2.Response, request_id: int) -> dict:
    """The JSON-RPC message answering `request_id`: a JSON body or an SSE event."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    for line in response.text.splitlines():
        if line.startswith("data:"):
            try:
                message = json.loads(line[5:])
            except json.JSONDecodeError:
                continue
            if message.get("id") == request_id:
                return message
    raise AssertionError(f"no answer to request {request_id}: {response.status_code} {response.text!r}")


async def one_task(url: str, records: list[dict]) -> None:
    department, count = min(Counter(record["department"] for record in records).items(), key=lambda item: item[1])
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-06-18",
    }
    async with httpx2.AsyncClient(timeout=10) as http:
        initialize = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
                "clientInfo": {"name": "replicas-client", "version": "1.0.0"},
            },
        }
        response = await http.post(url, headers=headers, json=initialize)
        check(response.status_code == 200, "initialize (tasks declared)", response.text)
        session = {**headers, "Mcp-Session-Id": response.headers["mcp-session-id"]}
        initialized = await http.post(url, headers=session, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        check(initialized.status_code == 202, "notifications/initialized", initialized.status_code)
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "export_department", "arguments": {"department": department}},
        }
        started = answer_of(await http.post(url, headers=session, json=call), 1)
        task_id = started["result"]["taskId"]
        check(started["result"]["status"] == "working", "the call answers with a task", started)
        deadline = time.monotonic() + 30
        polls = 0
        while True:
            get = {"jsonrpc": "2.0", "id": 2 + polls, "method": "tasks/get", "params": {"taskId": task_id}}
            task = answer_of(await http.post(url, headers=session, json=get), 2 + polls)
            polls += 1
            check("result" in task, "tasks/get answers on either replica", task)
            if task["result"]["status"] != "working":
                break
            check(time.monotonic() < deadline, "the task finishes within 30 s", task)
            await anyio.sleep(0.2)
        check(polls >= 2, "polled through both replicas", polls)
        check(task["result"]["status"] == "completed", "the task completed", task)
        csv = task["result"]["result"]["content"][0]["text"]
        check(csv.count("\n") == count + 1, "the result read through the other replica", csv)


async def killed_mid_call(url: str, records: list[dict]) -> None:
    department, count = max(Counter(record["department"] for record in records).items(), key=lambda item: item[1])
    resumed: list[str] = []

    async def seen(response: httpx2.Response) -> None:
        request = response.request
        replica = response.headers.get("x-replica", "?")
        if request.method == "POST" and b'"tools/call"' in request.content:
            print(f"serving-replica: {replica}", flush=True)
        elif request.method == "GET" and "last-event-id" in request.headers:
            resumed.append(replica)
            print(f"resumed with Last-Event-ID on {replica}: {response.status_code}", file=sys.stderr, flush=True)

    # The answer waits for the killed replica's key to expire, then the export runs again.
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(60), event_hooks={"response": [seen]}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                started = time.monotonic()
                result = await session.call_tool("export_department", {"department": department}, read_timeout_seconds=60)
                took = time.monotonic() - started
    check(not result.is_error, "the call is answered after its replica was killed", result)
    csv = result.content[0].text
    check(csv.count("\n") == count + 1, "the whole export", csv[:200])
    check(bool(resumed), "the client resumed with Last-Event-ID", resumed)
    print(f"answered in {took:.1f} s, resumed on {', '.join(resumed)}", file=sys.stderr, flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--mode", choices=["share", "killed"], default="share")
    args = parser.parse_args()
    with open(args.data, encoding="utf-8") as f:
        records = json.load(f)
    if args.mode == "share":
        await one_session(args.url, records)
        await one_task(args.url, records)
    else:
        await killed_mid_call(args.url, records)
    print(f"ok: {passed()} checks")


if __name__ == "__main__":
    try:
        anyio.run(main)
    except Exception as err:  # the test prints it
        print(f"FAILED after {passed()} checks: {err!r}", file=sys.stderr)
        raise
