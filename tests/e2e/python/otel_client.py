"""The official MCP Python client (`mcp`, pinned in requirements.txt) with the
OpenTelemetry SDK: a tool call made inside an agent's span. The client's own
SEP-414 support makes a CLIENT span for the request and writes its
`traceparent` into `params._meta`; nothing here sets `_meta` by hand.

Prints one JSON line: the trace id, the client span's id and name, and the
tool's answer, for tests/otel_e2e.rs to find the server's span under it.
"""

import argparse
import asyncio
import json

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, tool: str) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    tracer = trace.get_tracer("agent")

    with tracer.start_as_current_span("agent turn") as turn:
        async with streamable_http_client(url) as (read, write, *_):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool(tool, {})
        trace_id = format(turn.get_span_context().trace_id, "032x")

    sent = [span for span in exporter.get_finished_spans() if span.name == f"MCP send tools/call {tool}"]
    if len(sent) != 1:
        names = [span.name for span in exporter.get_finished_spans()]
        raise SystemExit(f"expected one client span of the call, got: {names}")
    span = sent[0]
    print(json.dumps({
        "trace_id": trace_id,
        "client_trace_id": format(span.get_span_context().trace_id, "032x"),
        "client_span_id": format(span.get_span_context().span_id, "016x"),
        "client_span_name": span.name,
        "client_span_kind": span.kind.name,
        "is_error": result.is_error,
    }))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--tool", required=True)
    args = parser.parse_args()
    asyncio.run(main(args.url, args.tool))
