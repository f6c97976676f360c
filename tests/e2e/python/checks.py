"""The checks the Python clients of the end-to-end tests count: `check`
raises with what failed, and `passed()` says how many held."""

from __future__ import annotations

_PASSED = 0


def check(condition: bool, what: str, detail: object = "") -> None:
    global _PASSED
    if not condition:
        raise AssertionError(f"{what}: {detail}")
    _PASSED += 1


def sans_request_id(data: dict) -> dict:
    """An error's `data` without its `requestId`, which every error carries
    (checked here, `XXXXX-XXXXX` of upper-case letters and digits)."""
    request_id = data.get("requestId", "")
    check(
        len(request_id) == 11 and request_id[5] == "-" and request_id.replace("-", "").isalnum()
        and request_id == request_id.upper(),
        "every error carries its request id",
        data,
    )
    return {key: value for key, value in data.items() if key != "requestId"}


def passed() -> int:
    """How many checks held so far."""
    return _PASSED
