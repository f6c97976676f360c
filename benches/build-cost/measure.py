#!/usr/bin/env python3
"""Build cost of `#[mcp_tool]` against rmcp's own `#[tool]`, on the same server.

Generates two crates of N tools (100 by default) under `target/build-cost/`:
each tool has its own input and output types (same fields, same doc comments in
both crates) and the same body; the mcp-contract tools also declare a one-entry
error contract and fail through it, which rmcp's tools cannot express. Then, for
each crate, with `CARGO_INCREMENTAL=0` and the dependencies already built:

- `cargo check` of the crate alone (its `src/lib.rs` touched): wall time and
  CPU time (user + system, which other builds on a shared machine disturb
  less than the wall clock), each the median of `--runs` runs, the two crates'
  runs interleaved;
- the peak resident memory of that rustc (`/usr/bin/time -v`, the largest child);
- the lines of the expanded source (`rustc -Zunpretty=expanded`, through
  `RUSTC_BOOTSTRAP=1` on the pinned stable toolchain; a measurement only).

With `--instructions`, also, for each crate:

- the instructions of that rustc alone (`valgrind --tool=callgrind`, with
  rustc's command line as `cargo check -vv` prints it), which repeat from run to
  run to a tenth of a percent where the times above move by several percent;
- the wall time of a `cargo check` with nothing to do: cargo's own bookkeeping
  of the crate's dependency graph, which the checks above include;
- of those instructions, the ones in the proc macros' own code (this crate's
  or rmcp's macros, serde's and schemars' derives): the rest is rustc's work,
  the analysis of what the macros expanded to among it. A macro's own code
  runs many instructions a cycle, rustc's analysis few, so the two counts
  say more about the time than their sum does.

With `--phases`, also rustc's time per pass (`-Ztime-passes`, through
`RUSTC_BOOTSTRAP=1`; a measurement only), the median of `--runs` runs of each
crate's rustc command line, interleaved: where the difference in check time
is spent.

With `--serving-features`, the two crates are built on the same capability
rather than on their defaults: both serve stdio and Streamable HTTP and nothing
else. This crate drops its default `auth` and `logging`
(`default-features = false, features = ["rmcp"]`), and rmcp's crate adds
`transport-io` and `transport-streamable-http-server` to its `server` and
`macros`. Without it, this crate is on its default features and rmcp's on
`server` and `macros` alone: what each one's user gets by default.

    python3 benches/build-cost/measure.py [--tools 100] [--runs 5] [--instructions] [--phases] [--serving-features]

The README's Performance section quotes its table. Only loopback-free local
builds: the crates depend on this workspace by path and on rmcp from the
registry cache that `cargo build` already filled.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "target" / "build-cost"
TARGET = OUT / "target"


def workspace_version(name: str) -> str:
    """The version requirement of `name` in the workspace's Cargo.toml."""
    text = (ROOT / "Cargo.toml").read_text()
    match = re.search(rf'^{re.escape(name)}\s*=\s*(?:\{{[^}}]*version\s*=\s*)?"([^"]+)"', text, re.M)
    if not match:
        sys.exit(f"no version of {name} in Cargo.toml")
    return match.group(1)


def types(n: int) -> str:
    return f"""
#[derive(Deserialize, JsonSchema)]
pub struct Input{n} {{
    /// The number to double, e.g. 21.
    pub value: u32,
    /// A label for the result, e.g. "answer".
    pub label: Option<String>,
}}

#[derive(Serialize, Deserialize, JsonSchema)]
pub struct Output{n} {{
    /// The doubled number.
    pub doubled: u32,
    /// The label, repeated.
    pub label: Option<String>,
}}
"""


def contract_crate(tools: int, serving_features: bool) -> tuple[str, str]:
    features = ', default-features = false, features = ["rmcp"]' if serving_features else ""
    manifest = f"""[package]
name = "build-cost-mcp-contract"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
mcp-contract = {{ path = "{ROOT}"{features} }}
serde = {{ version = "{workspace_version('serde')}", features = ["derive"] }}
schemars = "{workspace_version('schemars')}"
"""
    body = ["use mcp_contract::prelude::*;"]
    for n in range(tools):
        body.append(types(n))
        body.append(f"""
/// Double a number (tool {n}).
#[mcp_tool(
    annotations(read_only, open_world = false),
    errors(too_large(code = ValidationError, when = "The value is above one million",
        recovery = "Pass a value of one million or less.")),
)]
pub async fn double_{n}(input: Input{n}, ctx: Ctx) -> Result<Output{n}, McpError> {{
    if input.value > 1_000_000 {{
        return Err(ctx.fail(too_large, "The value is above one million."));
    }}
    Ok(Output{n} {{ doubled: input.value * 2, label: input.label }})
}}
""")
    registered = "".join(f"\n        .tool(Double{n})" for n in range(tools))
    body.append(f"""
pub fn server() -> Server {{
    Server::new("build-cost", "0.0.0"){registered}
}}
""")
    return manifest, "\n".join(body)


