"""The vocabulary the strategies share: identifiers (and the `identifiers()` strategy),
value kinds, the edge values of longs and doubles, and values of no selector type."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import TypeVar

from hypothesis import strategies as st

from ..errors import FilterError
from .reference import (
    LONG_MAX,
    LONG_MIN,
    tokenize,
)

_T = TypeVar("_T")

#: The names `selectors()` and `messages()` share when not told otherwise.
DEFAULT_IDENTIFIERS: tuple[str, ...] = ("a", "b", "s", "JMSPriority", "über")

#: Kinds of message value `messages()` can produce (J21), plus NULL and odd objects.
VALUE_KINDS: tuple[str, ...] = ("long", "double", "string", "boolean", "null", "odd")

# Names worth trying: headers (J15), keyword look-alikes (J6), non-ASCII letters (J13),
# and names of the generated evaluator's own variables (none of which may leak, J40).
_NOTABLE_NAMES = (
    "a", "b", "x", "JMSPriority", "JMSType", "JMSDeliveryMode", "JMSTimestamp",
    "JMSCorrelationID", "JMSMessageID", "JMSRedelivered", "JMSXDeliveryCount",
    "jmspriority", "JMSDeliveryTime", "andy", "ISNULL", "NULLOR", "countIN", "xpath",
    "XQUERY", "$x", "_id", "über", "日本", "ın", "ＡＮＤ", "Ⅻ", "a\u0301", "m", "v0", "K0",
    "t1", "_s0", "type", "None", "__import__", "_cond", "__builtins__",
)

LONG_EDGES = (
    LONG_MIN, LONG_MIN + 1, LONG_MAX, LONG_MAX - 1, 2**31 - 1, -(2**31), 2**31, 2**32,
    2**53, 2**53 + 1, -(2**53) - 1,
)
DOUBLE_EDGES = (
    0.0, -0.0, math.nan, math.inf, -math.inf, 1.5, 0.1, 5e-324, 1.7976931348623157e308,
    2.0**53, 1e23,
)



class _Enum(enum.IntEnum):
    ONE = 1


class _Str(str):
    """A `str` subclass: not a Python `str` by exact class, so of no selector type."""


class _Float(float):
    """A `float` subclass, as numpy's float64 is."""


#: Values of no selector type (J21): unlike everything, NULL in arithmetic (J32).
ODD_VALUES: tuple[object, ...] = (
    b"x", bytearray(b"1"), [1], ("a",), {"k": 1}, object(), Decimal(1), 1j, frozenset(),
    _Enum.ONE, _Str("x"), _Float(1.5),
)

def _is_identifier(name: str) -> bool:
    """Whether `name` lexes as one identifier of the jms dialect."""
    try:
        tokens = tokenize(name)
    except FilterError:
        return False
    return len(tokens) == 2 and tokens[0].kind == "IDENT" and tokens[0].text == name


_IDENTIFIER_START = st.characters(categories=("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"))
_IDENTIFIER_PART = st.one_of(
    st.sampled_from("abcXYZ019_$"),
    st.characters(categories=("Lu", "Ll", "Lo", "Nl", "Sc", "Pc", "Nd", "Mn", "Mc", "Cf")),
    st.sampled_from("\x00\x07\x0e\x1b\x7f\x85\x9f"),  # controls Java ignores in names
)


def identifiers() -> st.SearchStrategy[str]:
    """Names that are identifiers of the jms dialect (J13): ASCII and Unicode letters,
    `$` and `_`, header names, keyword look-alikes, never a keyword."""
    generated = st.builds(
        lambda first, rest: first + rest,
        _IDENTIFIER_START,
        st.text(_IDENTIFIER_PART, max_size=6),
    )
    return st.one_of(st.sampled_from(_NOTABLE_NAMES), generated).filter(_is_identifier)


Names = Sequence[str] | st.SearchStrategy[str] | None

#: A boolean, for the strategies' many yes-or-no choices.
BOOLEANS = st.booleans()
# The strategies draw many small indexes: one strategy object for each bound, made once
# (a strategy made during a draw is validated again on each draw, which costs more than
# the draw itself).
_INDEXES = tuple(st.integers(0, bound - 1) for bound in range(1, 65))


def draw_index(draw: st.DrawFn, count: int) -> int:
    """An index below `count`, drawn as `st.integers(0, count - 1)` draws it (so that it
    shrinks towards the first choice)."""
    if count <= len(_INDEXES):
        return draw(_INDEXES[count - 1])
    return draw(st.integers(0, count - 1))


def draw_from(draw: st.DrawFn, options: Sequence[_T]) -> _T:
    """One of `options`, drawn as `st.sampled_from(options)` would (shrinking towards the
    first), without making a strategy for a list that changes from draw to draw."""
    return options[draw_index(draw, len(options))]


def checked_names(names: Names) -> Names:
    """`names` itself, once a list of them is known to hold only identifiers."""
    if names is None or isinstance(names, st.SearchStrategy):
        return names
    pool = tuple(names)
    if not pool:
        raise ValueError("identifiers must name at least one identifier")
    for name in pool:
        if not _is_identifier(name):
            raise ValueError(f"{name!r} is not an identifier of the jms dialect")
    return pool


def name_pool(draw: st.DrawFn, names: Names) -> tuple[str, ...]:
    if names is None:
        return DEFAULT_IDENTIFIERS
    if isinstance(names, st.SearchStrategy):
        return tuple(draw(st.lists(names, min_size=1, max_size=4, unique=True)))
    return tuple(names)
