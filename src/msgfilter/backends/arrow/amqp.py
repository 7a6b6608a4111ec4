"""The `amqp` value model's lowering table (amqp-sql, RabbitMQ 4.2's rules: the values in
`amqp_values.py`). It extends the jms table where the rules are one: comparisons (through
the table's own `compare`), IS NULL, NOT, AND and OR over three-valued conditions; every
value and predicate is amqp's own.

A value stands as a condition only as a boolean (anything else is UNKNOWN, where jms
says FALSE). LIKE: a pattern RabbitMQ matches bytewise (no `_`, at most one `%`) is an
equality, prefix or suffix test on strings and binaries; any other runs RabbitMQ's regex
as RE2 on strings, anchored at both ends, `%` and `_` (one code point) never matching a
line feed, and one final line feed allowed (PCRE's `$`); a binary there is read per
message (its text must be UTF-8). IN is UNKNOWN only for an absent operand; its items
are any expressions, equal by Erlang's `==`. An integer literal beyond a long makes the
whole filter run row by row; rows whose values leave what the kernels hold are marked
and answered per message (`Evaluation.redo`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ...layout import BINARY, BOOLEAN, DOUBLE, LONG, STRING
from ...layout import resolve as resolve_name
from ...semantics import amqp
from ...syntax import nodes as n
from . import jms
from .amqp_values import amqp_split, amqp_value, arithmetic, compare, negate
from .columns import field_reader
from .compiler import Compiled, Compiler, Evaluation, Handler, Lowering, Unsupported
from .like import segment_regex
from .parts import NULL_BOOL, Datum, Parts, first, present

ValueFn = Callable[[Evaluation], Parts]
CondFn = Callable[[Evaluation], Datum]

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def condition(parts: Parts) -> Datum:
    """A value where a condition stands: only a boolean is TRUE or FALSE."""
    return parts.get(BOOLEAN, NULL_BOOL)


def _value_as_condition(c: Compiler, node: n.Expr) -> CondFn:
    value = c.value(node)
    return lambda ev: condition(value(ev))


def _literal(node: n.Expr) -> Parts:
    value: Any = getattr(node, "value", None)
    if isinstance(node, n.BoolLit):
        return {BOOLEAN: pa.scalar(value, pa.bool_())}
    if isinstance(node, n.StringLit):
        return {STRING: pa.scalar(value, pa.string())}
    if isinstance(node, n.BinaryLit):
        return {BINARY: pa.scalar(value, pa.large_binary())}
    if isinstance(node, n.ApproxLit):
        return {DOUBLE: pa.scalar(value, pa.float64())}
    if not _LONG_MIN <= value <= _LONG_MAX:
        raise Unsupported("an integer literal beyond a long (RabbitMQ's are unbounded)")
    return {LONG: pa.scalar(value, pa.int64())}


def _literal_value(c: Compiler, node: n.Expr) -> ValueFn:
    parts = _literal(node)
    return lambda ev: parts


def _ident_value(c: Compiler, node: n.Ident) -> ValueFn:
    if resolve_name(node.name, c.schema.names, c.layout).fallback_column is not None:
        raise Unsupported(f"{node.name} reads the layout's tags or keys column, which are "
                          "no AMQP application properties")
    read = c.read(node.name)
    return lambda ev: amqp_value(read(ev), ev.redo)


def _field_value(c: Compiler, node: n.Field) -> ValueFn:
    read = field_reader(node.name, c.schema, c.layout, amqp_split)
    default = amqp.DEFAULT_PRIORITY if node.name == "priority" else None
    if read is None:
        parts: Parts = {} if default is None else {LONG: pa.scalar(default, pa.int64())}
        return lambda ev: parts
    reader = read
    if default is None:
        return lambda ev: amqp_value(reader(ev.data), ev.redo)
    fill = pa.scalar(default, pa.int64())

    def with_default(ev: Evaluation) -> Parts:
        # A message without a priority has RabbitMQ's default.
        parts = dict(amqp_value(reader(ev.data), ev.redo))
        absent = pc.invert(present(parts))
        default_part = pc.if_else(absent, fill, pa.scalar(None, pa.int64()))
        long = parts.get(LONG)
        parts[LONG] = default_part if long is None else pc.coalesce(long, default_part)
        return parts

    return with_default


def _call_value(c: Compiler, node: n.Call) -> ValueFn:
    # UTC(), the grammar's only function: read once per evaluation (a batch is judged at
    # one instant; RabbitMQ reads the clock at each call, so two calls in one message
    # may already differ by a millisecond there).
    def now(ev: Evaluation) -> Parts:
        found: Parts | None = ev.once.get(n.Call)
        if found is None:
            found = ev.once[n.Call] = {LONG: pa.scalar(amqp.utc(), pa.int64())}
        return found

    return now


def _negate_value(c: Compiler, node: n.Negate) -> ValueFn:
    operand = c.value(node.operand)
    return lambda ev: negate(operand(ev), ev.redo)


def _arith_value(c: Compiler, node: n.Arith) -> ValueFn:
    left, right, op = c.value(node.left), c.value(node.right), node.op
    return lambda ev: arithmetic(op, left(ev), right(ev), ev.redo)


def _in_cond(c: Compiler, node: n.InList) -> CondFn:
    operand = c.value(node.operand)
    items = [c.value(item) for item in node.items]

    def run(ev: Evaluation) -> Datum:
        # UNKNOWN only for an absent operand; an item that is absent or unlike is no hit.
        x = operand(ev)
        if not x:
            return NULL_BOOL
        hits = [pc.fill_null(compare("=", x, item(ev)), False) for item in items]
        hit = functools.reduce(pc.or_, hits)
        return pc.if_else(present(x), hit, NULL_BOOL)

    return jms.negated(node.negated, run)


def _like_kernel(matcher: amqp.LikeMatcher) -> Callable[[Datum], Datum]:
    """The test of string (and, but for a regex, binary) data."""
    kind, head, tail = matcher.kind, matcher.head_text, matcher.tail_text
    if kind == "exact":
        return lambda d: pc.equal(d, pa.scalar(matcher.head, d.type) if _binary(d)
                                  else pa.scalar(head, d.type))
    if kind == "prefix":
        return lambda d: pc.starts_with(d, head)
    if kind == "suffix":
        return lambda d: pc.ends_with(d, tail)
    if kind == "both":

        def both(d: Datum) -> Datum:
            # Head and tail may not overlap: counted in code points, or bytes.
            length = pc.binary_length(d) if _binary(d) else pc.utf8_length(d)
            need = len(matcher.head) + len(matcher.tail) if _binary(d) else len(head) + len(tail)
            fits = pc.greater_equal(length, need)
            return pc.and_(fits, pc.and_(pc.starts_with(d, head), pc.ends_with(d, tail)))

        return both
    body = ".*".join(segment_regex(segment) for segment in matcher.segments)
    # PCRE's `$` also matches before a final line feed; `.` never matches one.
    regex = f"\\A{body}\\n?\\z"
    return lambda d: pc.match_substring_regex(d, regex)


def _binary(d: Datum) -> bool:
    return bool(pa.types.is_large_binary(d.type) or pa.types.is_binary(d.type))


def _like_cond(c: Compiler, node: n.Like) -> CondFn:
    matcher = amqp.compile_like(node.pattern, node.escape)
    literal = node.operand
    if isinstance(literal, n.StringLit | n.BinaryLit | n.ExactLit | n.ApproxLit | n.BoolLit):
        found = matcher(literal.value)
        answer = NULL_BOOL if found is None else pa.scalar(found != node.negated)
        return lambda ev: answer
    operand, test = c.value(node.operand), _like_kernel(matcher)

    def run(ev: Evaluation) -> Datum:
        # Only strings and binaries match; any other value is UNKNOWN.
        x = operand(ev)
        results = []
        if STRING in x:
            results.append(test(x[STRING]))
        if BINARY in x:
            data = x[BINARY]
            if matcher.kind == "regex":
                # The binary must be UTF-8 text: the per-message evaluator reads it.
                ev.redo.append(pc.is_valid(data))
            else:
                results.append(test(data))
        return first(results) if results else NULL_BOOL

    return jms.negated(node.negated, run)


def _combine(conjunction: bool, results: Sequence[Datum]) -> Datum:
    kernel = pc.and_kleene if conjunction else pc.or_kleene
    return functools.reduce(kernel, results)


def _value(handler: Callable[[Compiler, Any], ValueFn]) -> tuple[Handler, Handler]:
    return handler, _value_as_condition


_AS_VALUE = jms.HANDLERS[n.Compare][0]

#: Node class -> (value handler, condition handler): jms's where the rule is one.
HANDLERS: dict[type[n.Node], tuple[Handler, Handler]] = {
    **{kind: jms.HANDLERS[kind] for kind in (n.Compare, n.IsNull, n.Not, n.And, n.Or)},
    **dict.fromkeys(
        (n.StringLit, n.ExactLit, n.ApproxLit, n.BoolLit, n.BinaryLit), _value(_literal_value)
    ),
    n.Ident: _value(_ident_value),
    n.Field: _value(_field_value),
    n.Call: _value(_call_value),
    n.Negate: _value(_negate_value),
    n.Arith: _value(_arith_value),
    n.InList: (_AS_VALUE, _in_cond),
    n.Like: (_AS_VALUE, _like_cond),
}


def _finish(cond: Compiled) -> Callable[[Evaluation], Datum]:
    return cond


#: The kernels cover every node kind amqp-sql builds (`dialects.node_kinds`).
LOWERING = Lowering(HANDLERS, {}, compare, _combine, finish=_finish, split=amqp_split)
