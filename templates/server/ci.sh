#!/usr/bin/env bash
# What CI runs, and what to run before a push: formatting, lints, the tests
# (the contract check among them) and the definition linter.
set -euo pipefail
cd "$(dirname "$0")"

cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo test
# The definition linter on the built server: exit 1 on an error.
cargo run --quiet -- lint
