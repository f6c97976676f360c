"""What the benchmark scripts of `benches/` share (python3, standard library
only): the bench executable cargo builds, a server started on a loopback
port, its resident memory, and a JSON-RPC POST and its answer.

The scripts import it as `bench`, from `benches/support/` on their path.
"""

import json
import os
import re
import subprocess
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def executable(bench, features):
    """Build the bench `bench` (release, with `features`) and return its executable."""
    built = subprocess.run(
        ["cargo", "bench", "--bench", bench, "--features", features, "--no-run", "--message-format=json"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in built.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == bench:
            if message.get("executable"):
                return message["executable"]
    sys.exit(f"cargo built no `{bench}` bench executable")


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


def rss_kib(pid):
    """The resident memory of process `pid` (VmRSS), in KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    sys.exit(f"no VmRSS for process {pid}")


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
