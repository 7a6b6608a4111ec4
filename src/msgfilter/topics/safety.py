"""Which topic regexes Python's backtracking `re` may run for untrusted clients.

`re` backtracks: `(a+)+$` takes exponential time on `aaaa…b`, and `.*a.*a.*a.*b` takes n^4.
RE2 cannot; without it, the `re` implementation accepts only a subset of patterns whose worst
case is bounded, decided on the parse tree `re` itself compiles (`re._parser`), never by
looking at the pattern text. A pattern is refused (`UnsafePatternError`) when it has:

1. a backreference or a conditional group (`\\1`, `(?P=name)`, `(?(1)a|b)`);
2. a lookahead or lookbehind (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`); RE2 has neither, so both
   implementations accept the same syntax;
3. a nested quantifier: a part repeated more than once that itself has a variable length,
   such as `(a+)+`, `(a*)*`, `(a?b)*`, `(a|bc)*`;
4. inside a repeated part, alternatives that can start with the same character, such as
   `(a|a)*` or `(x|xy)*` (the parser factors `(ab|ac)*` into `a[bc]`, which is fine);
5. more than `MAX_CHOICE_POINTS` (one) backtracking choice point. A choice point is a
   variable-count quantifier whose repeated part can start with a character that may also
   follow it (`.*` in `.*-events`: `-` can be both), an optional part likewise (`a?a`), or
   alternatives that can start alike (`(orders|order-items)` is not one: the parser factors
   out `order`). Each choice point multiplies the work by up to n for an n-character name,
   and a failing attempt costs up to n more, so with at most one choice point a match takes
   at most of the order of n² steps (about 0.1 s at n = 3000, nothing at real topic-name
   lengths). `t/ns/.*`, `t/ns/[^/]+-[0-9]+`, `t/ns/.*-events` and `t/ns/.*foo.*` are
   accepted; `.*a.*b` (two choice points, n³) is not.

Character sets are over-approximated (Unicode `\\d`, `\\w`, `\\s` and case-insensitive letters
are taken to include every non-ASCII character), so a doubtful pattern is refused, never
wrongly accepted.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from msgfilter.topics.errors import UnsafePatternError

if TYPE_CHECKING:  # typeshed describes the same modules under their old names
    import sre_constants as _constants
    import sre_parse as _parser
else:
    from re import _constants, _parser

#: Most backtracking choice points a pattern may have under the `re` implementation: with k
#: of them the worst case is about n^(k+1) steps for an n-character name, so 1 keeps it n².
MAX_CHOICE_POINTS = 1

_MAX_CHAR = 0x10FFFF
_END = -1  # stands for "end of the topic name" in follow sets

Ranges = tuple[tuple[int, int], ...]

_ALL: Ranges = ((0, _MAX_CHAR),)
_NOTHING: Ranges = ()
_END_ONLY: Ranges = ((_END, _END),)
_NON_ASCII = (128, _MAX_CHAR)


def _normalise(ranges: list[tuple[int, int]]) -> Ranges:
    ranges.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def _union(a: Ranges, b: Ranges) -> Ranges:
    if not a:
        return b
    if not b:
        return a
    return _normalise([*a, *b])


def _overlaps(a: Ranges, b: Ranges) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


def _complement(a: Ranges) -> Ranges:
    """Characters (not the end marker) outside `a`."""
    out: list[tuple[int, int]] = []
    start = 0
    for lo, hi in a:
        if hi < 0:
            continue
        lo = max(lo, 0)
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= _MAX_CHAR:
        out.append((start, _MAX_CHAR))
    return tuple(out)


def _ascii_chars(text: str) -> list[tuple[int, int]]:
    return [(ord(ch), ord(ch)) for ch in text]


_DIGITS = "0123456789"
_WORD = _DIGITS + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_SPACE = " \t\n\r\f\v\x1c\x1d\x1e\x1f"


def _category(category: Any) -> Ranges:
    """An over-approximation of a `\\d`-style class: exact on ASCII, all of non-ASCII."""
    name = str(category)
    for base, chars in (("DIGIT", _DIGITS), ("WORD", _WORD), ("SPACE", _SPACE)):
        if name.endswith(f"NOT_{base}"):
            inside = _normalise(_ascii_chars(chars))
            ascii_rest = [r for r in _complement(inside) if r[0] < 128]
            return _normalise([(lo, min(hi, 127)) for lo, hi in ascii_rest] + [_NON_ASCII])
        if name.endswith(base):
            return _normalise([*_ascii_chars(chars), _NON_ASCII])
    return _ALL  # line-break categories and anything new: assume the worst


def _fold(ranges: Ranges) -> Ranges:
    """Add what case-insensitive matching also accepts: the other case of ASCII letters, all of
    non-ASCII, and (when the set has non-ASCII, like the Kelvin sign for k) all ASCII letters."""
    extra: list[tuple[int, int]] = [_NON_ASCII]
    for lo, hi in ranges:
        if hi >= 128:
            extra += [(65, 90), (97, 122)]
        for a, b, shift in ((65, 90, 32), (97, 122, -32)):
            low, high = max(lo, a), min(hi, b)
            if low <= high:
                extra.append((low + shift, high + shift))
    return _normalise([*ranges, *extra])


class _Analysis:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.choices = 0
        self._ignorecase = [bool(flags & re.IGNORECASE)]
        self._first_cache: dict[int, tuple[Ranges, bool]] = {}

    # -- first sets, without checks ---------------------------------------------------
    def first(self, sequence: Any) -> tuple[Ranges, bool]:
        """(characters that can start a match of `sequence`, whether it can match empty)."""
        cached = self._first_cache.get(id(sequence))
        if cached is None:
            cached = self._walk(sequence, _NOTHING, in_loop=False, check=False)
            self._first_cache[id(sequence)] = cached
        return cached

    # -- the checking walk ------------------------------------------------------------
    def check(self, sequence: Any) -> None:
        self._walk(sequence, _END_ONLY, in_loop=False, check=True)

    def _walk(
        self, sequence: Any, follow: Ranges, *, in_loop: bool, check: bool
    ) -> tuple[Ranges, bool]:
        # Right to left, so that each item knows what may follow it.
        items: list[tuple[Any, Any]] = list(sequence)
        after = follow  # what can come after the current item, follow set included
        first: Ranges = _NOTHING  # first set of the suffix, follow set excluded
        nullable = True
        for op, av in reversed(items):
            item_first, item_nullable = self._item(op, av, after, in_loop=in_loop, check=check)
            after = _union(item_first, after) if item_nullable else item_first
            first = _union(item_first, first) if item_nullable else item_first
            nullable = nullable and item_nullable
        return first, nullable

    def _chars(self, ranges: Ranges) -> Ranges:
        return _fold(ranges) if self._ignorecase[-1] else ranges

    def _refuse(self, what: str) -> UnsafePatternError:
        return UnsafePatternError(
            f"{what}; the 're' implementation refuses it because backtracking can take "
            "exponential or high-degree polynomial time (use implementation='re2', which "
            "matches in linear time)",
            self.pattern,
        )

    def _item(
        self, op: Any, av: Any, follow: Ranges, *, in_loop: bool, check: bool
    ) -> tuple[Ranges, bool]:
        c = _constants
        if op is c.LITERAL:
            return self._chars(((av, av),)), False
        if op is c.NOT_LITERAL:
            return self._negate(self._chars(((av, av),))), False
        if op is c.ANY:
            return _ALL, False
        if op is c.IN:
            return self._charset(av), False
        if op is c.AT:
            return _NOTHING, True
        if op is c.SUBPATTERN:
            _group, add_flags, del_flags, body = av
            ignorecase = self._ignorecase[-1]
            if add_flags & re.IGNORECASE:
                ignorecase = True
            if del_flags & re.IGNORECASE:
                ignorecase = False
            self._ignorecase.append(ignorecase)
            try:
                return self._walk(body, follow, in_loop=in_loop, check=check)
            finally:
                self._ignorecase.pop()
        if op is c.ATOMIC_GROUP:
            return self._walk(av, follow, in_loop=in_loop, check=check)
        if op is c.BRANCH:
            return self._branch(av[1], follow, in_loop=in_loop, check=check)
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            return self._repeat(av, follow, in_loop=in_loop, check=check)
        if op in (c.GROUPREF, c.GROUPREF_EXISTS, c.GROUPREF_IGNORE):
            raise self._refuse("backreferences and conditional groups are not allowed")
        if op in (c.ASSERT, c.ASSERT_NOT):
            raise self._refuse("lookahead and lookbehind assertions are not allowed")
        raise self._refuse(f"the construct {op} is not supported")

    def _charset(self, items: Any) -> Ranges:
        c = _constants
        ranges: list[tuple[int, int]] = []
        negate = False
        for op, av in items:
            if op is c.NEGATE:
                negate = True
            elif op is c.LITERAL:
                ranges.append((av, av))
            elif op is c.RANGE:
                ranges.append((av[0], av[1]))
            elif op is c.CATEGORY:
                ranges.extend(_category(av))
            else:
                ranges.append((0, _MAX_CHAR))
        chars = self._chars(_normalise(ranges))
        return self._negate(chars) if negate else chars

    def _negate(self, chars: Ranges) -> Ranges:
        # The complement of a folded set could miss non-ASCII characters whose case partner is
        # in the set; putting all of non-ASCII back keeps the result an over-approximation.
        if self._ignorecase[-1]:
            return _union(_complement(chars), (_NON_ASCII,))
        return _complement(chars)

    def _branch(
        self, alternatives: Any, follow: Ranges, *, in_loop: bool, check: bool
    ) -> tuple[Ranges, bool]:
        first: Ranges = _NOTHING
        nullable = False
        starts: list[Ranges] = []
        for alternative in alternatives:
            alt_first, alt_nullable = self._walk(alternative, follow, in_loop=in_loop, check=check)
            first = _union(first, alt_first)
            nullable = nullable or alt_nullable
            starts.append(_union(alt_first, follow) if alt_nullable else alt_first)
        if check:
            seen: Ranges = _NOTHING
            clash = False
            for start in starts:
                clash = clash or _overlaps(start, seen)
                seen = _union(seen, start)
            if clash:
                if in_loop:
                    raise self._refuse(
                        "alternatives that can start with the same character are repeated, "
                        "as in (a|a)* or (x|xy)*"
                    )
                self._count_choice()
        return first, nullable

    def _repeat(
        self, av: Any, follow: Ranges, *, in_loop: bool, check: bool
    ) -> tuple[Ranges, bool]:
        low, high, body = av
        body_first, body_nullable = self.first(body)
        if high > 1:
            width_low, width_high = body.getwidth()
            if check and width_low != width_high:
                raise self._refuse(
                    "a nested quantifier: a repeated part has a variable length, "
                    "as in (a+)+, (a*)* or (a|bc)*"
                )
            # After one pass of the body comes either another pass or what follows the loop.
            self._walk(body, _union(body_first, follow), in_loop=True, check=check)
        else:
            self._walk(body, follow, in_loop=in_loop, check=check)
        if check and low != high and _overlaps(body_first, follow):
            self._count_choice()
        return body_first, low == 0 or body_nullable

    def _count_choice(self) -> None:
        self.choices += 1
        if self.choices > MAX_CHOICE_POINTS:
            raise self._refuse(
                f"more than {MAX_CHOICE_POINTS} backtracking choice point (quantifiers or "
                "alternatives whose start can also be what follows them, as in .*a.*b)"
            )


def check_backtracking_safety(pattern: str, flags: int = 0) -> int:
    """Raise `UnsafePatternError` unless `pattern` is in the `re` implementation's safe subset.

    Returns the number of backtracking choice points found (0 means the match never
    backtracks beyond a bounded distance). `pattern` must already compile with `re`.
    """
    parsed = _parser.parse(pattern, flags)
    analysis = _Analysis(pattern, parsed.state.flags)
    try:
        analysis.check(parsed)
    except RecursionError:
        raise analysis._refuse("groups are nested too deeply to analyse") from None
    return analysis.choices