def rmcp_crate(tools: int, serving_features: bool) -> tuple[str, str]:
    features = ', "transport-io", "transport-streamable-http-server"' if serving_features else ""
    manifest = f"""[package]
name = "build-cost-rmcp"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
rmcp = {{ version = "{workspace_version('rmcp')}", default-features = false, features = ["server", "macros"{features}] }}
serde = {{ version = "{workspace_version('serde')}", features = ["derive"] }}
schemars = "{workspace_version('schemars')}"
"""
    body = [
        "use rmcp::handler::server::wrapper::{Json, Parameters};",
        "use rmcp::{ErrorData, tool, tool_router};",
        "use schemars::JsonSchema;",
        "use serde::{Deserialize, Serialize};",
    ]
    for n in range(tools):
        body.append(types(n))
    methods = "".join(f"""
    /// Double a number (tool {n}).
    #[tool(annotations(read_only_hint = true, open_world_hint = false))]
    pub async fn double_{n}(&self, Parameters(input): Parameters<Input{n}>) -> Result<Json<Output{n}>, ErrorData> {{
        if input.value > 1_000_000 {{
            return Err(ErrorData::invalid_params("The value is above one million.", None));
        }}
        Ok(Json(Output{n} {{ doubled: input.value * 2, label: input.label }}))
    }}
""" for n in range(tools))
    body.append(f"""
#[derive(Clone)]
pub struct Server;

#[tool_router(server_handler)]
impl Server {{{methods}}}
""")
    return manifest, "\n".join(body)


def write_crate(name: str, manifest: str, lib: str) -> Path:
    crate = OUT / name
    (crate / "src").mkdir(parents=True, exist_ok=True)
    (crate / "Cargo.toml").write_text(manifest)
    (crate / "src" / "lib.rs").write_text(lib)
    return crate


def env() -> dict:
    environment = dict(os.environ, CARGO_INCREMENTAL="0", CARGO_TARGET_DIR=str(TARGET))
    environment.pop("RUSTFLAGS", None)
    return environment


def cargo(crate: Path, *args: str, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    command = ["cargo", args[0], "--manifest-path", str(crate / "Cargo.toml"), *args[1:]]
    done = subprocess.run(command, env={**env(), **(extra_env or {})}, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-4000:]}")
    return done


def check_once(crate: Path) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak KiB of one crate-only `cargo check`."""
    (crate / "src" / "lib.rs").touch()
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-v", "cargo", "check", "--lib", "--manifest-path", str(crate / "Cargo.toml")],
        env=env(),
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"cargo check failed:\n{done.stderr[-4000:]}")
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    cpu = sum(float(re.search(rf"{kind} time \(seconds\): ([\d.]+)", done.stderr).group(1)) for kind in ("User", "System"))
    return elapsed, cpu, peak


def expanded_lines(crate: Path) -> int:
    done = cargo(crate, "rustc", "--lib", "--profile=check", "--", "-Zunpretty=expanded",
                 extra_env={"RUSTC_BOOTSTRAP": "1"})
    return done.stdout.count("\n")


def rustc_command(crate: Path) -> str:
    """The shell command (environment included) with which cargo checks the crate."""
    (crate / "src" / "lib.rs").touch()
    done = cargo(crate, "check", "-vv", "--lib")
    running = [line for line in done.stderr.splitlines() if "Running `" in line]
    return running[-1].split("Running `", 1)[1].rstrip("`")


def instructions(crate: Path) -> tuple[int, int]:
    """Instructions of the crate's rustc, counted by callgrind, and those of
    them run in the proc macros' own code."""
    command = rustc_command(crate)
    rustc = re.search(r"(\S*rustc) --crate-name", command).group(1)
    out = OUT / f"callgrind.{crate.name}.out"
    counted = command.replace(f"{rustc} ", f"valgrind --tool=callgrind --callgrind-out-file={out} {rustc} ", 1)
    done = subprocess.run(["bash", "-c", counted], cwd=crate, env=env(), capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"rustc under callgrind failed:\n{done.stderr[-4000:]}")
    text = out.read_text()
    total = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
    by_object = self_cost_by_object(text)
    in_macros = sum(count for name, count in by_object.items() if PROC_MACRO.search(name))
    return total, in_macros


# The file of a proc macro crate, as rustc loads it: `libserde_derive-<hash>.so`.
PROC_MACRO = re.compile(r"/lib\w*(_macros|_derive)-[0-9a-f]+\.so$")


def self_cost_by_object(text: str) -> dict:
    """Instructions of a callgrind profile by the file (`ob=`) of the function
    that ran them, not counting a call's cost where it is called."""
    names, counts = {}, {}
    current, after_call = None, False
    for line in text.splitlines():
        if line.startswith(("ob=", "cob=")):
            # `ob=(3) /path` names object 3, `ob=(3)` repeats it.
            match = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line)
            if match and match.group(2):
                names[match.group(1)] = match.group(2)
            if line.startswith("ob="):
                current = names.get(match.group(1)) if match else line[3:]
        elif line.startswith("calls="):
            after_call = True  # the next cost line is the call's, counted in its callee
        elif line[:1].isdigit() or line[:1] in "+-*":
            if after_call:
                after_call = False
            else:
                parts = line.split()
                if len(parts) > 1:
                    counts[current] = counts.get(current, 0) + int(parts[1])
    return counts


