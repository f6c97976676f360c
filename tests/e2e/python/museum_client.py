"""Drive the museum example with the official Python MCP client (PyPI `mcp`).

Run by tests/e2e_python.rs, once over stdio and once per Streamable HTTP mode:

    python museum_client.py --data examples/data/collection.json --stdio target/debug/examples/museum
    python museum_client.py --data examples/data/collection.json --url http://127.0.0.1:PORT/mcp
    python museum_client.py --data ... --url ... --jwt-secret SECRET   # the server runs MCP_AUTH_MODE=jwt
    python museum_client.py --data ... --stdio ... --app-fixture PATH  # only the MCP App checks; writes what
                                                                       # the browser test hands the object viewer

The server must serve its test-only tools (MUSEUM_TEST_TOOLS=1). Exits 0 and
prints `ok: <n> checks` when every check passed; raises at the first failure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import anyio
import httpx2
import jwt
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from checks import check, passed, sans_request_id

ERRORS_META_KEY = "io.github.mcp-contract/errors"


def wire(model) -> dict:
    """A pydantic model as the JSON the server sent (camelCase, no absent fields)."""
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def error_triggers(records: list[dict]) -> dict[tuple[str, str], dict]:
    """Arguments that make each declared failure mode happen, by (tool, reason)."""
    throttled = next(r["id"] for r in records if r["id"] % 3 == 0)
    return {
        ("search_objects", "invalid_query"): {"query": " a "},
        ("search_objects", "invalid_page_size"): {"query": "portrait", "page_size": 99},
        ("search_objects", "unknown_department"): {"query": "portrait", "department": "Dinosaurs"},
        ("search_objects", "page_out_of_range"): {"query": "portrait", "page": 999},
        ("get_object", "not_in_collection"): {"object_id": 5},
        ("get_object_image", "not_in_collection"): {"object_id": 5},
        ("get_object_image", "image_service_busy"): {"object_id": throttled},
        ("take_off_view", "not_in_collection"): {"object_id": 5},
        ("summarize_object", "not_in_collection"): {"object_id": 5},
        ("sign_guestbook", "invalid_name"): {"name": "   "},
        ("export_department", "unknown_department"): {"department": "Dinosaurs"},
    }


ASKED: list[dict] = []
STATELESS = False
APP_FIXTURE: str | None = None
SKILL_URI = "skill://collection-search/SKILL.md"
APP_URI = "ui://museum/object-viewer"
APP_MIME_TYPE = "text/html;profile=mcp-app"


async def apps(session: ClientSession, init, records: list[dict], fixture: str | None) -> None:
    """get_object names its MCP App; the app's HTML is a resource; a call gives what a host hands the app."""
    capabilities = wire(init.capabilities)
    check("io.modelcontextprotocol/ui" in capabilities.get("extensions", {}), "the UI extension", capabilities)
    tools = {tool.name: wire(tool) for tool in (await session.list_tools()).tools}
    tool = tools["get_object"]
    meta = tool.get("_meta", {})
    check(meta.get("ui", {}).get("resourceUri") == APP_URI, "get_object's _meta.ui.resourceUri", meta)
    check(meta.get("ui/resourceUri") == APP_URI, "the ui/resourceUri key current hosts read", meta)
    listed = {r.uri: wire(r) for r in (await session.list_resources()).resources}
    check(listed.get(APP_URI, {}).get("mimeType") == APP_MIME_TYPE, "the app resource is listed", listed)
    contents = (await session.read_resource(APP_URI)).contents
    check(len(contents) == 1, "one content", contents)
    app = wire(contents[0])
    check(app["mimeType"] == APP_MIME_TYPE, "served as the MCP App MIME type", app.get("mimeType"))
    check(app["text"].startswith("<!DOCTYPE html>") and "ui/initialize" in app["text"], "the app's HTML", app["text"][:80])
    check(app.get("_meta", {}).get("ui") == {"prefersBorder": True}, "its sandbox settings in the read", app.get("_meta"))
    first = records[0]
    arguments = {"object_id": first["id"]}
    result = await session.call_tool("get_object", arguments)
    check(not result.is_error and result.structured_content["title"] == first["title"], "get_object", wire(result))
    missing = await session.call_tool("get_object", {"object_id": 5})
    check(missing.is_error is True, "get_object of an unknown ID fails", wire(missing))
    if fixture:
        with open(fixture, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "html": app["text"],
                    "resourceMeta": app["_meta"]["ui"],
                    "tool": tool,
                    "arguments": arguments,
                    "result": wire(result),
                    "errorResult": wire(missing),
                },
                f,
            )


