"""Messages for selectors, and selectors with the messages that tell their answers apart."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

from hypothesis import strategies as st

from .. import dialects
from .reference import (
    LONG_MAX,
    LONG_MIN,
    reference_filter,
    walk,
)
from .selector_texts import STRING_ALPHABET, check_dialect, selector_text
from .vocabulary import (
    BOOLEANS,
    DOUBLE_EDGES,
    LONG_EDGES,
    ODD_VALUES,
    VALUE_KINDS,
    Names,
    checked_names,
    draw_from,
    draw_index,
    name_pool,
)


def _value_strategy(kind: str, surrogates: bool) -> st.SearchStrategy[object]:
    if kind == "long":
        return st.one_of(
            st.integers(-3, 12), st.sampled_from(LONG_EDGES), st.integers(LONG_MIN, LONG_MAX)
        )
    if kind == "double":
        return st.one_of(st.sampled_from(DOUBLE_EDGES), st.floats())
    if kind == "string":
        alphabet = st.characters() if surrogates else STRING_ALPHABET
        return st.one_of(
            st.sampled_from(("", "a", "A", "PERSISTENT", "%", "it's", "😀", "\uffff", "\ue000",
                             "\n")),
            st.text(alphabet, max_size=8),
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "odd":
        return st.sampled_from(ODD_VALUES)
    raise ValueError(f"unknown value kind {kind!r}; known: {', '.join(VALUE_KINDS)}")


# Made once: a strategy made during a draw is validated again on each draw.
_VALUES = {
    (kind, surrogates): _value_strategy(kind, surrogates)
    for kind in VALUE_KINDS for surrogates in (False, True)
}


def _message(
    draw: st.DrawFn,
    pool: tuple[str, ...],
    types: Collection[str] | Mapping[str, str],
    missing: bool,
    surrogates: bool,
    extra_values: Sequence[object] = (),
) -> dict[str, object]:
    """One message over the names of `pool` (drawn with the caller's `draw`)."""
    typed = isinstance(types, Mapping)
    # Kinds in VALUE_KINDS's order, whatever order the caller gave them in.
    ordered = () if typed else sorted(types, key=VALUE_KINDS.index)
    message: dict[str, object] = {}
    for name in pool:
        if missing and draw(BOOLEANS):
            continue  # absent: NULL (J15)
        kind = types.get(name, "null") if isinstance(types, Mapping) else draw_from(draw, ordered)
        kinds = {kind} if typed else set(types)
        # Values of the selector's literals, or of other names of this message (so that
        # `a = b` meets equal values, NaN included), make its branches go every way.
        candidates = [
            v for v in (*extra_values, *message.values()) if _kind_of(v) in kinds
        ]
        use_candidate = draw(BOOLEANS)
        if candidates and use_candidate:
            message[name] = draw_from(draw, candidates)
        else:
            message[name] = draw(_VALUES[kind, surrogates])
    return message


@st.composite
def _messages(
    draw: st.DrawFn,
    names: Names,
    types: Collection[str] | Mapping[str, str],
    missing: bool,
    surrogates: bool,
) -> dict[str, object]:
    return _message(draw, name_pool(draw, names), types, missing, surrogates)


def _kind_of(value: object) -> str:
    cls = type(value)
    return {int: "long", float: "double", str: "string", bool: "boolean"}.get(cls, "odd")


def messages(
    identifiers: Names = None,
    types: Collection[str] | Mapping[str, str] = VALUE_KINDS,
    *,
    missing: bool = True,
    surrogates: bool = False,
) -> st.SearchStrategy[dict[str, object]]:
    """Property mappings over `identifiers` (default `DEFAULT_IDENTIFIERS`).

    `types` is either the kinds of value to mix (`VALUE_KINDS`: `long` — including the
    64-bit bounds —, `double` — NaN, ±Infinity, -0.0 —, `string` — empty, non-BMP,
    newlines —, `boolean`, `null`, `odd` — bytes, a list, an `object()` and other
    values of no selector type), or a mapping from each name to one kind, as a typed
    table column needs. With `missing`, names are often absent. `surrogates` lets
    strings hold lone surrogates (Java strings can; Arrow and UTF-8 cannot).
    """
    kinds = types.values() if isinstance(types, Mapping) else types
    for kind in kinds:
        if kind not in VALUE_KINDS:
            raise ValueError(f"unknown value kind {kind!r}; known: {', '.join(VALUE_KINDS)}")
    return _messages(checked_names(identifiers), types, missing, surrogates)


@st.composite
def _cases(
    draw: st.DrawFn,
    dialect: str,
    max_depth: int,
    names: Names,
    types: Collection[str] | Mapping[str, str],
    max_messages: int,
) -> tuple[str, list[dict[str, object]]]:
    pool = name_pool(draw, names)
    text = selector_text(draw, max_depth, pool)
    values = _interesting_values(text)
    # From 1 to max_messages, as many on average as `st.lists` would draw (a list strategy
    # made here, for these values, would be validated again on each draw).
    count = 1 + draw_index(draw, max_messages)
    return text, [_message(draw, pool, types, True, False, values) for _ in range(count)]


def _interesting_values(text: str) -> list[object]:
    """Values a message could hold to make `text` TRUE somewhere: its literals (and
    their neighbours), IN items, and strings its LIKE patterns match."""
    tree = reference_filter(text).tree
    if tree is None:
        return []
    values: list[object] = [0, 0.0]
    for node in walk(tree):
        if node.kind == "literal":
            values += _neighbours(node.value)
        elif node.kind == "in":
            for item in node.items:
                values += _neighbours(item)
        elif node.kind == "like":
            values += _neighbours(_a_match(node.pattern, node.escape))
    return values


def _neighbours(value: object) -> list[object]:
    """`value` and values just beside it: the other numeric type, one more or less, the
    other letter case, one character more or less."""
    if type(value) is int:
        # Java longs only: -LONG_MIN is beyond them (and a Python int there is no long).
        found: list[object] = [value, float(value), value + 0.5]
        found += [v for v in (-value, value - 1, value + 1) if LONG_MIN <= v <= LONG_MAX]
        return found
    if type(value) is float:
        found = [value, -value, value / 2]
        if math.isfinite(value) and abs(value) < 2**63:
            found.append(int(value))
        return found
    if type(value) is str:
        return [value, value.swapcase(), value + "x", value[:-1]]
    return [] if value is None else [value]


def _a_match(pattern: str, escape: str | None) -> str:
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape and i + 1 < len(pattern) and pattern[i + 1] in ("%", "_", escape):
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append("" if ch == "%" else "z" if ch == "_" else ch)
        i += 1
    return "".join(out)


def selector_cases(
    dialect: str = dialects.DEFAULT,
    *,
    max_depth: int = 3,
    identifiers: Names = None,
    types: Collection[str] | Mapping[str, str] = VALUE_KINDS,
    max_messages: int = 4,
) -> st.SearchStrategy[tuple[str, list[dict[str, object]]]]:
    """A selector and a few messages over the same names, whose values are often the
    selector's own literals, IN items and LIKE matches, so that every branch of the
    selector gets to be TRUE, FALSE and UNKNOWN."""
    check_dialect(dialect)
    messages(identifiers, types)  # checks the arguments
    return _cases(dialect, max_depth, checked_names(identifiers), types, max_messages)
