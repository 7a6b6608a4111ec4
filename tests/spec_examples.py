"""The examples of ../shared/spec/jms-selectors.md, read from the spec itself.

An example reads `` `selector` (name=value, ...) → RESULT `` where values are Python
literals and RESULT is TRUE, FALSE, UNKNOWN or error. Examples written in prose (a tab
for a space, ...) are left to the hand-written tests.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from conformance import SHARED

SPEC = SHARED / "spec" / "jms-selectors.md"

_RULE = re.compile(r"^\*\*(J\d+)\.")
_EXAMPLE = re.compile(
    r"`(?P<selector>(?:[^`]|``)*)`\s*(?:\((?P<message>[^)]*(?:\)[^→]*?)?)\))?\s*→\s*"
    r"(?P<result>TRUE|FALSE|UNKNOWN|error)"
)
_RESULTS = {"TRUE": True, "FALSE": False, "UNKNOWN": None, "error": "error"}


@dataclass(frozen=True)
class Example:
    rule: str
    selector: str
    message: dict[str, object]
    expected: bool | str | None

    def __str__(self) -> str:
        return f"{self.rule}: {self.selector!r} {self.message} -> {self.expected}"


def _message(text: str | None) -> dict[str, object] | None:
    if not text or not text.strip():
        return {}
    try:
        return dict(_pairs(text))
    except (ValueError, SyntaxError):
        return None


def _pairs(text: str) -> list[tuple[str, object]]:
    # Names such as `$x` are not Python identifiers: split by hand on top-level commas.
    pairs, depth, current = [], 0, ""
    in_string: str | None = None
    for ch in text + ",":
        if in_string:
            current += ch
            if ch == in_string and not current.endswith("\\" + ch):
                in_string = None
            continue
        if ch in "'\"":
            in_string = ch
        elif ch == "," and depth == 0:
            name, _, value = current.partition("=")
            pairs.append((name.strip(), ast.literal_eval(value.strip())))
            current = ""
            continue
        current += ch
    return pairs


def examples() -> list[Example]:
    found: list[Example] = []
    rule = ""
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        match = _RULE.match(line)
        if match:
            rule = match.group(1)
        if not rule or (not line.lstrip().startswith(("-", "`")) and "→" not in line):
            continue
        for example in _EXAMPLE.finditer(line):
            message = _message(example.group("message"))
            if message is None:
                continue
            selector = example.group("selector").replace("⏎", "\n")
            found.append(
                Example(rule, selector, message, _RESULTS[example.group("result")])
            )
    return found
