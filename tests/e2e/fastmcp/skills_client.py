"""FastMCP 4's Skills client (SEP-2640) against the museum: it lists the
museum's skill, gets it, reads every file and verifies each against the
digest and size the listing gave, as a host does before loading a skill.

    python skills_client.py http://127.0.0.1:8080/mcp

Exits 0 when every check passed, 1 otherwise, printing each check.
"""

import asyncio
import hashlib
import sys

from fastmcp import Client
from fastmcp.skills.client import SkillsClientExtension

SKILL_URI = "skill://collection-search/SKILL.md"
failures = 0
passed = 0


def check(ok: bool, what: str, detail: object = "") -> None:
    global failures, passed
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail!r}"[:400]))
    if ok:
        passed += 1
    else:
        failures += 1


def content_bytes(contents) -> bytes:
    import base64

    item = contents[0]
    text = getattr(item, "text", None)
    if text is not None:
        return text.encode("utf-8")
    return base64.b64decode(item.blob)


async def main(url: str) -> int:
    async with Client(url, extensions=[SkillsClientExtension()]) as client:
        skills = await client.list_skills()
        uris = [skill.uri for skill in skills]
        check(uris == [SKILL_URI], "skills/list has the museum's skill", uris)
        skill = skills[0]
        check(skill.frontmatter.name == "collection-search", "its frontmatter's name", skill.frontmatter)
        got = await client.get_skill(SKILL_URI)
        check(got == skill, "skills/get gives the listed entry", got)
        files = skill.resources
        check(isinstance(files, list) and len(files) == 2, "a manifest of two files", files)
        for file in files:
            data = content_bytes(await client.read_resource(file.uri))
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
            check(len(data) == file.size, f"{file.uri}: the size the listing gave", (len(data), file.size))
            check(digest == file.digest, f"{file.uri}: the digest the listing gave", (digest, file.digest))
    print(f"FAILED: {failures} check(s)" if failures else f"ok: {passed} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
