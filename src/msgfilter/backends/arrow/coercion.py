"""RocketMQ's conversions of string properties to the literal's Java type, as kernels:
each returns the converted values and an `errors` datum, TRUE in the rows where the
broker's conversion throws. Plain ASCII numbers take the cast kernels; the rare other
forms go through `semantics/rocketmq.py` once per distinct string."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from ... import java
from ...layout import LONG_MAX
from ...semantics import rocketmq as rq
from ...semantics import values as v
from .parts import FALSE, NULL_LONG, TRUE, Datum

_INT32 = 2**31 - 1
_NAN_BITS = 0x7FF8000000000000
_MAGNITUDE = 0x7FFFFFFFFFFFFFFF
# Which strings Integer.valueOf / Long.valueOf and Double.valueOf accept is msgfilter.java's
# fact (its RE2 patterns); the ASCII forms below are only the narrower shapes the cast kernels
# read exactly: at most 18 significant digits (always within a long), plain decimals. The
# other accepted strings go through semantics/rocketmq.py once per distinct value.
_JAVA_INTEGER = java.INTEGER_RE2
_ASCII_INTEGER = r"\A[+-]?0*[0-9]{1,18}\z"
_JAVA_DOUBLE = java.DOUBLE_RE2
_ASCII_DOUBLE = r"\A[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\z"


def or_errors(*errors: Datum | None) -> Datum | None:
    """The rows where any of `errors` threw (None: none can)."""
    found = [e for e in errors if e is not None]
    return functools.reduce(pc.or_, found) if found else None


def _per_distinct(
    datum: Datum, convert: Callable[[str], object], out: pa.DataType
) -> tuple[Datum, Datum]:
    """(values, errors) of `convert` applied once per distinct string; `Undelivered`
    marks an error. For the rare strings the kernels cannot convert."""
    if isinstance(datum, pa.Scalar):
        text = datum.as_py()
        try:
            value = None if text is None else convert(text)
        except rq.Undelivered:
            return pa.scalar(None, out), TRUE
        return pa.scalar(value, out), FALSE
    distinct = pc.unique(datum)
    values: list[object] = []
    errors: list[bool] = []
    for text in distinct.to_pylist():
        try:
            values.append(None if text is None else convert(text))
            errors.append(False)
        except rq.Undelivered:
            values.append(None)
            errors.append(True)
    index = pc.index_in(datum, value_set=distinct)
    return pc.take(pa.array(values, out), index), pc.take(pa.array(errors, pa.bool_()), index)


def _convert(
    s: Datum, out: pa.DataType, java: str, ascii_form: str, slow: Callable[[str], object]
) -> tuple[Datum, Datum]:
    """(values, errors) of a string datum converted by a Java parser: `ascii_form`
    strings by the cast kernel, other `java` ones by `slow`, the rest are errors."""
    if isinstance(s, pa.Scalar):
        return _per_distinct(s, slow, out)
    # Most numeric properties are plain digits: then one cast does it all.
    digits = pc.and_(pc.fill_null(pc.ascii_is_decimal(s), False),
                     pc.less_equal(pc.binary_length(s), 18))
    if not pc.any(pc.and_(pc.is_valid(s), pc.invert(digits))).as_py():
        return pc.cast(s, out), FALSE
    fast = pc.fill_null(pc.match_substring_regex(s, ascii_form), False)
    valid = pc.fill_null(pc.match_substring_regex(s, java), False)
    rare = pc.and_(valid, pc.invert(fast))
    unsigned = pc.replace_substring_regex(s, r"\A\+", "")
    values = pc.cast(pc.if_else(fast, unsigned, pa.scalar(None, s.type)), out)
    errors = pc.and_(pc.is_valid(s), pc.invert(valid))
    if not pc.any(rare).as_py():
        return values, errors
    rare_values, rare_errors = _per_distinct(
        pc.if_else(rare, s, pa.scalar(None, s.type)), slow, out
    )
    return pc.coalesce(values, rare_values), pc.or_(errors, rare_errors)


def to_long(s: Datum, bound: int) -> tuple[Datum, Datum]:
    """Integer.valueOf (bound 2**31-1) or Long.valueOf of each string."""
    values, errors = _convert(
        s, pa.int64(), _JAVA_INTEGER, _ASCII_INTEGER,
        lambda text: rq.parse_rocketmq_integer(text, bound),
    )
    limits = pa.scalar(-bound - 1, pa.int64()), pa.scalar(bound, pa.int64())
    out_of_range = pc.fill_null(
        pc.or_(pc.less(values, limits[0]), pc.greater(values, limits[1])), False
    )
    errors = pc.or_(errors, out_of_range)
    return pc.if_else(out_of_range, NULL_LONG, values), errors


def to_double(s: Datum) -> tuple[Datum, Datum]:
    """Double.valueOf of each string."""
    return _convert(s, pa.float64(), _JAVA_DOUBLE, _ASCII_DOUBLE, rq.parse_double)


def to_boolean(s: Datum) -> Datum:
    # Boolean.valueOf: "true" in any case; no other character lower-cases to t, r, u, e.
    return pc.equal(pc.ascii_lower(s), pa.scalar("true", pa.string()))


def double_order_key(datum: Datum) -> Datum:
    """An int64 key ordering doubles as Double.compareTo does: -0.0 < 0.0, NaN above
    everything and equal to itself."""
    if isinstance(datum, pa.Scalar):
        value = datum.as_py()
        if value is None:
            return NULL_LONG
        bits = _NAN_BITS if value != value else v.double_bits(value)
        return pa.scalar(bits ^ _MAGNITUDE if bits < 0 else bits, pa.int64())
    canonical = pc.if_else(pc.is_nan(datum), pa.scalar(math.nan, pa.float64()), datum)
    if isinstance(canonical, pa.ChunkedArray):
        bits = pa.chunked_array(
            [c.view(pa.int64()) for c in canonical.chunks], pa.int64()
        )
    else:
        bits = canonical.view(pa.int64())
    flipped = pc.bit_wise_xor(bits, pa.scalar(_MAGNITUDE, pa.int64()))
    return pc.if_else(pc.less(bits, pa.scalar(0, pa.int64())), flipped, bits)


def long_bound(literal: Datum) -> int:
    """The range of the Java type a string is converted to, to meet `literal`: a literal
    that fits in 32 bits is an Integer (-2**31 is a negated Long 2**31)."""
    value = literal.as_py() if isinstance(literal, pa.Scalar) else None
    return _INT32 if value is not None and -_INT32 <= value <= _INT32 else LONG_MAX