def phases(crates: dict, runs: int) -> dict:
    """Each crate's rustc seconds per pass (`-Ztime-passes`), the median of
    `runs` runs, interleaved; in rustc's order."""
    commands = {label: rustc_command(crate) + " -Ztime-passes" for label, crate in crates.items()}
    seconds = {label: {} for label in crates}
    for _ in range(runs):
        for label, crate in crates.items():
            done = subprocess.run(["bash", "-c", commands[label]], cwd=crate,
                                  env={**env(), "RUSTC_BOOTSTRAP": "1"}, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"rustc -Ztime-passes failed:\n{done.stderr[-4000:]}")
            for line in done.stderr.splitlines():
                match = re.match(r"time:\s+([\d.]+);.*\s(\S+)$", line.strip())
                if match:
                    seconds[label].setdefault(match.group(2), []).append(float(match.group(1)))
    return {label: {name: statistics.median(times) for name, times in passes.items()}
            for label, passes in seconds.items()}


def cargo_alone(crate: Path) -> float:
    """Median wall seconds of three `cargo check` runs with nothing to check."""
    cargo(crate, "check", "--lib")
    times = []
    for _ in range(3):
        start = time.perf_counter()
        cargo(crate, "check", "--lib")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--instructions", action="store_true",
                        help="also count rustc's instructions (callgrind) and time cargo alone")
    parser.add_argument("--phases", action="store_true",
                        help="also time rustc's passes (-Ztime-passes), --runs runs of each")
    parser.add_argument("--serving-features", action="store_true",
                        help="both crates on the features that serve stdio and Streamable HTTP, "
                             "rather than on their defaults")
    args = parser.parse_args()

    crates = {
        "mcp-contract #[mcp_tool]": write_crate("mcp-contract", *contract_crate(args.tools, args.serving_features)),
        "rmcp #[tool]": write_crate("rmcp", *rmcp_crate(args.tools, args.serving_features)),
    }
    for crate in crates.values():
        cargo(crate, "check", "--lib")  # dependencies, once
    # Interleaved (ours, rmcp, ours, ..), so a change of load on a shared machine
    # weighs on both crates alike rather than on whichever ran during it.
    runs_of = {label: [] for label in crates}
    for _ in range(args.runs):
        for label, crate in crates.items():
            runs_of[label].append(check_once(crate))
    rows = []
    for label, crate in crates.items():
        runs = runs_of[label]
        seconds = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        peak_mb = max(run[2] for run in runs) / 1024
        rows.append((label, seconds, cpu, expanded_lines(crate), peak_mb, [round(run[0], 2) for run in runs]))

    features = "the features that serve stdio and Streamable HTTP" if args.serving_features else "default features"
    print(f"{args.tools} tools, {features}, CARGO_INCREMENTAL=0, crate-only `cargo check`, median of {args.runs} runs\n")
    print("| macro | `cargo check` wall | CPU | expanded lines | rustc peak RSS | wall runs (s) |")
    print("|---|---|---|---|---|---|")
    for label, seconds, cpu, lines, peak_mb, runs in rows:
        print(f"| {label} | {seconds:.2f} s | {cpu:.2f} s | {lines:,} | {peak_mb:.0f} MB | {runs} |")
    (ours, theirs) = rows
    print(f"\nratio (mcp-contract / rmcp): wall {ours[1] / theirs[1]:.2f}x, CPU {ours[2] / theirs[2]:.2f}x, "
          f"lines {ours[3] / theirs[3]:.2f}x, memory {ours[4] / theirs[4]:.2f}x")

    if args.instructions:
        print("\n| macro | rustc instructions (callgrind) | in the proc macros' code | the rest "
              "| `cargo check` with nothing to do |")
        print("|---|---|---|---|---|")
        counted = []
        for label, crate in crates.items():
            (total, in_macros), alone = instructions(crate), cargo_alone(crate)
            counted.append((total, total - in_macros))
            print(f"| {label} | {total:,} | {in_macros:,} | {total - in_macros:,} | {alone:.2f} s |")
        print(f"\nratio of instructions: {counted[0][0] / counted[1][0]:.3f}x, "
              f"outside the proc macros' code {counted[0][1] / counted[1][1]:.3f}x")

    if args.phases:
        timed = phases(crates, args.runs)
        (ours, theirs) = timed.values()
        print(f"\n| rustc pass (-Ztime-passes, median of {args.runs}) | mcp-contract | rmcp | ratio |")
        print("|---|---|---|---|")
        # The passes that take a tenth of a second in either, and the total.
        for name, seconds in ours.items():
            other = theirs.get(name, 0.0)
            if max(seconds, other) >= 0.1 or name == "total":
                ratio = f"{seconds / other:.2f}x" if other else "-"
                print(f"| {name} | {seconds:.3f} s | {other:.3f} s | {ratio} |")


if __name__ == "__main__":
    main()
