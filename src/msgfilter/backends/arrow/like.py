"""String predicates as kernels: LIKE (J36) as an equality, prefix, suffix or substring
test or an anchored RE2 expression built from `parse_like`'s segments, and IN (J34) as a
hash lookup."""

from __future__ import annotations

import functools
from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from ...layout import STRING
from ...semantics.like import Segment, parse_like
from .parts import NULL_BOOL, Datum, Parts, false_unless_null


def string_test(parts: Parts, test: Callable[[Datum], Datum]) -> Datum:
    """`test` on the string rows (it must keep NULL for NULL), FALSE on other values,
    UNKNOWN on NULL: LIKE (J37) and IN (J34) before any NOT."""
    string = parts.get(STRING)
    if string is None:
        return false_unless_null(parts)
    hit = test(string)
    if len(parts) == 1:
        return hit
    return pc.coalesce(hit, false_unless_null({k: d for k, d in parts.items() if k != STRING}))


def _regex_char(ch: str | None) -> str:
    if ch is None:
        return "."
    if ch.isascii() and ch.isalnum():
        return ch
    # Every other character spelled by its code point: nothing in it can be syntax.
    return f"\\x{{{ord(ch):X}}}"


def segment_regex(segment: Segment) -> str:
    """One LIKE segment as RE2: `_` is `.` (one code point), each other character is
    itself or `\\x{...}`, never syntax."""
    return "".join(_regex_char(ch) for ch in segment)


def like_regex(pattern: str, escape: str | None) -> str:
    """An RE2 regular expression matching exactly the strings the LIKE pattern matches
    (J36): anchored at each end without a `%`, `.` matching line breaks and one code
    point, each literal character written as `\\x{...}` so none is syntax."""
    parts = [segment_regex(seg) for seg in parse_like(pattern, escape).segments]
    # A leading or trailing `%` is an unanchored end: RE2 searches faster than `\\A.*`.
    start, end = "\\A", "\\z"
    if len(parts) > 1 and not parts[0]:
        start, parts = "", parts[1:]
    if len(parts) > 1 and not parts[-1]:
        end, parts = "", parts[:-1]
    return f"(?s){start}{'.*'.join(parts)}{end}"


def like_test(pattern: str, escape: str | None) -> Callable[[Datum], Datum]:
    """The fastest kernel for the pattern's shape: equality, prefix, suffix or
    substring where it has one literal part and `%` only at its ends, else an RE2
    regular expression (linear time). Not `match_like`: it mishandles an escaped
    backslash (`%\\\\` does not match a string ending in a backslash)."""
    segments = parse_like(pattern, escape).segments
    literal = [None if None in seg else "".join(seg) for seg in segments]  # type: ignore[arg-type]
    if len(segments) == 1 and literal[0] is not None:
        text = literal[0]
        return lambda s: pc.equal(s, pa.scalar(text, pa.string()))
    if len(segments) == 2 and literal[0] is not None and literal[1] == "":
        prefix = literal[0]
        return lambda s: pc.starts_with(s, prefix)
    if len(segments) == 2 and literal[0] == "" and literal[1] is not None:
        suffix = literal[1]
        return lambda s: pc.ends_with(s, suffix)
    if len(segments) == 3 and literal[0] == literal[2] == "" and literal[1] is not None:
        needle = literal[1]
        return lambda s: pc.match_substring(s, needle)
    regex = like_regex(pattern, escape)
    return lambda s: pc.match_substring_regex(s, regex)


#: Up to this many items, IN is an OR of equalities (NULL stays UNKNOWN without a fix-up).
#: From two items on, hashing each row once (is_in) was faster here: equality of strings
#: of one length costs a memcmp with an unpredictable branch per row.
_SMALL_IN = 1


def in_test(items: tuple[str, ...]) -> Callable[[Datum], Datum]:
    """`s IN (items)` of a string datum, NULL for a NULL string."""
    distinct = sorted(set(items))
    if len(distinct) <= _SMALL_IN:
        scalars = [pa.scalar(item, pa.string()) for item in distinct]
        return lambda s: functools.reduce(pc.or_kleene, [pc.equal(s, k) for k in scalars])
    sets: dict[pa.DataType, pa.Array] = {}

    def test(s: Datum) -> Datum:
        value_set = sets.get(s.type)
        if value_set is None:
            value_set = sets.setdefault(s.type, pa.array(items, s.type))
        hit = pc.is_in(s, value_set=value_set)
        # is_in says FALSE for a null input; IN on NULL is UNKNOWN (J34).
        return pc.if_else(pc.is_valid(s), hit, NULL_BOOL)

    return test
