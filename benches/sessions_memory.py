#!/usr/bin/env python3
"""Memory per idle Streamable HTTP session, and a call's latency while they are
held: this crate, rmcp's own Streamable HTTP server and the TypeScript
reference framework, side by side in one run.

Each server serves the one `lookup` tool of `benches/server/calls.rs` (input
`{id, limit?}`, output `{name, count}`, the same body): this crate's (as
`ours`, with the default options, in which at most 256 sessions are awake
and the idlest past them hibernate; as `awake`, with every session awake
(`HttpOptions::max_awake_sessions` above the sessions held, the default until
2026-12-06); and as `hibernating`, with `HttpOptions::session_hibernate_after`
of `--hibernate-after-ms`) and rmcp's `#[tool]` are that
bench binary (release); the reference's is
`benches/reference/server.mjs` on `@cyanheads/mcp-ts-core` 0.10.17 (the
version the registry serves) under Node 22, which this script installs with
npm into `target/reference/` on its first run.

For each server, this script is the client (Python, standard library only):

1. it starts the server and opens `--warm` sessions (initialize, then
   notifications/initialized, each session on a fresh connection that it then
   closes), waits `--settle` seconds (hibernating sessions fall asleep
   meanwhile), then reads the server's resident memory (VmRSS, /proc);
2. it opens sessions up to `--sessions` and reads it again; memory per
   session is the difference over the sessions opened in between, which takes
   out what the server and its first sessions cost once;
3. while they are all held, it makes `--calls` `tools/call`, one after
   another on one keep-alive connection, each on a session picked at random
   among them: p50, p99 and max latency, and the server's CPU time per call
   (`/proc/<pid>/task/*/schedstat`, every thread), every answer checked (a
   call on a hibernating session includes its restore, and past the cap of
   awake sessions another session's hibernation);
4. it reads the memory a last time, closes nothing, and stops the server.

Resident memory is what the allocator took and kept: a hibernating server's
figure is its sessions' kept state plus what the workers of the sessions
awake at once took at most, which glibc keeps for reuse. Sessions opened at
hundreds a second and hibernating after 1 s leave over a thousand workers
awake at once; `--hibernate-after-ms` shows the difference.

Each server's session cap and idle timeout are raised above what the run
needs (this crate: `max_sessions`; rmcp has no cap; the reference caps at
10,000). The figures are resident memory as the kernel counts it, so they
include the allocator's slack: read the spread of a few runs.

    benches/sessions_memory.py [--sessions 10000] [--warm 200] [--calls 1000] [--settle 3]
                               [--hibernate-after-ms 100] [--server ours|awake|hibernating|rmcp|reference ...]
                               [--binary PATH]   # a `calls` executable built before
"""

import argparse
import http.client
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import bench  # noqa: E402  (benches/support/bench.py)

PROTOCOL = "2025-06-18"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def start(server, binary, args):
    """Start a server; returns the process and its port."""
    if server == "reference":
        return bench.start_reference(MCP_STATEFUL_SESSION_STALE_TIMEOUT_MS=str(3_600_000))
    env = dict(os.environ, CALLS_SERVER="rmcp" if server == "rmcp" else "ours", CALLS_TRANSPORT="http",
               CALLS_MAX_SESSIONS=str(args.sessions + 16), RUST_LOG="off")
    if server == "awake":
        env["CALLS_MAX_AWAKE_SESSIONS"] = str(args.sessions + 16)
    if server == "hibernating":
        env["CALLS_HIBERNATE_AFTER_MS"] = str(args.hibernate_after_ms)
    return bench.listen([binary], env, server)


