#!/usr/bin/env python3
"""Resident memory of a stateless Streamable HTTP server over identical load
rounds after a warm-up round: this crate and rmcp's own Streamable HTTP
server, side by side in one run. Exits non-zero, naming the rounds and the
figures, when this crate's memory grows past `--bound-mib` after the warm-up.

Each server serves the one `lookup` tool of `benches/server/calls.rs` (input
`{id, limit?}`, output `{name, count}`, the same body), that bench binary
(release) with `CALLS_STATELESS=1`: this crate's `HttpOptions::stateless(true)`
in its default configuration otherwise (SSE answers, its event store kept for
resumption), rmcp's `StreamableHttpServerConfig` with `legacy_session_mode`
off and `LocalSessionManager::default()` (no event store).

For each server, this script is the client (Python, standard library only):

1. it starts the server and reads its resident memory (VmRSS, /proc);
2. a round is `--clients` threads, each on a keep-alive connection of its
   own, making `--calls` `tools/call` one after another: stateless
   2025-06-18 requests, no `initialize` and no session; every answer is
   checked (the id, the tool's structured result);
3. after each round it waits `--settle` seconds and reads the memory again;
4. round 1 is the warm-up; rounds 2 to `--rounds + 1` are the same load
   again, and their growth is measured from the reading after round 1.

This crate fails the run when any reading after the warm-up is more than
`--bound-mib` (4 MiB) above the warm-up's: its memory is meant to stay flat
once the first round has filled the server's bounded stores. rmcp's figures
are shown beside it, not judged. The figures are resident memory as the
kernel counts it, so they include the allocator's slack, and that slack
moves: on the shared 2-core machine (load average 2 to 6), rmcp's own
server, which keeps nothing between stateless requests, grew by 0.3 to
3.7 MiB over the same 10 rounds; the bound sits just above that. A growth the
allocator does not explain shows in a heap profile (`heaptrack`: the heap
kept after round 2 against after round 11), see guide/src/performance.md.

    benches/stateless_memory.py [--rounds 10] [--clients 64] [--calls 100]
                                [--settle 2] [--bound-mib 4]
                                [--server ours|rmcp ...]
                                [--binary PATH]   # a `calls` executable built before
"""

import argparse
import http.client
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import bench  # noqa: E402  (benches/support/bench.py)

PROTOCOL = "2025-06-18"
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": PROTOCOL,
}



def start(server, binary):
    """Start a stateless server; returns the process and its port."""
    env = dict(os.environ, CALLS_SERVER=server, CALLS_TRANSPORT="http", CALLS_STATELESS="1", RUST_LOG="off")
    return bench.listen([binary], env, server)




def client(port, client_id, calls, failures):
    """`calls` tools/call on one keep-alive connection, each answer checked."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        for i in range(calls):
            request_id = client_id * 1_000_000 + i
            item = f"c{client_id}-{i % 97}"
            message = {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": "lookup", "arguments": {"id": item, "limit": 5}},
            }
            connection.request("POST", "/mcp", body=json.dumps(message, separators=(",", ":")), headers=HEADERS)
            response = connection.getresponse()
            answer = bench.answer_of(response) or {}
            result = answer.get("result") or {}
            if (response.status != 200 or answer.get("id") != request_id
                    or result.get("structuredContent") != {"name": f"item {item}", "count": 5}):
                failures.append(f"client {client_id}, call {i}: {response.status} {answer}")
                return
    except (OSError, http.client.HTTPException, ValueError) as error:
        failures.append(f"client {client_id}: {error!r}")
    finally:
        connection.close()


def round_of(port, clients, calls):
    """One round: `clients` threads at once; returns its wall time (s)."""
    failures = []
    threads = [threading.Thread(target=client, args=(port, n, calls, failures)) for n in range(clients)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        sys.exit(f"{len(failures)} client(s) failed, the first: {failures[0]}")
    return time.monotonic() - began


def measure(server, binary, args):
    """The server's RSS (KiB) at start and after each round, and each round's wall time."""
    process, port = start(server, binary)
    try:
        time.sleep(args.settle)
        readings = [bench.rss_kib(process.pid)]
        seconds = []
        for _ in range(args.rounds + 1):
            seconds.append(round_of(port, args.clients, args.calls))
            time.sleep(args.settle)
            if process.poll() is not None:
                sys.exit(f"{server} ended during the run")
            readings.append(bench.rss_kib(process.pid))
    finally:
        bench.stop(process, 10)
    return readings, seconds


def table(server, readings, seconds, calls_per_round):
    warm = readings[1]
    print(f"\n{server}: RSS {readings[0] / 1024:.1f} MiB at start")
    print(f"{'round':>5} {'RSS':>9} {'since warm-up':>14} {'calls/s':>8}")
    for number, (rss, wall) in enumerate(zip(readings[1:], seconds), start=1):
        since = "(warm-up)" if number == 1 else f"{(rss - warm) / 1024:+.2f} MiB"
        print(f"{number:>5} {rss / 1024:>6.1f}MiB {since:>14} {calls_per_round / wall:>8.0f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10, help="rounds measured after the warm-up round")
    parser.add_argument("--clients", type=int, default=64, help="clients at once in a round")
    parser.add_argument("--calls", type=int, default=100, help="tools/call per client in a round")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds between a round and its reading")
    parser.add_argument("--bound-mib", type=float, default=4.0,
                        help="this crate's largest allowed growth after the warm-up round (MiB)")
    parser.add_argument("--server", choices=["ours", "rmcp"], action="append")
    parser.add_argument("--binary", help="a `calls` executable built already")
    args = parser.parse_args()
    if args.rounds < 1 or args.clients < 1 or args.calls < 1:
        sys.exit("--rounds, --clients and --calls are at least 1")
    servers = args.server or ["ours", "rmcp"]
    binary = args.binary or bench.server("calls")
    calls_per_round = args.clients * args.calls
    load = os.getloadavg()
    print(f"stateless Streamable HTTP: a warm-up round, then {args.rounds} identical rounds of "
          f"{args.clients} clients x {args.calls} tools/call; RSS {args.settle:g} s after each round; "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    growth = {}
    for server in servers:
        readings, seconds = measure(server, binary, args)
        table(server, readings, seconds, calls_per_round)
        growth[server] = [(number, readings[number] - readings[1]) for number in range(2, len(readings))]
    if "ours" not in growth:
        return
    over = [(number, kib) for number, kib in growth["ours"] if kib > args.bound_mib * 1024]
    if over:
        listed = ", ".join(f"round {number} {kib / 1024:+.2f} MiB" for number, kib in over)
        sys.exit(f"\nFAIL: this crate's stateless server grew past {args.bound_mib:g} MiB after the warm-up "
                 f"round: {listed}")
    largest = max(kib for _, kib in growth["ours"])
    print(f"\nok: this crate's RSS stayed within {args.bound_mib:g} MiB of the warm-up round "
          f"(largest growth {largest / 1024:+.2f} MiB)")


if __name__ == "__main__":
    main()