async def enrichment(session: ClientSession) -> None:
    """search_objects discloses its query, total and page cap beside the results, on both surfaces."""
    tools = {tool.name: wire(tool) for tool in (await session.list_tools()).tools}
    properties = tools["search_objects"]["outputSchema"]["properties"]
    for field in ["effectiveQuery", "totalCount", "notice", "truncated", "shown", "cap"]:
        check(field in properties, f"the advertised output schema has the enrichment field {field}", sorted(properties))
    result = await session.call_tool("search_objects", {"query": "  Portrait a ", "page_size": 5})
    check(not result.is_error, "search succeeds", wire(result))
    structured = result.structured_content
    total = structured["total"]
    check(total > 5, "more than a page matches", structured)
    expected = {"effectiveQuery": "portrait", "totalCount": total, "truncated": True, "shown": 5, "cap": 5}
    check({k: structured.get(k) for k in expected} == expected, "the enrichment in structuredContent", structured)
    notice = f"Showing 5 of {total}; ask for page 2 for more."
    check(structured.get("notice") == notice, "the truncation notice", structured)
    check(len(result.content) == 2, "the format text, then one trailer block", wire(result))
    trailer = result.content[1].text
    check(
        trailer == f"\n\nQuery: portrait\n**{total} total**\n**truncated:** true\n**shown:** 5\n**cap:** 5\n> {notice}",
        "the trailer renders the fields by kind, in order",
        trailer,
    )
    none = await session.call_tool("search_objects", {"query": "zzyzx"})
    check(not none.is_error and none.structured_content["results"] == [], "a search that matches nothing", wire(none))
    check(none.structured_content.get("totalCount") == 0 and "truncated" not in none.structured_content, "total 0", none)
    check(
        none.content[-1].text
        == "\n\nQuery: zzyzx\n**0 total**\n> Nothing matched every word: search with fewer or broader words.",
        "the empty result's notice in the trailer",
        none.content[-1].text,
    )


async def on_elicitation(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The user: confirms what take_off_view asks, after reading the form."""
    ASKED.append(wire(params))
    return types.ElicitResult(action="accept", content={"confirm": True})


async def on_sampling(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    """The model: a fixed summary, echoing the record's title so the check can see it was sent."""
    ASKED.append(wire(params))
    prompt = params.messages[0].content.text
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=f"In short: {prompt.split(' by ')[0]}."),
        model="e2e-model",
        stop_reason="endTurn",
    )


async def client_requests(session: ClientSession, records: list[dict]) -> None:
    """take_off_view asks the user through elicitation, summarize_object the model through sampling.

    A server without sessions knows no client capabilities (nothing remembers
    `initialize`) and has no stream to carry an answer back: it refuses both
    tools before they run, naming the capability."""
    on_view = next(r for r in records if r["on_view"])
    if STATELESS:
        for tool, capability in [("take_off_view", "elicitation"), ("summarize_object", "sampling")]:
            result = await session.call_tool(tool, {"object_id": on_view["id"]})
            error = (result.structured_content or {}).get("error", {})
            check(result.is_error is True, f"{tool} is refused without a session", wire(result))
            check(
                sans_request_id(error.get("data", {})) == {"capability": capability, "reason": "client_capability_missing"},
                f"{tool}: why",
                error,
            )
        return
    result = await session.call_tool("take_off_view", {"object_id": on_view["id"]})
    check(result.is_error is not True, "take_off_view succeeds once confirmed", wire(result))
    check(result.content[0].text == f'"{on_view["title"]}" is off view.', "the confirmed answer", wire(result))
    form = ASKED[-1]
    check(on_view["title"] in form["message"], "the elicitation names the object", form)
    check(
        form["requestedSchema"]["properties"]["confirm"]["type"] == "boolean"
        and form["requestedSchema"]["required"] == ["confirm"],
        "the form asks for a boolean confirm",
        form,
    )
    record = (await session.call_tool("get_object", {"object_id": on_view["id"]})).structured_content
    check(record["on_view"] is False and record.get("gallery") is None, "the object is off view afterwards", record)

    result = await session.call_tool("summarize_object", {"object_id": records[0]["id"]})
    check(result.content[0].text == f"In short: {records[0]['title']}.", "the model's text is the answer", wire(result))
    sampled = ASKED[-1]
    check(sampled["maxTokens"] == 120 and "systemPrompt" in sampled, "the sampling request's limits", sampled)


