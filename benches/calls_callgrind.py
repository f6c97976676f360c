#!/usr/bin/env python3
"""Instructions per `tools/call`, this crate against rmcp's `#[tool]`, over
stdio and Streamable HTTP, counted by callgrind (`valgrind --tool=callgrind`).

The server is the bench binary of `benches/server/calls.rs` (release): one tool,
input `{id, limit?}` and output `{name, count}`, the same body both ways;
this crate's in its default configuration (argument repair on, telemetry
off) with a two-reason error contract. Only the server runs under callgrind:

- stdio: initialize, initialized and N `tools/call` pipelined from a file on
  its stdin; it serves until stdin ends.
- http: this script is the client, outside callgrind: initialize and
  initialized, then N `tools/call` one after another on that session, on one
  keep-alive connection; closing the server's stdin stops it.

Each is run with N and 2N calls; a call costs (I(2N) - I(N)) / N, which takes
out what a run costs once (start-up, the handshake, the shutdown). Every
answer is checked to be the tool's result.

    benches/calls_callgrind.py [--calls N] [--transport stdio|http] [--server ours|rmcp]
                               [--keep DIR]   # keep the callgrind files of the 2N runs
                               [--binary PATH]   # a `calls` executable built before

Callgrind counts instructions, not time: the figures repeat closely from run
to run, on a loaded machine too.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import bench  # noqa: E402  (benches/support/bench.py)


def total(out):
    with open(out) as counts:
        for line in counts:
            found = re.match(r"(?:summary|totals):\s+(\d+)", line)
            if found:
                return int(found.group(1))
    sys.exit(f"callgrind wrote no total in {out}")


def check_answer(answer, i):
    result = answer.get("result")
    if answer.get("id") != i or not result or result.get("isError"):
        sys.exit(f"call {i} was not answered with the tool's result: {answer}")
    expected = bench.lookup_result(i)
    if result.get("structuredContent") != expected:
        sys.exit(f"call {i} answered {result.get('structuredContent')}, not {expected}")


def valgrind(binary, server, transport, out):
    env = dict(os.environ, CALLS_SERVER=server, CALLS_TRANSPORT=transport, RUST_LOG="off")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary]
    return command, env


def run_stdio(binary, server, calls, out, scratch):
    requests = os.path.join(scratch, "requests.jsonl")
    with open(requests, "w") as lines:
        for message in [bench.INITIALIZE, bench.INITIALIZED] + [bench.lookup_call(i) for i in range(1, calls + 1)]:
            lines.write(json.dumps(message, separators=(",", ":")) + "\n")
    command, env = valgrind(binary, server, "stdio", out)
    with open(requests) as stdin:
        run = subprocess.run(command, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit(f"{server} over stdio ({calls} calls) failed:\n{run.stderr}")
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    answers = sorted((a for a in answers if a.get("id") not in (None, 0)), key=lambda a: a["id"])
    if len(answers) != calls:
        sys.exit(f"{server} over stdio answered {len(answers)} of {calls} calls")
    for i, answer in enumerate(answers, start=1):
        check_answer(answer, i)



def run_http(binary, server, calls, out):
    command, env = valgrind(binary, server, "http", out)
    process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    port = None
    for line in process.stderr:
        found = re.match(r"listening on (\d+)", line)
        if found:
            port = int(found.group(1))
            break
    if port is None:
        process.kill()
        sys.exit(f"{server} over http did not listen:\n{process.stderr.read()}")
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    def post(message):
        return bench.post(connection, message, headers, f"{server} over http")

    response, _ = post(bench.INITIALIZE)
    session = response.getheader("mcp-session-id")
    if session:
        headers["mcp-session-id"] = session
    headers["mcp-protocol-version"] = "2025-06-18"
    post(bench.INITIALIZED)
    for i in range(1, calls + 1):
        _, answer = post(bench.lookup_call(i))
        check_answer(answer, i)
    if session:
        connection.request("DELETE", "/mcp", headers=headers)
        connection.getresponse().read()
    connection.close()
    process.stdin.close()
    try:
        process.wait(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        sys.exit(f"{server} over http did not stop once its stdin ended")
    rest = process.stderr.read()
    if process.returncode != 0:
        sys.exit(f"{server} over http failed:\n{rest}")


def instructions(binary, server, transport, calls, keep):
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        if transport == "stdio":
            run_stdio(binary, server, calls, out, scratch)
        else:
            run_http(binary, server, calls, out)
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(out, os.path.join(keep, f"callgrind.{server}.{transport}.{calls}"))
        return total(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="N: the runs make N and 2N calls")
    parser.add_argument("--transport", choices=["stdio", "http"], action="append")
    parser.add_argument("--server", choices=["ours", "rmcp"], action="append")
    parser.add_argument("--keep", help="a directory to keep the callgrind files in")
    parser.add_argument("--binary", help="a `calls` executable built already (an earlier build, to compare)")
    args = parser.parse_args()
    binary = args.binary or bench.server("calls")
    n = args.calls
    servers = args.server or ["ours", "rmcp"]
    print(f"callgrind, server instructions per tools/call: (I({2 * n} calls) - I({n} calls)) / {n}")
    print("| transport | mcp-contract | rmcp #[tool] | ratio |")
    print("|---|---|---|---|")
    for transport in args.transport or ["stdio", "http"]:
        per_call = {}
        for server in servers:
            once = instructions(binary, server, transport, n, None)
            twice = instructions(binary, server, transport, 2 * n, args.keep)
            per_call[server] = (twice - once) / n
        figures = [f"{per_call[s]:,.0f}" if s in per_call else "-" for s in ("ours", "rmcp")]
        ratio = f"{per_call['ours'] / per_call['rmcp']:.3f}" if len(per_call) == 2 else "-"
        print(f"| {transport} | {figures[0]} | {figures[1]} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
