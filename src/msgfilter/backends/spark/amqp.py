"""The `amqp` value model's lowering table (amqp-sql, RabbitMQ 4.2's rules), native where a
Column says the rule exactly, the fallback UDF elsewhere.

Native: comparisons of application properties (columns and the properties map) and
literals, by the operand kinds known while lowering: two strings compare as Spark's
UTF-8 bytes (RabbitMQ's order), two numbers by value (a long column against a double
literal through the literal's floor or ceiling, so exactly), unlike kinds are FALSE
(`<>` TRUE), any NULL UNKNOWN; header and properties fields from the columns of their
qualified names (`header.priority`, `properties.subject`: msgfilter.layout; a missing
priority is 4); IN lists, LIKE patterns (those RabbitMQ matches bytewise, no `_` and at
most one `%`, by string tests; the others by `rlike` with RabbitMQ's regular expression
in Java's syntax), IS NULL, NOT, AND, OR, and arithmetic exactly as RabbitMQ's (amqp_arith.py: a
double overflow fails the evaluation, as RabbitMQ's `badarith`, through throws.py). A
double column's NaN and infinities read as NULL, as the per-message evaluator reads them.
Everything else falls back: binaries, `UTC()`, integers beyond 10**38, and columns of
other types."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql import types as T

from ... import layout as tables
from ...layout import BOOLEAN, DOUBLE, KIND_NAMES, LONG, NULL, NUMERIC, STRING
from ...message import amqp_field_name
from ...semantics import amqp
from ...syntax import nodes as n
from ..arrow.like import segment_regex
from . import amqp_arith
from .compiler import PARENT, Handler, Lowering, Table
from .errors import Fallback
from .schema import typed
from .throws import combine, or_errors
from .values import V, const, null, null_bool, truth, unless_null

#: Each integral type's least and greatest values (a long's: any long).
_INTEGRAL: dict[type[T.DataType], tuple[int, int] | None] = {
    T.ByteType: (-(2**7), 2**7 - 1), T.ShortType: (-(2**15), 2**15 - 1),
    T.IntegerType: (-(2**31), 2**31 - 1), T.LongType: None,
}
_OPS = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def typed_amqp(col: Column, dtype: T.DataType) -> V:
    """A column's values as RabbitMQ holds them, or Fallback for a type it has no native
    rule for."""
    if type(dtype) in _INTEGRAL:
        return V(col.cast(T.LongType()), LONG, limits=_INTEGRAL[type(dtype)])
    if isinstance(dtype, T.FloatType | T.DoubleType):
        wide = col.cast(T.DoubleType())
        finite = ~F.isnan(wide) & (F.abs(wide) != F.lit(math.inf))
        return V(F.when(finite, wide), DOUBLE)
    if isinstance(dtype, T.StringType | T.BooleanType | T.NullType):
        return typed(col, dtype)
    raise Fallback(f"a {dtype.simpleString()} value has no native amqp-sql rule")


def condition(x: V) -> Column:
    """A value where a condition stands: only a boolean is TRUE or FALSE."""
    if x.is_const:
        return truth(amqp.condition(x.const)).col
    if x.kind == BOOLEAN:
        return x.col
    return null_bool()


def _combine(conjunction: bool, kids: Sequence[V]) -> V:
    if any(x.error is not None for x in kids):
        # An operand that can fail (badarith) counts only where no earlier one decided:
        # RabbitMQ evaluates AND and OR left to right, stopping when they are decided.
        result, error = combine(conjunction, kids, condition)
        return V(result, BOOLEAN, error=error, absorbed=True)
    # Spark's AND and OR are Kleene's, as RabbitMQ's are on TRUE, FALSE and UNKNOWN.
    join = operator.and_ if conjunction else operator.or_
    return V(reduce(join, [condition(x) for x in kids]), BOOLEAN)


def _failing(x: V, *operands: V) -> V:
    """`x`, failing where any of `operands` fails (RabbitMQ evaluates them all)."""
    error = or_errors(*(o.error for o in operands))
    return x if error is None else V(x.col, x.kind, error=or_errors(error, x.error))


def _literal(lw: Lowering, node: n.Expr, kids: list[V]) -> V:
    return amqp_arith.constant(node.value)  # type: ignore[union-attr]


def _binary(lw: Lowering, node: n.BinaryLit, kids: list[V]) -> V:
    raise Fallback("binaries have no native amqp-sql rule")


def _ident(lw: Lowering, node: n.Ident, kids: list[V]) -> V:
    schema = lw.schema
    source = tables.resolve(node.name, schema.names, schema.layout)
    if source.fallback_column is not None:
        # The tag and keys columns are no AMQP application properties.
        raise Fallback(f"{node.name} reads the layout's tags or keys column")
    return schema.resolve(node.name, typed_amqp)


def _field(lw: Lowering, node: n.Field, kids: list[V]) -> V:
    name = node.name
    found = lw.schema.resolve_field(name, typed_amqp)
    qualified = amqp_field_name(name)
    if name != "priority":
        if found is None:
            lw.schema.bindings[qualified] = "nothing: always NULL"
            return null(NULL)
        return found
    # A message without a priority has RabbitMQ's default.
    if found is None:
        lw.schema.bindings[qualified] = f"nothing: always {amqp.DEFAULT_PRIORITY}"
        return const(amqp.DEFAULT_PRIORITY)
    if found.kind == NULL:
        return const(amqp.DEFAULT_PRIORITY)
    if found.kind != LONG:
        raise Fallback(f"{qualified} is {KIND_NAMES[found.kind]} where present, a long where "
                       "absent (RabbitMQ's default)")
    low, high = found.limits or (-(2**63), 2**63 - 1)
    default = amqp.DEFAULT_PRIORITY
    return V(F.coalesce(found.col, F.lit(default).cast(T.LongType())), LONG,
             limits=(min(low, default), max(high, default)))


def _negate(lw: Lowering, node: n.Negate, kids: list[V]) -> V:
    return amqp_arith.negate(kids[0])


def _arith(lw: Lowering, node: n.Arith, kids: list[V]) -> V:
    return amqp_arith.arith(node.op, kids[0], kids[1])


def _long_vs_double(op: str, column: V, d: float) -> V:
    """`column op d` for a long column and a finite double literal, exactly."""
    if d >= 2.0**63 or d < -(2.0**63):
        below = d > 0  # every long is below d (or above it)
        answer = {"=": False, "<>": True, "<": below, "<=": below, ">": not below,
                  ">=": not below}[op]
        return V(unless_null(F.lit(answer), column), BOOLEAN)
    floor, ceil = math.floor(d), math.ceil(d)
    if op in ("=", "<>"):
        if floor != ceil:
            return V(unless_null(F.lit(op == "<>"), column), BOOLEAN)
        return V(_OPS[op](column.col, F.lit(floor).cast(T.LongType())), BOOLEAN)
    bound = {"<": ceil, "<=": floor, ">": floor, ">=": ceil}[op]
    return V(_OPS[op](column.col, F.lit(bound).cast(T.LongType())), BOOLEAN)


def compare(op: str, a: V, b: V) -> V:
    return _failing(_compare_values(op, a, b), a, b)


def _compare_values(op: str, a: V, b: V) -> V:
    if a.is_const and b.is_const:
        return truth(amqp.compare(op, a.const, b.const))
    if NULL in (a.kind, b.kind) or (a.is_const and a.const is None) or (
        b.is_const and b.const is None
    ):
        return truth(None)
    if a.kind == b.kind and a.kind in (STRING, LONG, DOUBLE):
        return V(_OPS[op](a.col, b.col), BOOLEAN)
    if a.kind in NUMERIC and b.kind in NUMERIC:
        if a.is_const:
            return _compare_values(_FLIP[op], b, a)
        if b.is_const and a.kind == LONG:
            return _long_vs_double(op, a, float(b.const))
        if b.is_const and abs(b.const) <= 2**53:
            return V(_OPS[op](a.col, F.lit(float(b.const))), BOOLEAN)
        raise Fallback("a long compared with a double is exact only against a literal")
    if a.kind == BOOLEAN and b.kind == BOOLEAN and op in ("=", "<>"):
        return V(_OPS[op](a.col, b.col), BOOLEAN)
    # Unlike kinds (or booleans ordered): `=` and ordering FALSE, `<>` TRUE.
    return V(unless_null(F.lit(op == "<>"), a, b), BOOLEAN)


def _compare(lw: Lowering, node: n.Compare, kids: list[V]) -> V:
    return compare(node.op, kids[0], kids[1])


def _in_list(lw: Lowering, node: n.InList, kids: list[V]) -> V:
    x, *items = kids
    if x.kind == NULL or (x.is_const and x.const is None):
        return _failing(truth(None), x)
    hits = [_compare_values("=", x, item) for item in items]
    hit = reduce(operator.or_, [F.coalesce(h.col, F.lit(False)) for h in hits])
    found = unless_null(hit, x)
    return V(~found if node.negated else found, BOOLEAN, error=x.error)


def _like(lw: Lowering, node: n.Like, kids: list[V]) -> V:
    x = kids[0]
    matcher = amqp.compile_like(node.pattern, node.escape)
    if x.is_const:
        found = matcher(x.const)
        return truth(None if found is None else found != node.negated)
    if x.kind != STRING:
        return _failing(truth(None), x)
    col = x.col
    if matcher.kind == "exact":
        hit = col == F.lit(matcher.head_text)
    elif matcher.kind == "prefix":
        hit = col.startswith(matcher.head_text)
    elif matcher.kind == "suffix":
        hit = col.endswith(matcher.tail_text)
    elif matcher.kind == "both":
        need = len(matcher.head_text) + len(matcher.tail_text)
        hit = (F.length(col) >= need) & col.startswith(matcher.head_text) & col.endswith(
            matcher.tail_text
        )
    else:
        hit = col.rlike(like_regex(matcher))
    return V(~hit if node.negated else hit, BOOLEAN, error=x.error)


def like_regex(matcher: amqp.LikeMatcher) -> str:
    r"""RabbitMQ's regular expression for a LIKE pattern (PCRE, `^...$`) as Java's, which
    `rlike` runs on the whole text: `%` is `.*` and `_` is `.` (one code point), where
    `.` never matches a line feed and only a line feed ((?d): Java's `.` also stops at
    `\r`, `\u0085`, `\u2028`, `\u2029`), and PCRE's `$` also matches before a final
    line feed; each literal character is spelled `\x{...}` or is an ASCII letter or
    digit, never syntax (the Arrow backend's `segment_regex`)."""
    body = ".*".join(segment_regex(segment) for segment in matcher.segments)
    return f"(?d)\\A{body}\\n?\\z"


def _not(lw: Lowering, node: n.Not, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const:
        return truth(amqp.not3(x.const))
    return V(~condition(x), BOOLEAN, error=x.error, absorbed=x.absorbed)


HANDLERS: dict[type[n.Node], Handler] = {
    **PARENT,
    **dict.fromkeys((n.StringLit, n.ExactLit, n.ApproxLit, n.BoolLit), _literal),
    n.BinaryLit: _binary,
    n.Ident: _ident,
    n.Field: _field,
    n.Negate: _negate,
    n.Arith: _arith,
    n.Compare: _compare,
    n.InList: _in_list,
    n.Like: _like,
    n.Not: _not,
}
del HANDLERS[n.Between]

#: Nodes without a native form: the whole filter runs in the per-message Arrow UDF.
UNSUPPORTED: dict[type[n.Node], str] = {
    n.Call: "UTC() is read per message",
}

TABLE = Table(HANDLERS, UNSUPPORTED, compare, _combine, condition)
