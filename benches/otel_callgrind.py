#!/usr/bin/env python3
"""Instructions per `tools/call` with OpenTelemetry off, on and sampled out,
and on and exported, counted by callgrind (`valgrind --tool=callgrind`).

The bench binary of `benches/otel.rs`, in its one-shot mode, makes N and then
2N calls (rmcp's client, an in-process duplex pipe, the trivial `add` tool,
a current-thread runtime) in each mode; a call costs the difference of the
two runs' instruction counts divided by N, which takes out what a run costs
once (start-up, the pipeline's set-up, the connection, the final flush). The
counts are of every thread of the process: the exporter's own thread is
part of what a traced call costs. The collector is this script's own, in
another process, so its work is not counted.

    benches/otel_callgrind.py [--calls N]   # N = 1000 by default

Callgrind counts instructions, not time: the figure repeats to within a
fraction of a percent from run to run, on a loaded machine too.
"""

import argparse
import http.server
import os
import re
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import bench  # noqa: E402  (benches/support/bench.py)
MODES = ["off", "sampled_out", "exported"]


class Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP collector that takes every batch: an empty protobuf
    answer is the default `Export*ServiceResponse`."""

    received = 0

    def do_POST(self):
        length = int(self.headers.get("content-length", "0"))
        Collector.received += len(self.rfile.read(length))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass



def instructions(binary, mode, calls, collector):
    """The instructions callgrind counts for one run of `calls` calls in `mode`."""
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        env = dict(
            os.environ,
            OTEL_BENCH_CALLS=str(calls),
            OTEL_BENCH_MODE=mode,
            OTEL_BENCH_COLLECTOR=collector,
            RUST_LOG="off",
        )
        run = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(f"the run of {calls} calls in mode {mode} failed:\n{run.stderr}")
        told = [line for line in run.stderr.splitlines() if line.startswith(f"{mode}:")]
        with open(out) as counts:
            for line in counts:
                total = re.match(r"(?:summary|totals):\s+(\d+)", line)
                if total:
                    return int(total.group(1)), told
    sys.exit(f"callgrind wrote no total for mode {mode}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="N: the runs make N and 2N calls")
    args = parser.parse_args()
    binary = bench.executable("otel", "otel")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    collector = f"127.0.0.1:{server.server_address[1]}"
    n = args.calls
    print(f"callgrind, instructions per tools/call: (I({2 * n} calls) - I({n} calls)) / {n}")
    print("| mode | instructions per call | I(N) | I(2N) |")
    print("|---|---|---|---|")
    per_call = {}
    for mode in MODES:
        once, told_once = instructions(binary, mode, n, collector)
        twice, told_twice = instructions(binary, mode, 2 * n, collector)
        per_call[mode] = (twice - once) / n
        print(f"| {mode} | {per_call[mode]:,.0f} | {once:,} | {twice:,} |")
        for line in told_once + told_twice:
            print(f"    {line}")
    print(f"sampled out costs {per_call['sampled_out'] - per_call['off']:,.0f} instructions a call more than off, "
          f"exported {per_call['exported'] - per_call['off']:,.0f}; the collector took {Collector.received:,} bytes")
    server.shutdown()


if __name__ == "__main__":
    main()
