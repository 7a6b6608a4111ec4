"""ActiveMQ's LIKE and regular-expression functions, without backtracking blow-ups.

ActiveMQ turns a LIKE pattern into a Java regular expression: `%` becomes `.*?`, `_`
becomes `.`, regex metacharacters and escaped characters become `\\x` followed by their
hex code. `\\x` takes exactly two hex digits, so an escaped character below U+0010 or
above U+00FF is mistranslated (`€` is `\\x20ac`: a space then `ac`) or breaks the regex.
`amq_like` writes the same regex text, then reads it back into LIKE segments for our
linear-time matcher, so the quirks are reproduced exactly and no regex ever runs.

REGEX, SPLIT and REPLACE take Java regular expressions from the selector or the message.
`java_regex` compiles them with Python's `re` after refusing the constructs that can
backtrack exponentially (nested unbounded repetition, alternation under repetition,
backreferences, lookaround).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .like import LikePattern, Segment, compile_segments

# Characters ActiveMQ's LikeExpression escapes as regex metacharacters.
_CONTROL = frozenset(".\\[]^$?*+{}|():&<>=!")
_HEX = frozenset("0123456789abcdefABCDEF")


class PatternError(ValueError):
    """The pattern is one ActiveMQ cannot compile, or one we refuse to run."""


def activemq_like_regex(pattern: str, escape: str | None) -> str:
    """The Java regex text ActiveMQ 5.17 builds for a LIKE pattern."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape and i + 1 < len(pattern) and pattern[i + 1] in ("_", "%", escape):
            i += 1
            out.append("\\x" + format(ord(pattern[i]), "x"))
        elif ch == "%":
            out.append(".*?")
        elif ch == "_":
            out.append(".")
        elif ch in _CONTROL:
            out.append("\\x" + format(ord(ch), "x"))
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def regex_segments(regex: str) -> LikePattern:
    """Read ActiveMQ's LIKE regex back as LIKE segments (None = any one character)."""
    segments: list[Segment] = []
    current: list[str | None] = []
    i = 0
    while i < len(regex):
        if regex.startswith("\\x", i):
            digits = regex[i + 2 : i + 4]
            if len(digits) != 2 or not set(digits) <= _HEX:
                raise PatternError(f"Illegal hexadecimal escape sequence near index {i + 2}")
            current.append(chr(int(digits, 16)))
            i += 4
        elif regex.startswith(".*?", i):
            segments.append(tuple(current))
            current = []
            i += 3
        elif regex[i] == ".":
            current.append(None)
            i += 1
        else:
            current.append(regex[i])
            i += 1
    segments.append(tuple(current))
    return LikePattern(tuple(segments))


@lru_cache(maxsize=1024)
def amq_like(pattern: str, escape: str | None) -> Callable[[str], bool]:
    """ActiveMQ's LIKE matcher for `pattern`; PatternError where ActiveMQ's regex fails
    to compile (the selector is then rejected)."""
    return compile_segments(regex_segments(activemq_like_regex(pattern, escape)))


# -- regular expressions of the functions -------------------------------------------------

try:  # Python 3.11+
    import re._constants as _c  # type: ignore[import-not-found]
    import re._parser as _p  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_constants as _c
    import sre_parse as _p

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)}
_REFUSED = {_c.GROUPREF, _c.GROUPREF_EXISTS, _c.ASSERT, _c.ASSERT_NOT}


def _check(items: Any, under_repeat: bool) -> None:
    for op, arg in items:
        if op in _REFUSED:
            raise PatternError("backreferences and lookaround are not supported")
        if op in _REPEATS:
            _, high, body = arg
            unbounded = high == _c.MAXREPEAT or high > 1
            if unbounded and under_repeat:
                raise PatternError("nested repetition can backtrack exponentially")
            _check(body, under_repeat or unbounded)
        elif op == _c.BRANCH:
            if under_repeat:
                raise PatternError("alternation under repetition can backtrack exponentially")
            for branch in arg[1]:
                _check(branch, under_repeat)
        elif op == _c.SUBPATTERN:
            _check(arg[-1], under_repeat)


