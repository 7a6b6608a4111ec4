"""LIKE patterns (J35, J36) compiled into linear-time matchers.

A pattern is split at its `%` wildcards into segments of literal characters and `_`
(one code point each). The first segment is anchored at the start, the last at the end,
and each middle segment is placed at its leftmost occurrence after the previous one:
leftmost placement is always optimal, so there is no backtracking and matching costs
O(len(text) * len(segment)) at worst. Segments without `_` use `str.find`; those with
`_` use a regular expression made only of escaped literals and `.`, which has no
quantifier to backtrack over.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

# One parsed pattern element: a literal character, or None for `_`.
Segment = tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class LikePattern:
    """A parsed pattern: `segments` between `%` wildcards (at least one)."""

    segments: tuple[Segment, ...]


def parse_like(pattern: str, escape: str | None) -> LikePattern:
    """Split `pattern` into segments; `escape` followed by `_`, `%` or itself is literal,
    anywhere else it means what it would mean without an ESCAPE clause (J36)."""
    segments: list[Segment] = []
    current: list[str | None] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == escape and i + 1 < n and pattern[i + 1] in ("_", "%", escape):
            current.append(pattern[i + 1])
            i += 2
            continue
        if ch == "%":
            segments.append(tuple(current))
            current = []
        elif ch == "_":
            current.append(None)
        else:
            current.append(ch)
        i += 1
    segments.append(tuple(current))
    return LikePattern(tuple(segments))


def _literal(segment: Segment) -> str | None:
    return None if None in segment else "".join(segment)  # type: ignore[arg-type]


def _regex(segment: Segment) -> re.Pattern[str]:
    return re.compile(
        "".join("." if ch is None else re.escape(ch) for ch in segment), re.DOTALL
    )


def like_shape(pattern: str, escape: str | None = None) -> tuple[str, str]:
    """The shape of a pattern that a plain string operation decides, and its literal:
    ("equals" | "prefix" | "suffix" | "contains", text), ("any", "") for patterns made of
    `%` only, or ("general", "") for everything else."""
    segments = parse_like(pattern, escape).segments
    texts = [_literal(s) for s in segments]
    if any(t is None for t in texts):
        return "general", ""
    if len(texts) == 1:
        return "equals", texts[0] or ""
    inner = [t for t in texts[1:-1] if t]
    first, last = texts[0] or "", texts[-1] or ""
    if not inner:
        if not first and not last:
            return "any", ""
        if not last:
            return "prefix", first
        if not first:
            return "suffix", last
    if len(inner) == 1 and not first and not last:
        return "contains", inner[0]
    return "general", ""


def compile_like(pattern: str, escape: str | None = None) -> Callable[[str], bool]:
    """A function telling whether a string matches the LIKE pattern."""
    return compile_segments(parse_like(pattern, escape))


def compile_segments(parsed: LikePattern) -> Callable[[str], bool]:
    """A function telling whether a string matches a parsed pattern."""
    segments = parsed.segments
    if len(segments) == 1:
        only = segments[0]
        text = _literal(only)
        if text is not None:
            return text.__eq__
        rx = _regex(only)
        return lambda s: rx.fullmatch(s) is not None
    first, *middle, last = segments
    first_text, last_text = _literal(first), _literal(last)
    if not middle and first_text is not None and last_text is not None:
        if not last_text:
            return lambda s: s.startswith(first_text)
        if not first_text:
            return lambda s: s.endswith(last_text)
        need = len(first_text) + len(last_text)
        return lambda s: len(s) >= need and s.startswith(first_text) and s.endswith(last_text)
    if len(middle) == 1 and not first and not last and _literal(middle[0]) is not None:
        needle = _literal(middle[0])
        return lambda s: needle in s  # type: ignore[operator]
    return _general(first, tuple(middle), last)


def _general(first: Segment, middle: tuple[Segment, ...], last: Segment) -> Callable[[str], bool]:
    def finder(segment: Segment) -> Callable[[str, int], int]:
        text = _literal(segment)
        if text is not None:
            return lambda s, start: s.find(text, start)
        rx = _regex(segment)

        def search(s: str, start: int) -> int:
            found = rx.search(s, start)
            return -1 if found is None else found.start()

        return search

    def anchored(segment: Segment) -> Callable[[str, int], bool]:
        text = _literal(segment)
        if text is not None:
            return lambda s, at: s.startswith(text, at)
        rx = _regex(segment)
        return lambda s, at: rx.match(s, at) is not None

    first_len, last_len = len(first), len(last)
    at_start, at_end = anchored(first), anchored(last)
    steps = tuple((finder(seg), len(seg)) for seg in middle if seg)

    def match(s: str) -> bool:
        end = len(s) - last_len
        if end < first_len or not at_start(s, 0):
            return False
        pos = first_len
        for find, size in steps:
            found = find(s, pos)
            if found < 0 or found + size > end:
                return False
            pos = found + size
        return at_end(s, end)

    return match