LOGS: list[object] = []
"""The data of every notifications/message the session received."""


async def on_log(params) -> None:
    LOGS.append(params.data)


UPDATED: list[str] = []
"""The URIs of the notifications/resources/updated the session received."""


async def on_message(message) -> None:
    if isinstance(message, types.ResourceUpdatedNotification):
        UPDATED.append(message.params.uri)


async def guestbook(session: ClientSession, subscribe: bool) -> None:
    """Sign the guestbook; a subscribed session hears of it, and stops hearing once unsubscribed."""
    if subscribe:
        await session.subscribe_resource("museum://guestbook")
    signed = await session.call_tool("sign_guestbook", {"name": "Ada Lovelace"})
    check(not signed.is_error, "sign_guestbook", wire(signed))
    book = (await session.read_resource("museum://guestbook")).contents[0]
    check("Ada Lovelace" in book.text, "the guestbook holds the signature", book)
    if not subscribe:
        return
    with anyio.move_on_after(5):
        while "museum://guestbook" not in UPDATED:
            await anyio.sleep(0.02)
    check(UPDATED == ["museum://guestbook"], "notifications/resources/updated reaches the subscriber", UPDATED)
    await session.unsubscribe_resource("museum://guestbook")
    await session.call_tool("sign_guestbook", {"name": "Charles Babbage"})
    await anyio.sleep(0.3)
    check(UPDATED == ["museum://guestbook"], "no update after unsubscribing", UPDATED)


