"""The text form of a Pulsar tag filter (dialect `pulsar-tag`): parse and unparse.

    anytag: urgent, compressed; alltag: eu, 'New York'

* Clauses are separated by `;`; a clause is a key, `:`, and one or more values separated
  by `,`. The keys are `anytag` and `alltag`, in any letter case. A key may repeat: its
  values add up. Blank clauses (`;;`, a trailing `;`) are allowed and ignored.
* A bare value is a run of characters other than whitespace, `,`, `;` and `'`. A value
  in single quotes may hold anything, with `''` for a quote; `''` alone is the empty value.
* Whitespace (Python's `str.isspace`) around keys, `:`, values, `,` and `;` is ignored.
* Blank text is the filter without tags: it accepts every message.

Parsing is one left-to-right scan, linear in the text.
"""

from __future__ import annotations

import re

from ..errors import FilterLimitError, FilterSyntaxError
from ..limits import DEFAULT_LIMITS, Limits

#: The clause keys, as `unparse_pulsar_tags` writes them.
ANY_KEY = "anytag"
ALL_KEY = "alltag"

_WORD = re.compile(r"\w+")
_SPECIAL = frozenset(",;'")
_VALUE = ("a tag value",)


def parse_pulsar_tags(
    text: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The (anytag values, alltag values) of `text`, each in order of first appearance.

    Raises `FilterSyntaxError` at the fault, or `FilterLimitError` for text longer than
    `limits.max_length` or with more than `limits.max_in_items` distinct values of a kind.
    """
    if len(text) > limits.max_length:
        raise FilterLimitError(
            f"expression longer than {limits.max_length} characters", text, limits.max_length
        )
    found: dict[str, dict[str, None]] = {ANY_KEY: {}, ALL_KEY: {}}
    n = len(text)
    pos = _skip_space(text, 0)
    while pos < n:
        if text[pos] == ";":
            pos = _skip_space(text, pos + 1)
            continue
        word = _WORD.match(text, pos)
        key = word.group().lower() if word and word.group().isascii() else ""
        if key not in found:
            what = f"unknown clause {word.group()!r}" if word else "expected a clause"
            raise FilterSyntaxError(what, text, pos, (f"'{ANY_KEY}'", f"'{ALL_KEY}'"))
        assert word is not None
        values = found[key]
        pos = _skip_space(text, word.end())
        if pos >= n or text[pos] != ":":
            raise FilterSyntaxError(f"expected ':' after {key!r}", text, pos, ("':'",))
        pos = _skip_space(text, pos + 1)
        while True:
            start = pos
            value, pos = _value(text, pos)
            if value not in values:
                if len(values) == limits.max_in_items:
                    raise FilterLimitError(
                        f"more than {limits.max_in_items} {key} values", text, start
                    )
                values[value] = None
            pos = _skip_space(text, pos)
            if pos >= n or text[pos] == ";":
                break
            if text[pos] != ",":
                raise FilterSyntaxError(
                    "expected ',' or ';' after a value (quote a value that has spaces)",
                    text, pos, ("','", "';'", "the end"),
                )
            pos = _skip_space(text, pos + 1)
    return tuple(found[ANY_KEY]), tuple(found[ALL_KEY])


def _skip_space(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    return pos


def _value(text: str, pos: int) -> tuple[str, int]:
    """The value starting at `pos` and the position just after it."""
    n = len(text)
    if pos < n and text[pos] == "'":
        parts = []
        at = pos + 1
        while True:
            close = text.find("'", at)
            if close < 0:
                raise FilterSyntaxError(
                    "unterminated quoted value", text, pos, ("a closing quote",)
                )
            parts.append(text[at:close])
            if text.startswith("'", close + 1):
                parts.append("'")
                at = close + 2
            else:
                return "".join(parts), close + 1
    end = pos
    while end < n and not (text[end].isspace() or text[end] in _SPECIAL):
        end += 1
    if end == pos:
        raise FilterSyntaxError("expected a value", text, pos, _VALUE)
    return text[pos:end], end


def quote_value(value: str) -> str:
    """`value` as the syntax writes it: bare when it can be, else single-quoted."""
    if value and not any(ch.isspace() or ch in _SPECIAL for ch in value):
        return value
    return "'" + value.replace("'", "''") + "'"


def unparse_pulsar_tags(any_tags: tuple[str, ...], all_tags: tuple[str, ...]) -> str:
    """Canonical text for the values: `anytag: a, b; alltag: c`, "" when there are none."""
    clauses = [
        f"{key}: " + ", ".join(map(quote_value, values))
        for key, values in ((ANY_KEY, any_tags), (ALL_KEY, all_tags))
        if values
    ]
    return "; ".join(clauses)
