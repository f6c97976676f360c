"""Drive a tool that runs as a task (the MCP tasks extension, SEP-2663) from the
official Python client (PyPI `mcp`), which has no tasks API: raw requests on its
session. The part between the `recipe` markers is the README's recipe, word for
word (tests/e2e.rs checks it); the rest checks the museum example with it.

    python tasks_recipe.py --stdio target/debug/examples/museum
    python tasks_recipe.py --url http://127.0.0.1:PORT/mcp     # the server runs --stateless

Also checks, on protocol revision 2026-07-28, that `subscriptions/listen` is
acknowledged under the client's own request id (issue 34). Exits 0 and prints
`ok: <n> checks` when every check passed; raises at the first failure.
"""

from __future__ import annotations

import argparse
import os
import sys

import anyio

from checks import check, passed

# --- recipe: tasks from the Python client
from typing import Any

from mcp import Client, StdioServerParameters, types
from mcp.client import advertise
from pydantic import TypeAdapter

TASKS = "io.modelcontextprotocol/tasks"


class Raw(types.Request[dict[str, Any], str]):
    """A request the client has no method for; `taskId` names it in the `Mcp-Name` header."""

    name_param = "taskId"


async def send(client: Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    request = Raw(method=method, params=params)
    return await client.session.send_request(request, TypeAdapter(dict[str, Any]))


async def call_as_task(client: Client, tool: str, arguments: dict[str, Any], progress_token: str) -> dict[str, Any]:
    """`tools/call` that may answer with a task (`resultType: "task"`, the task's fields inline) or at once."""
    params = {"name": tool, "arguments": arguments, "_meta": {"progressToken": progress_token}}
    return await send(client, "tools/call", params)


async def follow(client: Client, task: dict[str, Any], seen: list[str]) -> dict[str, Any]:
    """Poll `tasks/get` until the task ends; `seen` collects its progress (`statusMessage`)."""
    while task["status"] in ("working", "input_required"):
        await anyio.sleep(task.get("pollIntervalMs", 500) / 1000)
        task = await send(client, "tasks/get", {"taskId": task["taskId"]})
        if task.get("statusMessage"):
            seen.append(task["statusMessage"])
    return task  # "completed" has `result`, "failed" has `error`; "cancelled" has neither


# Declare the extension on every request, and speak 2026-07-28 (or mode="auto").
# client = Client(server, mode="2026-07-28", extensions=[advertise(TASKS, {})])
# --- end recipe


async def exercise(client: Client) -> None:
    # Issue 34: stdio acknowledged a listen stream under the server's own id, so
    # the client never matched it and timed out; the ack must come in time.
    with anyio.fail_after(10):
        async with client.listen(resource_subscriptions=["museum://guestbook"]) as sub:
            check("museum://guestbook" in (sub.honored.resource_subscriptions or []), "listen honours the guestbook")

    # The recipe: a task, its progress, its result.
    answer = await call_as_task(client, "export_department", {"department": "Paintings"}, "export-1")
    check(answer.get("resultType") == "task", f"a client of the extension gets a task: {answer}")
    check(answer["status"] == "working", f"the task starts working: {answer}")
    seen: list[str] = []
    done = await follow(client, answer, seen)
    check(done["status"] == "completed", f"the task completes: {done}")
    check(done["result"]["content"][0]["text"].startswith("id,title,year\n"), f"its result is the CSV: {done}")
    check(any(" of " in message for message in seen), f"tasks/get showed the task's progress: {seen}")
    check("statusMessage" not in done, f"a finished task shows its result, not its progress: {done}")

    # Issue 34: arguments the tool cannot take made a working task; they are
    # refused on the call, as a plain call refuses them.
    refused = await call_as_task(client, "export_department", {}, "export-2")
    check(refused.get("resultType") != "task" and refused.get("isError") is True, f"no task for `{{}}`: {refused}")
    error = refused["structuredContent"]["error"]
    check(error["code"] == -32602 and error["data"]["reason"] == "invalid_arguments", f"the envelope: {error}")

    # tasks/cancel stops a running task.
    answer = await call_as_task(client, "export_department", {"department": "Sculpture"}, "export-3")
    await send(client, "tasks/cancel", {"taskId": answer["taskId"]})
    stopped = await follow(client, answer, [])
    check(stopped["status"] == "cancelled", f"tasks/cancel stops the task: {stopped}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stdio")
    parser.add_argument("--url")
    args = parser.parse_args()
    if args.stdio:
        env = {"PATH": os.environ.get("PATH", "")}
        server: Any = StdioServerParameters(command=args.stdio, env=env)
    else:
        server = args.url
    async with Client(server, mode="2026-07-28", extensions=[advertise(TASKS, {})], read_timeout_seconds=20) as client:
        await exercise(client)
    print(f"ok: {passed()} checks")


if __name__ == "__main__":
    try:
        anyio.run(main)
    except BaseException as err:  # noqa: BLE001 - report any failure with its chain, then fail
        import traceback

        traceback.print_exception(err)
        sys.exit(1)