async def exercise(session: ClientSession, records: list[dict], subscribe: bool = True) -> None:
    init = await session.initialize()
    check(init.server_info.name == "museum", "server info names the server, not the framework", init.server_info)
    check(init.capabilities.tools is not None, "the tools capability is declared")
    check(init.capabilities.resources is not None and init.capabilities.prompts is not None, "resources, prompts")
    await apps(session, init, records, APP_FIXTURE)
    if APP_FIXTURE:
        return
    await enrichment(session)
    await resources_and_prompts(session, records)
    await client_requests(session, records)
    if subscribe:
        check(init.capabilities.resources.subscribe is True, "the subscribe capability", init.capabilities)
    await guestbook(session, subscribe)

    listed = {tool.name: wire(tool) for tool in (await session.list_tools()).tools}
    check(
        set(listed)
        == {
            "search_objects",
            "get_object",
            "get_object_image",
            "collection_stats",
            "take_off_view",
            "summarize_object",
            "sign_guestbook",
            "export_department",
            "debug_panic",
            "debug_busy",
            "debug_spin",
        },
        "tools/list names every tool",
        sorted(listed),
    )
    image = listed["get_object_image"]
    contract = {entry["reason"]: entry for entry in image["_meta"][ERRORS_META_KEY]}
    check(
        contract["image_service_busy"]
        == {
            "reason": "image_service_busy",
            "code": -32003,
            "when": "The image service throttles requests",
            "recovery": "Wait about thirty seconds, then call get_object_image again; get_object works meanwhile.",
            "retryable": True,
        },
        "the error contract is published under _meta",
        contract,
    )
    check(image["annotations"].get("readOnlyHint") is True, "annotations are listed", image.get("annotations"))
    check("error" in image["outputSchema"]["properties"], "the output schema admits the error envelope")
    check("_meta" not in listed["collection_stats"], "a tool without a contract has no contract _meta")

    # A successful call: structured content plus the format function's text.
    first = records[0]
    result = await session.call_tool("get_object", {"object_id": first["id"]})
    check(not result.is_error, "get_object succeeds", wire(result))
    check(result.structured_content["id"] == first["id"], "structured content is the record", result.structured_content)
    text = result.content[0].text
    check(text.startswith(first["title"]) and f"[object {first['id']}]" in text, "the format text", text)

    # Pagination.
    page1 = await session.call_tool("search_objects", {"query": "portrait", "page_size": 5})
    page2 = await session.call_tool("search_objects", {"query": "portrait", "page_size": 5, "page": 2})
    check(not page1.is_error and not page2.is_error, "search succeeds", wire(page1))
    check(page1.structured_content["total"] > 5 and page1.structured_content["has_more"], "search paginates")
    ids1 = {r["id"] for r in page1.structured_content["results"]}
    ids2 = {r["id"] for r in page2.structured_content["results"]}
    check(len(ids1) == 5 and ids1.isdisjoint(ids2), "pages hold different objects", (ids1, ids2))

    # Every declared failure mode of every tool, on both surfaces.
    triggers = error_triggers(records)
    for name, tool in listed.items():
        for entry in tool.get("_meta", {}).get(ERRORS_META_KEY, []):
            key = (name, entry["reason"])
            check(key in triggers, "every declared reason has a trigger in this test", key)
            if STATELESS and name in ("take_off_view", "summarize_object"):
                continue  # refused before the handler without a session: see client_requests
            result = await session.call_tool(name, triggers[key])
            body = wire(result)
            check(result.is_error is True, f"{key} is an error result", body)
            error = result.structured_content["error"]
            check(error["code"] == entry["code"], f"{key} carries the contract's code", error)
            check(error["data"]["reason"] == entry["reason"], f"{key} carries data.reason", error)
            text = result.content[0].text
            check(text.startswith("Error: " + error["message"]), f"{key} text surface", text)
            hint = error["data"].get("recovery", {}).get("hint")
            check(bool(hint), f"{key} carries a recovery hint by default", error)
            if hint not in error["message"]:
                check(f"\n\nRecovery: {hint}\n\n(" in text, f"{key} recovery line", text)
            # The terms line says what data says: reason, retryable when known, the request's id.
            terms = [f"reason {entry['reason']}"]
            retryable = error["data"].get("retryable")
            if isinstance(retryable, bool):
                terms.append("retryable" if retryable else "not retryable")
            sans_request_id(error["data"])
            terms.append(f"request {error['data']['requestId']}")
            check(text.endswith("\n\n(" + " · ".join(terms) + ")"), f"{key} terms line", text)
    throttled = await session.call_tool("get_object_image", triggers[("get_object_image", "image_service_busy")])
    check(throttled.structured_content["error"]["data"]["retryAfter"] == 30, "retryAfter data", wire(throttled))

    # Arguments that do not decode.
    bad = await session.call_tool("get_object", {"object_id": "one"})
    check(bad.is_error is True, "bad arguments are an error result", wire(bad))
    error = bad.structured_content["error"]
    check(error["code"] == -32602 and "`object_id`" in error["message"], "InvalidParams naming the path", error)

    # An unknown tool is a JSON-RPC error.
    try:
        await session.call_tool("no_such_tool", {})
        check(False, "an unknown tool raises")
    except MCPError as err:
        check(err.error.code == -32602, "unknown tool code", err.error)

    # A panicking handler: InternalError without internals, and the server lives on.
    panicked = await session.call_tool("debug_panic", {})
    check(panicked.is_error is True, "a panic is an error result", wire(panicked))
    check(panicked.structured_content["error"]["code"] == -32603, "a panic is InternalError", wire(panicked))
    check("internal state" not in json.dumps(wire(panicked)), "the panic message stays in the server")
    again = await session.call_tool("get_object", {"object_id": first["id"]})
    check(not again.is_error, "the server serves after a panic", wire(again))

    # Progress reaches a caller that asked for it.
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    stats = await session.call_tool("collection_stats", {}, progress_callback=on_progress)
    check(not stats.is_error and stats.structured_content["objects"] == len(records), "stats", wire(stats))
    departments = len(stats.structured_content["departments"])
    check(len(progress) == departments and progress[-1][0] == progress[-1][1], "progress notifications", progress)
    # collection_stats closes its stream at once (SSE polling, SEP-1699): over
    # sessions the client reconnects with Last-Event-ID, and the progress, the
    # log and the answer all come from the server's event store. A call's log
    # rides its own response stream, before its answer: it is here by the time
    # the answer is, with no GET stream needed.
    counted = [entry for entry in LOGS if "collection_stats counted" in str(entry)]
    check(len(counted) == 1, "the call's log arrives with its answer", LOGS)