# Java's POSIX classes (\p{Alpha} ...), which neither `re` nor RE2 knows, as ASCII sets.
_POSIX = {
    "Lower": "a-z", "Upper": "A-Z", "ASCII": "\\x00-\\x7f", "Alpha": "a-zA-Z", "Digit": "0-9",
    "Alnum": "a-zA-Z0-9", "Punct": "!-/:-@\\[-`{-~", "Graph": "!-~", "Print": " -~",
    "Blank": " \\t", "Cntrl": "\\x00-\\x1f\\x7f", "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0b\\f\\r",
}
_POSIX_RE = re.compile(r"\\[pP]\{(" + "|".join(_POSIX) + r")\}")


def _translate(pattern: str) -> str:
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(pattern):
        found = _POSIX_RE.match(pattern, i)
        if found:
            body = _POSIX[found.group(1)]
            negated = found.group(0)[1] == "P"
            if depth:
                out.append(body)  # inside [...]: the set's members (\P there is rare)
            else:
                out.append(("[^" if negated else "[") + body + "]")
            i = found.end()
            continue
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        depth += 1 if ch == "[" else -1 if ch == "]" and depth else 0
        out.append(ch)
        i += 1
    return "".join(out)


def _linear_engine() -> Any:
    try:
        import re2
    except ImportError:
        return None
    return re2


@lru_cache(maxsize=1024)
def java_regex(pattern: str) -> Any:
    """A Java regular expression compiled for Python: with RE2 (linear time) when the
    `re2` extra is installed, else with `re` after refusing what could blow up.
    Backreferences and lookaround are refused either way."""
    translated = _translate(pattern)
    try:
        parsed = _p.parse(translated, 0)
    except re.error as error:
        raise PatternError(str(error)) from None
    engine = _linear_engine()
    if engine is not None:
        _check_features(parsed)
        try:
            return engine.compile(translated)
        except Exception as error:  # RE2 refuses some syntax `re` accepts
            raise PatternError(str(error)) from None
    _check(parsed, False)
    return re.compile(translated)


def _check_features(items: Any) -> None:
    for op, arg in items:
        if op in _REFUSED:
            raise PatternError("backreferences and lookaround are not supported")
        if op in _REPEATS:
            _check_features(arg[2])
        elif op == _c.BRANCH:
            for branch in arg[1]:
                _check_features(branch)
        elif op == _c.SUBPATTERN:
            _check_features(arg[-1])


def java_split(regex: Any, text: str) -> list[str]:
    """String.split(regex): no leading empty piece for a zero-width match at the start,
    trailing empty pieces removed, capture groups not returned."""
    parts: list[str] = []
    last = 0
    for found in regex.finditer(text):
        if found.end() == 0:
            continue
        parts.append(text[last : found.start()])
        last = found.end()
    parts.append(text[last:])
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return parts


def java_replacement(replacement: str) -> Callable[[Any], str]:
    """Matcher.appendReplacement's template: `$n` a group, a backslash quotes the next
    character."""

    def expand(found: Any) -> str:
        out: list[str] = []
        i = 0
        while i < len(replacement):
            ch = replacement[i]
            if ch == "\\" and i + 1 < len(replacement):
                out.append(replacement[i + 1])
                i += 2
            elif ch == "$" and i + 1 < len(replacement) and replacement[i + 1].isdigit():
                j = i + 2
                # Java takes more digits while they still name an existing group.
                while j < len(replacement) and replacement[j].isdigit() and int(
                    replacement[i + 1 : j + 1]
                ) <= found.re.groups:
                    j += 1
                out.append(found.group(int(replacement[i + 1 : j])) or "")
                i = j
            else:
                out.append(ch)
                i += 1
        return "".join(out)

    return expand
