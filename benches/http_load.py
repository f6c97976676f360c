#!/usr/bin/env python3
"""Streamable HTTP under load, side by side in one run: this crate, rmcp's own
Streamable HTTP server and the TypeScript reference framework, each in a
process of its own, driven by one load generator written in Rust.

Each server serves the one `lookup` tool of `benches/server/calls.rs` (input
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

`ours-no-store` is this crate's server without the event store it keeps by
default for resumption (`HttpOptions::without_event_store`): what rmcp's
`LocalSessionManager` keeps by default, so the two serve the same.

All the servers run at once, each idle but for its turn, and the rounds
are interleaved: a round against each server in turn, the order reversed
every other round. So a change in the machine's speed during the run, which
on a shared machine moves a server's figures by 10 % or more from one run to
the next, falls on all of them alike. The first round of each server warms
it up and is not counted; the table gives the median of the others, and,
with rmcp among the servers, the median over rounds of each one's CPU per
call against rmcp's in the same round. Every round is printed as it ends.

    benches/http_load.py [--rounds 12] [--server canned|ours|ours-no-store|rmcp|reference ...]
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
    if server == "ours-no-store":
        env.update(CALLS_SERVER="ours", CALLS_NO_EVENT_STORE="1")
    return bench.listen([binaries["calls"]], env, server)


def one_round(server, process, port, binaries):
    """One round of the generator against a running server: its figures."""
    env = dict(os.environ, LOAD_PORT=str(port), LOAD_ROUNDS="1", LOAD_SERVER_PID=str(process.pid))
    generator = subprocess.run([binaries["load_http"]], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, timeout=600)
    if process.poll() is not None:
        sys.exit(f"{server} ended during the run")
    found = [ROUND.match(line) for line in generator.stderr.splitlines()]
    found = [match for match in found if match]
    if generator.returncode != 0 or len(found) != 1:
        sys.exit(f"the load generator failed against {server}:\n{generator.stderr}")
    print(f"  {server}: {found[0].group(0)}", flush=True)
    return found[0].groups()


def measure(servers, binaries, rounds):
    """Every server up at once, idle but for its turn; each round runs the
    generator against each in turn (the order reversed every other round),
    so that a change in the machine's speed during the run falls on all of
    them alike. Returns each server's rounds after its warm-up."""
    running = {}
    try:
        for server in servers:
            running[server] = start(server, binaries)
        rows = {server: [] for server in servers}
        for round_ in range(rounds):
            for server in servers if round_ % 2 == 0 else reversed(servers):
                process, port = running[server]
                figures = one_round(server, process, port, binaries)
                if round_ > 0:
                    rows[server].append(figures)
        return rows
    finally:
        for process, _ in running.values():
            process.kill()
            process.wait()


def summary(server, counted, peer):
    """The medians of a server's rounds; with `peer`'s rounds, the median
    over rounds of its CPU per call against the peer's in the same round."""

    def median(column, convert=float):
        return statistics.median(convert(row[column]) for row in counted)

    ratio = None
    if peer is not None:
        ratio = statistics.median(float(ours[7]) / float(theirs[7]) for ours, theirs in zip(counted, peer))
    return {
        "server": server,
        "calls_per_s": median(1),
        "p50": median(2, millis),
        "p90": median(3, millis),
        "p99": median(4, millis),
        "max": median(5, millis),
        "cpu_generator": median(6),
        "cpu_server": median(7),
        "cpu_ratio": ratio,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12, help="rounds per server, the first a warm-up")
    parser.add_argument("--server", choices=["canned", "ours", "ours-no-store", "rmcp", "reference"], action="append")
    parser.add_argument("--calls-binary", help="a `calls` executable built already")
    parser.add_argument("--load-binary", help="a `load_http` executable built already")
    args = parser.parse_args()
    if args.rounds < 2:
        sys.exit("--rounds is at least 2: the first only warms the server up")
    servers = args.server or ["canned", "ours", "rmcp", "reference"]
    binaries = {
        "load_http": args.load_binary or bench.executable("load_http", "rmcp"),
        "calls": args.calls_binary or (bench.server("calls") if {"ours", "ours-no-store", "rmcp"} & set(servers) else None),
    }
    print(f"64 sessions x 100 tools/call a round, {args.rounds} rounds per server (the first a warm-up), "
          f"the servers' rounds interleaved; medians of the others")
    rows = measure(servers, binaries, args.rounds)
    results = [summary(server, rows[server], rows.get("rmcp")) for server in servers]
    print(f"{'server':<13} {'calls/s':>8} {'p50':>8} {'p90':>8} {'p99':>8} {'max':>8} "
          f"{'CPU/call server':>16} {'generator':>10} {'CPU/call to rmcp':>17}")
    for row in results:
        ratio = "" if row["cpu_ratio"] is None else f"{row['cpu_ratio']:.3f}"
        print(f"{row['server']:<13} {row['calls_per_s']:>8.0f} {row['p50']:>6.2f}ms {row['p90']:>6.2f}ms "
              f"{row['p99']:>6.2f}ms {row['max']:>6.2f}ms {row['cpu_server']:>14.1f}µs "
              f"{row['cpu_generator']:>8.1f}µs {ratio:>17}")


if __name__ == "__main__":
    main()