def open_session(port):
    """A new session on a connection of its own, which is then closed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    response, answer = bench.post(connection, INITIALIZE, HEADERS, "sessions")
    session = response.getheader("mcp-session-id")
    if not session or not answer or "result" not in answer:
        sys.exit(f"initialize opened no session: {answer}")
    headers = dict(HEADERS, **{"mcp-session-id": session, "mcp-protocol-version": PROTOCOL})
    bench.post(connection, INITIALIZED, headers, "sessions")
    connection.close()
    return session


def calls_while_held(port, sessions, calls):
    """Latencies (ms) of `calls` tools/call, each on a random held session."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    latencies = []
    for i in range(1, calls + 1):
        session = random.choice(sessions)
        headers = dict(HEADERS, **{"mcp-session-id": session, "mcp-protocol-version": PROTOCOL})
        message = {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "lookup", "arguments": {"id": f"a{i % 97}", "limit": 5}},
        }
        began = time.perf_counter()
        _, answer = bench.post(connection, message, headers, "calls")
        latencies.append((time.perf_counter() - began) * 1000)
        result = (answer or {}).get("result") or {}
        if answer.get("id") != i or result.get("structuredContent") != {"name": f"item a{i % 97}", "count": 5}:
            sys.exit(f"call {i} was not answered with the tool's result: {answer}")
    connection.close()
    return latencies


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def measure(server, binary, args):
    process, port = start(server, binary, args)
    try:
        sessions = [open_session(port) for _ in range(args.warm)]
        time.sleep(args.settle)
        warm = bench.rss_kib(process.pid)
        began = time.monotonic()
        sessions += [open_session(port) for _ in range(args.sessions - args.warm)]
        opening = time.monotonic() - began
        time.sleep(args.settle)
        held = bench.rss_kib(process.pid)
        cpu_before = bench.cpu_nanos(process.pid)
        latencies = calls_while_held(port, sessions, args.calls)
        cpu = bench.cpu_nanos(process.pid) - cpu_before
        after = bench.rss_kib(process.pid)
        if process.poll() is not None:
            sys.exit(f"{server} ended during the run")
    finally:
        process.kill()
        process.wait()
    per_session = (held - warm) * 1024 / (args.sessions - args.warm)
    return {
        "server": server,
        "warm_mib": warm / 1024,
        "held_mib": held / 1024,
        "per_session_kib": per_session / 1024,
        "opened_per_s": (args.sessions - args.warm) / opening,
        "p50": statistics.median(latencies),
        "p99": percentile(latencies, 0.99),
        "max": max(latencies),
        "cpu_us": cpu / 1000 / args.calls,
        "after_mib": after / 1024,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions held at once")
    parser.add_argument("--warm", type=int, default=200, help="sessions opened before the first reading")
    parser.add_argument("--calls", type=int, default=1000, help="tools/call made while the sessions are held")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds waited before each reading (hibernating sessions fall asleep meanwhile)")
    parser.add_argument("--hibernate-after-ms", type=int, default=100,
                        help="the `hibernating` server's `session_hibernate_after`, in milliseconds")
    parser.add_argument("--server", choices=["ours", "awake", "hibernating", "rmcp", "reference"], action="append")
    parser.add_argument("--binary", help="a `calls` executable built already")
    args = parser.parse_args()
    if not 0 < args.warm < args.sessions:
        sys.exit("--warm is at least 1 and below --sessions")
    servers = args.server or ["ours", "awake", "hibernating", "rmcp", "reference"]
    binary = args.binary or (bench.server("calls") if set(servers) - {"reference"} else None)
    print(f"{args.sessions} idle Streamable HTTP sessions; memory per session over the last "
          f"{args.sessions - args.warm}; {args.calls} tools/call while they are held "
          f"(hibernating after {args.hibernate_after_ms} ms)")
    print(f"{'server':<12} {'RSS warm':>9} {'RSS held':>9} {'per session':>12} {'opened/s':>9} "
          f"{'call p50':>9} {'p99':>8} {'max':>8} {'CPU/call':>9} {'RSS after':>10}")
    for server in servers:
        row = measure(server, binary, args)
        print(f"{row['server']:<12} {row['warm_mib']:>7.1f}Mi {row['held_mib']:>7.1f}Mi "
              f"{row['per_session_kib']:>9.1f}KiB {row['opened_per_s']:>9.0f} {row['p50']:>7.2f}ms "
              f"{row['p99']:>6.2f}ms {row['max']:>6.2f}ms {row['cpu_us']:>7.0f}us {row['after_mib']:>8.1f}Mi",
              flush=True)


if __name__ == "__main__":
    main()
