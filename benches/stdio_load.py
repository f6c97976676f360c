#!/usr/bin/env python3
"""Stdio throughput side by side: N `tools/call` pipelined to a server's
stdin, this crate, rmcp's `#[tool]` and the TypeScript reference, in one run.

Each server serves the one `lookup` tool of `benches/server/calls.rs` (input
`{id, limit?}`, output `{name, count}`, the same body): this crate's in its
default configuration and rmcp's are that bench binary (release) with
`CALLS_TRANSPORT=stdio`; the reference is `benches/reference/server.mjs`
(`@cyanheads/mcp-ts-core` 0.10.17 on Node 22, installed with npm into
`target/reference/` on the first run) with `MCP_TRANSPORT_TYPE=stdio`.

For each server and round: start it, send `initialize` and wait for its
answer (start-up is not timed), send `notifications/initialized`, then write
all N calls at once from a thread while the main thread reads stdout until
N answers have come. Timed from the first call written to the last answer
read; the reading only counts lines, and every answer is checked after the
clock stops. Per server it gives the calls a second, the CPU time per call
of every thread of the server (`/proc/<pid>/task/*/schedstat`), and its peak
resident memory (`VmHWM`, start-up included). The servers' rounds are
interleaved, the order reversed every other round, so a change in the
machine's speed falls on all of them alike; the table gives the median of
the rounds.

    benches/stdio_load.py [--calls 20000] [--rounds 5] [--server ours|rmcp|reference ...]
                          [--calls-binary PATH]   # a `calls` executable built before
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import bench  # noqa: E402  (benches/support/bench.py)

def line(message):
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


def start(server, calls_binary):
    if server == "reference":
        directory, node = bench.reference_install()
        env = dict(os.environ, MCP_TRANSPORT_TYPE="stdio", MCP_LOG_LEVEL="error")
        command, cwd = [node, "server.mjs"], directory
    else:
        env = dict(os.environ, CALLS_SERVER=server, CALLS_TRANSPORT="stdio", RUST_LOG="off")
        command, cwd = [calls_binary], None
    return subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0)


def read_answer(stdout, want_id, name):
    """Read lines until the answer to `want_id`; other messages (logs) are skipped."""
    for raw in iter(stdout.readline, b""):
        message = json.loads(raw)
        if message.get("id") == want_id:
            return message
    sys.exit(f"{name} ended before it answered request {want_id}")


def check(answers, calls, name):
    by_id = {}
    for raw in answers.splitlines():
        if raw.strip():
            message = json.loads(raw)
            if isinstance(message.get("id"), int):
                by_id[message["id"]] = message
    for i in range(1, calls + 1):
        result = by_id.get(i, {}).get("result")
        expected = bench.lookup_result(i)
        if not result or result.get("isError") or result.get("structuredContent") != expected:
            sys.exit(f"{name}: call {i} was not answered with the tool's result: {by_id.get(i)}")


def one_round(server, calls_binary, payload, calls):
    process = start(server, calls_binary)
    try:
        process.stdin.write(line(bench.INITIALIZE))
        read_answer(process.stdout, 0, server)
        process.stdin.write(line(bench.INITIALIZED))
        cpu_before = bench.cpu_nanos(process.pid)
        started = time.perf_counter()
        writer = threading.Thread(target=process.stdin.write, args=(payload,), daemon=True)
        writer.start()
        received, lines = [], 0
        while lines < calls:
            chunk = process.stdout.read(1 << 16)
            if not chunk:
                sys.exit(f"{server} ended after {lines} of {calls} answers")
            received.append(chunk)
            lines += chunk.count(b"\n")
        elapsed = time.perf_counter() - started
        cpu = bench.cpu_nanos(process.pid) - cpu_before
        peak = bench.rss_kib(process.pid, "VmHWM")
        writer.join()
        check(b"".join(received).decode(), calls, server)
        return calls / elapsed, cpu / calls / 1000.0, peak / 1024.0
    finally:
        bench.stop(process, 30)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--server", choices=["ours", "rmcp", "reference"], action="append")
    parser.add_argument("--calls-binary", help="a `calls` executable built already")
    args = parser.parse_args()
    servers = args.server or ["ours", "rmcp", "reference"]
    calls_binary = args.calls_binary or bench.server("calls")
    payload = b"".join(line(bench.lookup_call(i)) for i in range(1, args.calls + 1))
    rows = {server: [] for server in servers}
    for round_ in range(args.rounds):
        for server in servers if round_ % 2 == 0 else list(reversed(servers)):
            figures = one_round(server, calls_binary, payload, args.calls)
            rows[server].append(figures)
            print(f"  {server}: round {round_ + 1}: {figures[0]:,.0f} calls/s, CPU {figures[1]:.1f} µs a call, "
                  f"peak RSS {figures[2]:.1f} MiB", flush=True)
    print(f"{args.calls} pipelined stdio tools/call, median of {args.rounds} rounds")
    print("| server | calls/s (range) | CPU per call | peak RSS |")
    print("|---|---|---|---|")
    for server, figures in rows.items():
        rates = [row[0] for row in figures]
        print(f"| {server} | {statistics.median(rates):,.0f} ({min(rates):,.0f}–{max(rates):,.0f}) "
              f"| {statistics.median(row[1] for row in figures):.1f} µs "
              f"| {statistics.median(row[2] for row in figures):.1f} MiB |")


if __name__ == "__main__":
    main()