def mint(secret: str, scopes: list[str]) -> str:
    """An HS256 token, minted by PyJWT: an implementation independent of the server's."""
    now = int(time.time())
    claims = {"sub": "visitor-1", "cid": "python-e2e", "tid": "museum-north", "exp": now + 600, "scp": scopes}
    return jwt.encode(claims, secret, algorithm="HS256")


async def auth_checks(url: str, secret: str, first_id: int) -> None:
    """What a client of a server in mode `jwt` sees, besides the full exercise with a good token."""
    async with httpx2.AsyncClient() as http:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        anonymous = await http.post(url, json=ping, headers=headers)
        check(anonymous.status_code == 401, "no token: 401", anonymous.status_code)
        challenge = anonymous.headers.get("www-authenticate", "")
        origin = url.rsplit("/mcp", 1)[0]
        expected = f'Bearer resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp"'
        check(challenge == expected, "the challenge points at the metadata", challenge)
        forged = mint("not-the-server-secret-0123456789abcdef", ["images:read"])
        refused = await http.post(url, json=ping, headers={**headers, "Authorization": f"Bearer {forged}"})
        check(refused.status_code == 401, "a token signed with another secret: 401", refused.status_code)
        check('error="invalid_token"' in refused.headers.get("www-authenticate", ""), "invalid_token", refused.headers)
        check(forged not in refused.text, "the refusal does not echo the token", refused.text)
        metadata = (await http.get(f"{origin}/.well-known/oauth-protected-resource")).json()
        check(metadata["resource"] == url, "metadata names the resource", metadata)
        check("images:read" in metadata["scopes_supported"], "metadata lists the declared scopes", metadata)

    # A valid token without the tool's scope: refused before the handler, on both surfaces.
    token = mint(secret, ["objects:read"])
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("get_object_image", {"object_id": 100019})
                check(result.is_error is True, "missing scope: an error result", wire(result))
                error = result.structured_content["error"]
                check(error["code"] == -32005, "missing scope: Forbidden", error)
                check(sans_request_id(error["data"]) == {"missingScopes": ["images:read"]}, "only the missing scope", error)
                check(result.content[0].text.startswith("Error: "), "missing scope: text surface", wire(result))
                check("objects:read" not in json.dumps(wire(result)), "granted scopes are not echoed", wire(result))
                other = await session.call_tool("get_object", {"object_id": first_id})
                check(not other.is_error, "a tool without scopes works with the same token", wire(other))


async def expect_error(call, code: int, what: str) -> dict:
    """The JSON-RPC error a request must fail with, as {code, message, data}."""
    try:
        result = await call
    except MCPError as err:
        check(err.error.code == code, f"{what}: code", err.error)
        return {"code": err.error.code, "message": err.error.message, "data": err.error.data}
    check(False, f"{what} raises a JSON-RPC error", result)
    return {}


