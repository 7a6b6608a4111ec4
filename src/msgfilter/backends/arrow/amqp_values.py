"""amqp-sql's values as kernels (`semantics.amqp`'s rules, RabbitMQ 4.2): how Arrow types
become AMQP values, comparisons and arithmetic over parts.

- A value is a long, a double (finite: a NaN or infinity is absent, as the per-message
  evaluator reads it), a string, a binary (`layout.BINARY`) or a boolean. Binary columns
  are binaries, a timestamp with a time zone is its milliseconds since the epoch, a
  timestamp without one is absent; any other type (a uint64 beyond a long, decimals,
  lists, ...) has an AMQP reading only the per-message evaluator gives, so its rows are
  marked for it (`Evaluation.redo`).
- `=` is Erlang's `==` (a long equals a double of its value, exactly; a string equals a
  binary of its UTF-8); `< <= > >=` order two numbers or two strings or binaries
  (bytewise: Arrow's order of strings), any other pair is FALSE (`<>` TRUE); an absent
  operand makes any comparison UNKNOWN.
- Arithmetic of numbers only: `+ - *` of two longs exact (a result that may leave the long
  range marks its row: RabbitMQ's integers are unbounded), with a double in doubles; `/`
  in doubles, UNKNOWN for a zero divisor; `%` of two longs, the dividend's sign; a
  double result beyond the double range marks its row (RabbitMQ's `badarith`)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc

from ...layout import BINARY, BOOLEAN, DOUBLE, LONG, OTHER, STRING
from .columns import decoded, decomposer
from .compiler import Unsupported
from .parts import NULL_BOOL, Datum, Parts, first, same_strings
from .values import KERNELS

_MS_PER = {"s": None, "ms": 1, "us": 1_000, "ns": 1_000_000}
_DOUBLE = pa.float64()
_LONG = pa.int64()
_TWO_63 = 2.0**63
#: Results of long arithmetic at or beyond this magnitude (in doubles) may have left the
#: long range: their rows are answered per message.
_LONG_SAFE = 2.0**62


def _finite(datum: Datum) -> Datum:
    # NaN and infinities are absent (semantics.amqp.value_of).
    return pc.if_else(pc.is_finite(datum), datum, pa.scalar(None, _DOUBLE))


def _timestamp(dtype: pa.TimestampType) -> Callable[[Datum], Parts]:
    if dtype.tz is None:
        # A naive datetime says no zone: absent, as the per-message evaluator reads it.
        return lambda d: {}
    per = _MS_PER[dtype.unit]

    def millis(d: Datum) -> Parts:
        raw = pc.cast(d, _LONG)
        if per is None:
            return {LONG: pc.multiply(raw, 1000)}
        if per == 1:
            return {LONG: raw}
        # Floor, as `(t - epoch) // 1 ms` is: Arrow's division truncates toward zero.
        quotient = pc.divide(raw, per)
        behind = pc.and_(pc.less(raw, 0), pc.not_equal(pc.multiply(quotient, per), raw))
        return {LONG: pc.subtract(quotient, pc.cast(behind, _LONG))}

    return millis


@functools.lru_cache(maxsize=256)
def amqp_split(dtype: pa.DataType) -> Callable[[Datum], Parts]:
    """How columns of `dtype` become AMQP values (see the module docstring)."""
    t = pa.types
    found = decoded(dtype, amqp_split)
    if found is not None:
        return found
    if t.is_union(dtype):
        raise Unsupported("a union column is read as AMQP values per message")
    if t.is_binary(dtype) or t.is_large_binary(dtype):
        return lambda d: {BINARY: d}
    if t.is_fixed_size_binary(dtype) or t.is_binary_view(dtype):
        return lambda d: {BINARY: pc.cast(d, pa.large_binary())}
    if t.is_timestamp(dtype):
        return _timestamp(dtype)
    split = decomposer(dtype)
    if t.is_floating(dtype):
        return lambda d: {k: _finite(v) for k, v in split(d).items()}
    return split


# -- comparison -------------------------------------------------------------------------------


def _present_both(a: Datum, b: Datum) -> Datum:
    return pc.and_(pc.is_valid(a), pc.is_valid(b))


def _constant(answer: bool, a: Datum, b: Datum) -> Datum:
    return pc.if_else(_present_both(a, b), pa.scalar(answer), NULL_BOOL)


def _order(op: str, lt: Datum, gt: Datum) -> Datum:
    """`op` from the two strict orders (null where either is)."""
    if op == "<":
        return lt
    if op == ">":
        return gt
    if op == "<=":
        return pc.invert(gt)
    if op == ">=":
        return pc.invert(lt)
    same = pc.and_(pc.invert(lt), pc.invert(gt))
    return same if op == "=" else pc.invert(same)


def _long_vs_literal(op: str, a: Datum, d: float) -> Datum:
    """`a op d` for longs `a` and a finite double `d`, exactly (through d's floor or
    ceiling, as Python's int and float compare)."""
    if d >= _TWO_63 or d < -_TWO_63:
        below = d > 0  # every long is below d (or above it)
        return _constant(_order(op, pa.scalar(below), pa.scalar(not below)).as_py(), a, a)
    low, high = pa.scalar(int(d // 1), _LONG), pa.scalar(int(-(-d // 1)), _LONG)
    if op in ("=", "<>"):
        if low != high:
            return _constant(op == "<>", a, a)
        return KERNELS[op](a, low)
    bound = {"<": high, "<=": low, ">": low, ">=": high}[op]
    return KERNELS[op](a, bound)


def long_vs_double(op: str, a: Datum, d: Datum) -> Datum:
    """`a op d` for longs and finite doubles, exactly by value (Erlang and Python compare
    an integer and a float so; Arrow would round the long to a double)."""
    if isinstance(d, pa.Scalar) and not isinstance(a, pa.Scalar):
        value = d.as_py()
        if value is None:
            return NULL_BOOL
        return _long_vs_literal(op, a, value)
    near = pc.cast(a, _DOUBLE, safe=False)
    # Rounding is monotonic: where the rounded long differs from d it orders as a does.
    # Where they tie, d is a whole number within [-2**63, 2**63]: compare as longs.
    tie = pc.equal(near, d)
    big = pc.greater_equal(d, _TWO_63)
    whole = pc.cast(pc.if_else(pc.and_(tie, pc.invert(big)), d, 0.0), _LONG)
    lt = pc.if_else(tie, pc.or_(big, pc.less(a, whole)), pc.less(near, d))
    gt = pc.if_else(tie, pc.and_(pc.invert(big), pc.greater(a, whole)), pc.greater(near, d))
    return _order(op, lt, gt)


def _as_binary(datum: Datum) -> Datum:
    if datum.type == pa.large_binary():
        return datum
    return pc.cast(datum, pa.large_binary())


def _compare_pair(op: str, ka: str, a: Datum, kb: str, b: Datum) -> Datum:
    kernel = KERNELS[op]
    if ka == kb and ka in (LONG, DOUBLE):
        return kernel(a, b)
    if ka == LONG and kb == DOUBLE:
        return long_vs_double(op, a, b)
    if ka == DOUBLE and kb == LONG:
        return long_vs_double(_FLIP[op], b, a)
    if ka == kb == STRING:
        return kernel(*same_strings(a, b))
    if ka in _TEXT and kb in _TEXT:
        return kernel(_as_binary(a), _as_binary(b))
    if ka == kb == BOOLEAN and op in ("=", "<>"):
        return kernel(a, b)
    # Unlike types, or booleans ordered: FALSE, `<>` TRUE.
    return _constant(op == "<>", a, b)


_TEXT = (STRING, BINARY)
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def compare(op: str, a: Parts, b: Parts) -> Datum:
    """`a op b`: each row has at most one kind in each value, so at most one pair of
    parts is non-null; none (an absent operand) is UNKNOWN."""
    results = [
        _compare_pair(op, ka, da, kb, db) for ka, da in a.items() for kb, db in b.items()
    ]
    return first(results) if results else NULL_BOOL


# -- arithmetic -------------------------------------------------------------------------------

_FLOAT_OPS: dict[str, Callable[[Datum, Datum], Datum]] = {
    "+": pc.add, "-": pc.subtract, "*": pc.multiply, "/": pc.divide,
}


def _doubles(op: str, a: Datum, b: Datum, redo: list[Datum]) -> Datum:
    x, y = pc.cast(a, _DOUBLE, safe=False), pc.cast(b, _DOUBLE, safe=False)
    if op == "/":
        zero = pc.equal(y, 0.0)
        y = pc.if_else(zero, pa.scalar(None, _DOUBLE), y)
    result = _FLOAT_OPS[op](x, y)
    # Beyond the double range RabbitMQ's evaluation fails (badarith): per message.
    redo.append(pc.invert(pc.is_finite(result)))
    return result


def _longs(op: str, a: Datum, b: Datum, redo: list[Datum]) -> Datum:
    if op == "%":
        zero = pc.equal(b, 0)
        # Arrow's division truncates toward zero, so a - (a / b) * b has a's sign
        # (Erlang's rem); a divisor of -1 (MIN / -1 overflows) leaves no remainder.
        unit = pc.or_(zero, pc.equal(b, -1))
        safe = pc.if_else(unit, pa.scalar(1, _LONG), b)
        rem = pc.subtract(a, pc.multiply(pc.divide(a, safe), safe))
        return pc.if_else(zero, pa.scalar(None, _LONG), rem)
    if op == "/":
        return _doubles(op, a, b, redo)
    # Wrapping kernels; a row whose result may not fit a long is answered per message.
    near = _FLOAT_OPS[op](pc.cast(a, _DOUBLE, safe=False), pc.cast(b, _DOUBLE, safe=False))
    redo.append(pc.greater_equal(pc.abs(near), _LONG_SAFE))
    return {"+": pc.add, "-": pc.subtract, "*": pc.multiply}[op](a, b)


def arithmetic(op: str, a: Parts, b: Parts, redo: list[Datum]) -> Parts:
    """`a op b` of numbers (`%`: longs), absent for any other pair."""
    out: dict[str, list[Datum]] = {}
    for ka, da in a.items():
        for kb, db in b.items():
            if ka == kb == LONG:
                result = _longs(op, da, db, redo)
                out.setdefault(DOUBLE if op == "/" else LONG, []).append(result)
            elif op != "%" and ka in (LONG, DOUBLE) and kb in (LONG, DOUBLE):
                out.setdefault(DOUBLE, []).append(_doubles(op, da, db, redo))
    return {kind: first(data) for kind, data in out.items()}


def negate(a: Parts, redo: list[Datum]) -> Parts:
    """`-x` of a number; absent otherwise (the negation of the least long is no long)."""
    out: Parts = {}
    if LONG in a:
        redo.append(pc.equal(a[LONG], -(2**63)))
        out[LONG] = pc.negate(a[LONG])
    if DOUBLE in a:
        out[DOUBLE] = pc.negate(a[DOUBLE])
    return out


def amqp_value(parts: Parts, redo: list[Datum]) -> Parts:
    """A column's parts as AMQP values: a value of no kernel kind (OTHER) marks its row
    for the per-message evaluator and is absent here."""
    other = parts.get(OTHER)
    if other is None:
        return parts
    redo.append(pc.is_valid(other))
    return {k: d for k, d in parts.items() if k != OTHER}
