"""Comparison and arithmetic kernels over parts (J19-J32), with Arrow's departures from
the dialect corrected: integer division (a zero divisor is NULL, MIN / -1 is MIN), string
order by UTF-16 code units, Java's text for a double."""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from ...layout import BOOLEAN, DOUBLE, LONG, NUMERIC, OTHER, STRING
from ...semantics import values as v
from ...syntax import nodes as n
from .parts import NULL_LONG, Datum, Parts, as_large_string, false_unless_null, first, same_strings

_ONE = pa.scalar(1, pa.int64())


def literal_parts(node: n.Expr) -> Parts:
    """The parts of a literal (NULL has none)."""
    if isinstance(node, n.StringLit):
        return {STRING: pa.scalar(node.value, pa.string())}
    if isinstance(node, n.BoolLit):
        return {BOOLEAN: pa.scalar(node.value, pa.bool_())}
    if isinstance(node, n.ExactLit):
        return {LONG: pa.scalar(node.value, pa.int64())}
    if isinstance(node, n.ApproxLit):
        return {DOUBLE: pa.scalar(node.value, pa.float64())}
    return {}


def to_double(datum: Datum) -> Datum:
    if isinstance(datum, pa.Scalar):
        value = datum.as_py()
        return pa.scalar(None if value is None else v.to_double(value), pa.float64())
    # Unsafe: a long beyond 2**53 rounds to the nearest double, as Java widens it.
    return pc.cast(datum, pa.float64(), safe=False)


def utf16_key(datum: Datum) -> Datum:
    """Bytes that order like Java's String.compareTo (UTF-16 code units).

    UTF-8 bytes order by code point; UTF-16 differs only in putting U+E000..U+FFFF
    above the supplementary planes (their surrogates are D800..DFFF). Those characters
    are the only ones led by the bytes EE and EF (continuation bytes are 80..BF), and
    the supplementary ones by F0..F4: renaming EE, EF to F5, F6 (never in UTF-8) gives
    the UTF-16 order byte by byte.
    """
    key = pc.cast(as_large_string(datum), pa.large_binary())
    key = pc.replace_substring(key, b"\xee", b"\xf5")
    return pc.replace_substring(key, b"\xef", b"\xf6")


#: Comparison operator -> kernel.
KERNELS: dict[str, Callable[[Datum, Datum], Datum]] = {
    "=": pc.equal, "<>": pc.not_equal, "<": pc.less,
    "<=": pc.less_equal, ">": pc.greater, ">=": pc.greater_equal,
}


def _compare_pair(op: str, ka: str, a: Datum, kb: str, b: Datum) -> Datum | None:
    """`a op b` for one pair of parts; None when the types are unlike (J24)."""
    kernel = KERNELS[op]
    if ka in NUMERIC and kb in NUMERIC:
        if ka != kb:
            a, b = to_double(a), to_double(b)
        return kernel(a, b)
    if ka != kb or ka == OTHER:
        return None
    if ka == STRING:
        if op in ("=", "<>"):
            return kernel(*same_strings(a, b))
        return kernel(utf16_key(a), utf16_key(b))
    return kernel(a, b)


def compare(op: str, a: Parts, b: Parts) -> Datum:
    """J24-J27: like types compare, unlike ones are FALSE, a NULL makes it UNKNOWN."""
    results: list[Datum] = []
    unlike = False
    for ka, da in a.items():
        for kb, db in b.items():
            result = _compare_pair(op, ka, da, kb, db)
            if result is None:
                unlike = True
            else:
                results.append(result)
    if unlike or not results:
        results.append(false_unless_null(a, b))
    return first(results)


def _long_divide(a: Datum, b: Datum) -> Datum:
    """J30 on longs: truncation toward zero, MIN / -1 = MIN, a zero divisor NULL."""
    if isinstance(b, pa.Scalar):
        divisor = b.as_py()
        if divisor is None or divisor == 0:
            return NULL_LONG
        # Arrow's divide gives 0 for MIN / -1; negation wraps to MIN as Java does.
        return pc.negate(a) if divisor == -1 else pc.divide(a, b)
    zero = pc.equal(b, 0)
    minus_one = pc.equal(b, -1)
    safe = pc.if_else(pc.or_(zero, minus_one), _ONE, b)
    quotient = pc.if_else(minus_one, pc.negate(a), pc.divide(a, safe))
    return pc.if_else(zero, NULL_LONG, quotient)


# Unchecked kernels wrap around at 64 bits, as Java's long arithmetic does (J23).
_LONG_ARITH: dict[str, Callable[[Datum, Datum], Datum]] = {
    "+": pc.add, "-": pc.subtract, "*": pc.multiply, "/": _long_divide,
}
# Float division by zero is IEEE (±inf, NaN) in Arrow: no fix-up needed.
_DOUBLE_ARITH: dict[str, Callable[[Datum, Datum], Datum]] = {
    "+": pc.add, "-": pc.subtract, "*": pc.multiply, "/": pc.divide,
}


def double_text(datum: Datum) -> Datum:
    """Java's Double.toString of each value (J31), computed once per distinct value.

    No kernel writes Java's format (shortest digits, `1.0E20`, `-0.0`); the distinct
    doubles of a column are usually few, and `unique`/`index_in` keep -0.0 and 0.0
    apart, so Python writes each distinct one and `take` spreads them over the rows.
    """
    if isinstance(datum, pa.Scalar):
        value = datum.as_py()
        return pa.scalar(None if value is None else v.java_double_text(value), pa.large_string())
    distinct = pc.unique(datum)
    texts = pa.array(
        [None if x is None else v.java_double_text(x) for x in distinct.to_pylist()],
        pa.large_string(),
    )
    return pc.take(texts, pc.index_in(datum, value_set=distinct))


def java_text(kind: str, datum: Datum) -> Datum | None:
    """J31: the text `'s' + x` appends for a part of kind `kind`; None for no text."""
    if kind == STRING:
        return as_large_string(datum)
    if kind == LONG:
        return pc.cast(datum, pa.large_string())
    if kind == BOOLEAN:
        return pc.if_else(datum, pa.scalar("true", pa.large_string()),
                          pa.scalar("false", pa.large_string()))
    if kind == DOUBLE:
        return double_text(datum)
    return None


def arithmetic(op: str, a: Parts, b: Parts) -> Parts:
    """J29-J32: numbers by Java promotion, `string + x` concatenates, else NULL."""
    out: dict[str, list[Datum]] = {}
    for ka, da in a.items():
        for kb, db in b.items():
            if ka in NUMERIC and kb in NUMERIC:
                if ka == kb == LONG:
                    out.setdefault(LONG, []).append(_LONG_ARITH[op](da, db))
                else:
                    out.setdefault(DOUBLE, []).append(
                        _DOUBLE_ARITH[op](to_double(da), to_double(db))
                    )
            elif ka == STRING and op == "+":
                text = java_text(kb, db)
                if text is not None:
                    joined = pc.binary_join_element_wise(
                        as_large_string(da), text, pa.scalar("", pa.large_string())
                    )
                    out.setdefault(STRING, []).append(joined)
    return {kind: first(data) for kind, data in out.items()}


def negate(a: Parts) -> Parts:
    """J19: numbers negate (a long wraps), anything else is NULL."""
    return {k: pc.negate(d) for k, d in a.items() if k in NUMERIC}
