"""The checks the Python clients of the end-to-end tests count: `check`
raises with what failed, and `passed()` says how many held."""

from __future__ import annotations

_PASSED = 0


def check(condition: bool, what: str, detail: object = "") -> None:
    global _PASSED
    if not condition:
        raise AssertionError(f"{what}: {detail}")
    _PASSED += 1


def passed() -> int:
    """How many checks held so far."""
    return _PASSED
