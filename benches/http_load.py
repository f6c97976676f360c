#!/usr/bin/env python3
"""Streamable HTTP under load, side by side in one run: this crate, rmcp's own
Streamable HTTP server and the TypeScript reference framework, each in a
process of its own, driven by one load generator written in Rust.

Each server serves the one `lookup` tool of `benches/calls.rs` (input
`{id, limit?}`, output `{name, count}`, the same body): this crate's, with the
default `HttpOptions`, and rmcp's `#[tool]` on its `StreamableHttpService`
with `LocalSessionManager` are that bench binary (release); the reference's
is `benches/reference/server.mjs` on `@cyanheads/mcp-ts-core` 0.10.17 (the
version the registry serves) under Node 22, which this script installs with
npm into `target/reference/` on its first run.

The load generator is the `load_http` bench binary (release) run with
`LOAD_PORT`: 64 sessions, each on a keep-alive connection of its own, make
100 `tools/call`s each, one after another, all sessions at once (6,400 calls
a round), every answer checked; it writes HTTP/1.1 by hand on a 2-worker
tokio runtime. For each round it prints the throughput, the per-call
p50/p90/p99/max and the CPU time per call of itself and of the server
(`/proc/*/task/*/schedstat`, every thread).

The generator shares the machine's cores with the server, so its own cost
is part of every figure. `canned` measures it: a server (`load_http` run with
`LOAD_CANNED`) that answers every request with a fixed text on one thread,
parsing no JSON. Its throughput is the generator's ceiling on this machine;
a server that reaches a good share of it is being measured by a generator
that could go faster.

The first round of each server warms it up and is not counted; the table
gives the median of the others, and every round is printed as it ends.

    benches/http_load.py [--rounds 6] [--server canned|ours|rmcp|reference ...]
                         [--calls-binary PATH] [--load-binary PATH]   # built before
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import bench  # noqa: E402  (benches/support/bench.py)

ROUND = re.compile(
    r"round (\d+): .* wall, (\d+) calls/s; per call p50 (\S+), p90 (\S+), p99 (\S+), max (\S+); "
    r"CPU per call ([\d.]+) µs generator, ([\d.]+) µs server"
)


def millis(duration):
    """A Rust `Duration`'s Debug text (`812.3µs`, `10.2ms`, `1.1s`) in milliseconds."""
    number = float(re.match(r"[\d.]+", duration).group(0))
    for unit, scale in (("ns", 1e-6), ("µs", 1e-3), ("ms", 1.0), ("s", 1e3)):
        if duration.endswith(unit):
            return number * scale
    sys.exit(f"no unit in the duration {duration!r}")


def start(server, binaries):
    """Start a server; returns the process and its port."""
    if server == "reference":
        return bench.start_reference()
    if server == "canned":
        return bench.listen([binaries["load_http"]], dict(os.environ, LOAD_CANNED="1"), server)
    env = dict(os.environ, CALLS_SERVER=server, CALLS_TRANSPORT="http", RUST_LOG="off")
    return bench.listen([binaries["calls"]], env, server)


def measure(server, binaries, rounds):
    process, port = start(server, binaries)
    try:
        env = dict(os.environ, LOAD_PORT=str(port), LOAD_ROUNDS=str(rounds), LOAD_SERVER_PID=str(process.pid))
        generator = subprocess.run([binaries["load_http"]], env=env, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, timeout=600)
        if process.poll() is not None:
            sys.exit(f"{server} ended during the run")
    finally:
        process.kill()
        process.wait()
    rows = []
    for line in generator.stderr.splitlines():
        found = ROUND.match(line)
        if found:
            print(f"  {server}: {line}", flush=True)
            rows.append(found.groups())
    if generator.returncode != 0 or len(rows) != rounds:
        sys.exit(f"the load generator failed against {server}:\n{generator.stderr}")
    counted = rows[1:]

    def median(column, convert=float):
        return statistics.median(convert(row[column]) for row in counted)

    return {
        "server": server,
        "calls_per_s": median(1),
        "p50": median(2, millis),
        "p90": median(3, millis),
        "p99": median(4, millis),
        "max": median(5, millis),
        "cpu_generator": median(6),
        "cpu_server": median(7),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="rounds per server, the first a warm-up")
    parser.add_argument("--server", choices=["canned", "ours", "rmcp", "reference"], action="append")
    parser.add_argument("--calls-binary", help="a `calls` executable built already")
    parser.add_argument("--load-binary", help="a `load_http` executable built already")
    args = parser.parse_args()
    if args.rounds < 2:
        sys.exit("--rounds is at least 2: the first only warms the server up")
    servers = args.server or ["canned", "ours", "rmcp", "reference"]
    binaries = {
        "load_http": args.load_binary or bench.executable("load_http", "rmcp"),
        "calls": args.calls_binary or (bench.executable("calls", "rmcp") if {"ours", "rmcp"} & set(servers) else None),
    }
    print(f"64 sessions x 100 tools/call a round, {args.rounds} rounds per server (the first a warm-up); "
          f"medians of the others")
    results = [measure(server, binaries, args.rounds) for server in servers]
    print(f"{'server':<10} {'calls/s':>8} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8} "
          f"{'CPU/call server':>16} {'generator':>10}")
    for row in results:
        print(f"{row['server']:<10} {row['calls_per_s']:>8.0f} {row['p50']:>6.2f}ms {row['p90']:>6.2f}ms "
              f"{row['p99']:>6.2f}ms {row['max']:>6.2f}ms {row['cpu_server']:>14.1f}µs "
              f"{row['cpu_generator']:>8.1f}µs")


if __name__ == "__main__":
    main()
