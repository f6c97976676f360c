"""What the benchmark scripts of `benches/` share (python3, standard library
only): the bench executable cargo builds, a server started on a loopback
port (the TypeScript reference's too), its resident memory, and a JSON-RPC
POST and its answer.

The scripts import it as `bench`, from `benches/support/` on their path.
"""

import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REFERENCE = os.path.join(ROOT, "benches", "reference")


def executable(bench, features):
    """Build the bench `bench` (release, with `features`) and return its executable."""
    return built(["cargo", "bench", "--bench", bench, "--features", features, "--no-run"], bench)


def server(name):
    """Build the bench server `name` of `benches/server/` (release, this
    crate with its default features only: the configuration a user gets) and
    return its executable."""
    return built(["cargo", "build", "--release", "-p", "mcp-contract-bench-server", "--bin", name], name)


def built(command, target):
    """Run the cargo `command` and return the executable it built of `target`."""
    run = subprocess.run(command + ["--message-format=json"], cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True)
    for line in run.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == target:
            if message.get("executable"):
                return message["executable"]
    sys.exit(f"cargo built no `{target}` executable")


def listen(command, env, name):
    """Start `command`, a server that prints `listening on <port>` on stderr
    and stops once its stdin ends: the process and its port."""
    process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    for line in process.stderr:
        found = re.match(r"listening on (\d+)", line)
        if found:
            # Keep reading its stderr, so a server that logs never blocks on a full pipe.
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, int(found.group(1))
    process.kill()
    sys.exit(f"{name} did not listen")


def stop(process, timeout):
    """Stop a server that ends once its stdin does: close it, wait up to
    `timeout` seconds, then kill it."""
    process.stdin.close()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def reference_install():
    """The reference server's directory, with its packages installed (once),
    and its Node: `target/reference/`."""
    target = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "reference")
    node = os.path.join(target, "node_modules", ".bin", "node")
    if not os.path.exists(node):
        if shutil.which("npm") is None:
            sys.exit("the reference server needs npm (Node's package manager) to install it")
        os.makedirs(target, exist_ok=True)
        for name in ("package.json", "package-lock.json", "server.mjs"):
            shutil.copy(os.path.join(REFERENCE, name), target)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=target, check=True)
    shutil.copy(os.path.join(REFERENCE, "server.mjs"), target)
    return target, node


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_reference(**env):
    """Start `benches/reference/server.mjs` over Streamable HTTP on a free
    loopback port, with `env` added to its environment (the reference reads
    its options there): the process and its port, once it accepts."""
    directory, node = reference_install()
    port = free_port()
    env = dict(os.environ, MCP_TRANSPORT_TYPE="http", MCP_HTTP_PORT=str(port), MCP_HTTP_HOST="127.0.0.1",
               MCP_LOG_LEVEL="error", **env)
    process = subprocess.Popen([node, "server.mjs"], cwd=directory, env=env, stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            if process.poll() is not None:
                sys.exit(f"the reference server ended with {process.returncode} before it listened")
            time.sleep(0.2)
    process.kill()
    sys.exit("the reference server did not listen within 60 s")


def cpu_nanos(pid):
    """The CPU time of every thread of `pid` so far (schedstat), in nanoseconds."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as stat:
                total += int(stat.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended between the listing and the read
    return total


def rss_kib(pid, field="VmRSS"):
    """The resident memory of process `pid` in KiB: now (`VmRSS`), or its peak (`VmHWM`)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    sys.exit(f"no {field} for process {pid}")


# The session's start and the `lookup` call of `benches/server/calls.rs` (and of the
# reference's `server.mjs`), as the scripts that call it send them.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def lookup_call(i):
    """The `tools/call` of id `i`: an item of its own among 97."""
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": "lookup", "arguments": {"id": f"a{i % 97}", "limit": 5}},
    }


def lookup_result(i):
    """The structured content that answers `lookup_call(i)`."""
    return {"name": f"item a{i % 97}", "count": 5}


def answer_of(response):
    """The JSON-RPC message of an answer: the body, or the SSE event that holds one."""
    body = response.read().decode()
    if response.getheader("content-type", "").startswith("text/event-stream"):
        for event in body.split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in event.splitlines() if line.startswith("data:"))
            if data.strip():
                return json.loads(data)
        return None
    return json.loads(body) if body.strip() else None


def post(connection, message, headers, name):
    """POST `message` to `/mcp` on `connection`: the response and its JSON-RPC
    message; a status of 300 or more ends the run, naming `name`."""
    connection.request("POST", "/mcp", body=json.dumps(message, separators=(",", ":")), headers=headers)
    response = connection.getresponse()
    answer = answer_of(response)
    if response.status >= 300:
        sys.exit(f"{name}: POST {message.get('method')} was answered {response.status}: {answer}")
    return response, answer