async def resources_and_prompts(session: ClientSession, records: list[dict]) -> None:
    listed = [wire(resource) for resource in (await session.list_resources()).resources]
    uris = [r["uri"] for r in listed]
    # The museum's own resources, then its skill's SKILL.md (the Skills extension lists it there).
    check(uris == ["museum://about", "museum://guestbook", APP_URI, SKILL_URI], "the static resources", listed)
    templates = [wire(t) for t in (await session.list_resource_templates()).resource_templates]
    check([t["uriTemplate"] for t in templates] == ["museum://objects/{object_id}"], "the object template", templates)

    about = (await session.read_resource("museum://about")).contents
    check(about[0].text.startswith("# The offline museum") and about[0].mime_type == "text/markdown", "about", about)
    first = records[0]
    record = (await session.read_resource(f"museum://objects/{first['id']}")).contents[0]
    check(json.loads(record.text)["id"] == first["id"] and record.mime_type == "application/json", "object", record)

    missing = await expect_error(session.read_resource("museum://objects/5"), -32001, "an unknown object")
    check(missing["data"]["reason"] == "not_in_collection", "data.reason", missing)
    check("search_objects" in missing["data"]["recovery"]["hint"], "the recovery hint", missing)
    nowhere = await expect_error(session.read_resource("museum://nowhere/1"), -32002, "a URI matching no template")
    check(sans_request_id(nowhere["data"]) == {"uri": "museum://nowhere/1"}, "the URI in data", nowhere)
    bad = await expect_error(session.read_resource("museum://objects/vase"), -32602, "a variable that is no ID")
    check(bad["data"]["variable"] == "object_id", "the variable named", bad)

    prompts = {p.name: wire(p) for p in (await session.list_prompts()).prompts}
    arguments = {a["name"]: a.get("required", False) for a in prompts["plan_visit"]["arguments"]}
    check(arguments == {"department": True, "hours": False}, "plan_visit's arguments", prompts)
    department = next(r["department"] for r in records if r["on_view"])
    plan = await session.get_prompt("plan_visit", {"department": department, "hours": "3"})
    check(f"3-hour visit of the {department}" in plan.messages[0].content.text, "plan_visit", wire(plan))
    initial = department[0]
    completed = await session.complete(types.PromptReference(name="plan_visit"), {"name": "department", "value": initial})
    values = completed.completion.values
    check(department in values and all(v.lower().startswith(initial.lower()) for v in values), "completion", values)
    no_department = await expect_error(session.get_prompt("plan_visit", {}), -32602, "a missing argument")
    check(sans_request_id(no_department["data"]) == {"argument": "department"}, "the argument named", no_department)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--stdio")
    parser.add_argument("--url")
    parser.add_argument("--jwt-secret")
    parser.add_argument(
        "--stateless", action="store_true", help="the server runs without sessions: no client requests, no subscriptions"
    )
    parser.add_argument("--app-fixture", help="only the MCP App checks; write the app and a get_object result here")
    args = parser.parse_args()
    global STATELESS, APP_FIXTURE
    STATELESS = args.stateless
    APP_FIXTURE = args.app_fixture
    with open(args.data, encoding="utf-8") as f:
        records = json.load(f)

    if args.stdio:
        env = {"MUSEUM_TEST_TOOLS": "1", "PATH": os.environ.get("PATH", "")}
        params = StdioServerParameters(command=args.stdio, env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(
                read,
                write,
                logging_callback=on_log,
                sampling_callback=on_sampling,
                elicitation_callback=on_elicitation,
                message_handler=on_message,
            ) as session:
                await exercise(session, records)
    else:
        # With a secret, the whole exercise runs with a bearer token holding the museum's scope.
        headers = {"Authorization": f"Bearer {mint(args.jwt_secret, ['images:read'])}"} if args.jwt_secret else {}
        async with httpx2.AsyncClient(headers=headers) as http:
            async with streamable_http_client(args.url, http_client=http) as (read, write, *_):
                async with ClientSession(
                    read,
                    write,
                    logging_callback=on_log,
                    sampling_callback=on_sampling,
                    elicitation_callback=on_elicitation,
                    message_handler=on_message,
                ) as session:
                    await exercise(session, records, subscribe=not args.stateless)
        if args.jwt_secret:
            await auth_checks(args.url, args.jwt_secret, records[0]["id"])
    print(f"ok: {passed()} checks")


if __name__ == "__main__":
    try:
        anyio.run(main)
    except BaseException as err:  # noqa: BLE001 - report any failure with its chain, then fail
        import traceback

        traceback.print_exception(err)
        sys.exit(1)
