"""The RocketMQ value model's lowering table.

RocketMQ carries properties as strings and converts a string to the type of the literal it
meets (semantics/rocketmq.py). A failed conversion throws in the broker and aborts the
evaluation of that message, unless AND / OR had already decided (left to right). So every
compiled condition and value here carries, beside its result, an `error` datum: TRUE in
the rows where evaluating it threw (None: it never throws). The plan's answer is UNKNOWN
in those rows, as the per-message backend's `evaluate` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from ...layout import BOOLEAN, DOUBLE, LONG, NUMERIC, OTHER, STRING
from ...syntax import nodes as n
from .coercion import double_order_key, long_bound, or_errors, to_boolean, to_double, to_long
from .compiler import Compiled, Compiler, Evaluation, Handler, Lowering, between
from .like import in_test
from .parts import FALSE, NULL_BOOL, TRUE, Datum, Parts, as_condition, first, merge, present
from .parts import same_strings as _same_strings
from .values import KERNELS, java_text, literal_parts, negate
from .values import to_double as _widen

RCond: TypeAlias = tuple[Datum, Datum | None]
RValue: TypeAlias = tuple[Parts, Datum | None]
RCondFn: TypeAlias = Callable[[Evaluation], RCond]
RValueFn: TypeAlias = Callable[[Evaluation], RValue]


def _truth(datum: Datum, value: bool) -> Datum:
    """TRUE where `datum` is `value`, FALSE where it is the other value or null."""
    return pc.fill_null(pc.equal(datum, pa.scalar(value, pa.bool_())), False)


def _pair(op: str, ka: str, a: Datum, kb: str, b: Datum) -> RCond | None:
    """`a op b` for one pair of parts under RocketMQ's coercion; None: unlike types."""
    kernel = KERNELS[op]
    # A NULL on either side decides before any conversion: no throw there.
    both = pc.and_(pc.is_valid(a), pc.is_valid(b))
    errors: Datum | None = None
    if ka == STRING and kb == STRING:
        if op in ("=", "<>"):
            return kernel(*_same_strings(a, b)), None
        # Two strings order as numbers, or the broker throws.
        (a, ea), (b, eb) = to_double(a), to_double(b)
        ka = kb = DOUBLE
        errors = pc.or_(ea, eb)
    elif ka == STRING and kb in (LONG, DOUBLE, BOOLEAN):
        if kb == LONG:
            a, errors = to_long(a, long_bound(b))
        elif kb == DOUBLE:
            a, errors = to_double(a)
        else:
            a = to_boolean(a)
        ka = kb
    elif kb == STRING and ka in (LONG, DOUBLE):
        b, errors = to_long(b, long_bound(a)) if ka == LONG else to_double(b)
        kb = ka
    elif ka == BOOLEAN and kb == STRING:
        # The broker casts the Boolean to a String here: ClassCastException.
        return NULL_BOOL, both
    if errors is not None:
        errors = pc.and_(both, errors)
    if ka in NUMERIC and kb in NUMERIC:
        if ka == kb == LONG:
            return kernel(a, b), errors
        # Doubles compare by Double.compareTo (the values are equal only bit for bit).
        return kernel(double_order_key(_widen(a)), double_order_key(_widen(b))), errors
    if ka == kb == BOOLEAN:
        return kernel(a, b), errors
    return None


def rmq_compare(op: str, a: Parts, b: Parts) -> RCond:
    """RocketMQ's ComparisonExpression: coercion, asymmetric NULL for `=` / `<>`
    (NULL on the left UNKNOWN, on the right FALSE, both NULL equal), NULL in an
    ordering UNKNOWN, unlike types FALSE for `=` (TRUE for `<>`) and a throw for an
    ordering."""
    results: list[Datum] = []
    errors: list[Datum | None] = []
    unlike = False
    for ka, da in a.items():
        for kb, db in b.items():
            pair = _pair(op, ka, da, kb, db)
            if pair is None:
                unlike = True
            else:
                results.append(pair[0])
                errors.append(pair[1])
    left, right = present(a), present(b)
    if op in ("=", "<>"):
        equal = op == "="
        # Rows no pair decided: unlike types (eq FALSE) or a NULL operand.
        results.append(
            pc.if_else(
                left,
                pa.scalar(not equal, pa.bool_()),
                pc.if_else(right, NULL_BOOL, pa.scalar(equal, pa.bool_())),
            )
        )
    elif unlike:
        # An ordering of unlike types throws.
        undecided = pc.is_null(first(results)) if results else TRUE
        errors.append(pc.and_(pc.and_(left, right), undecided))
    if not results:
        results.append(NULL_BOOL)
    return first(results), or_errors(*errors)


def _as_property(parts: Parts) -> Parts:
    """A typed column as RocketMQ sees it: its Java text (a value without one stays)."""
    out: list[Parts] = []
    for kind, datum in parts.items():
        if kind == OTHER:
            out.append({OTHER: datum})
        else:
            out.append({STRING: java_text(kind, datum)})
    return merge(out)


def _compare(op: str, a: RValue, b: RValue) -> RCond:
    (left, ea), (right, eb) = a, b
    result, error = rmq_compare(op, left, right)
    return result, or_errors(ea, eb, error)


def _combine(conjunction: bool, operands: Sequence[RCond]) -> RCond:
    # Left to right, as the broker: an operand is evaluated (and may throw) only while
    # no earlier one has decided, i.e. none was FALSE (AND) or TRUE (OR); a throw in an
    # operand after that does not count.
    combine = pc.and_kleene if conjunction else pc.or_kleene
    deciding = not conjunction
    result, error = operands[0]
    for value, more in operands[1:]:
        if more is not None:
            undecided = pc.invert(_truth(result, deciding))
            error = or_errors(error, pc.and_(undecided, more))
        result = combine(result, value)
    return result, error


def _finish(cond: Compiled) -> Callable[[Evaluation], Datum]:
    def run(ev: Evaluation) -> Datum:
        result, error = cond(ev)
        if error is None:
            return result
        return pc.if_else(error, NULL_BOOL, result)

    return run


def _literal(c: Compiler, node: n.Expr) -> RValueFn:
    parts = literal_parts(node)
    return lambda ev: (parts, None)


def _ident(c: Compiler, node: n.Ident) -> RValueFn:
    reader = c.read(node.name)
    return lambda ev: (_as_property(reader(ev)), None)


def _negate(c: Compiler, node: n.Negate) -> RValueFn:
    operand = c.value(node.operand)

    def run(ev: Evaluation) -> RValue:
        parts, error = operand(ev)
        return negate(parts), error

    return run


def _value_cond(c: Compiler, node: n.Expr) -> RCondFn:
    # A bare value as a condition: a boolean is itself, NULL UNKNOWN, else FALSE (every
    # property is a string, so a bare property is never TRUE).
    value = c.value(node)

    def run(ev: Evaluation) -> RCond:
        parts, error = value(ev)
        return as_condition(parts), error

    return run


def _cond_value(c: Compiler, node: n.Expr) -> RValueFn:
    cond = c.cond(node)

    def run(ev: Evaluation) -> RValue:
        result, error = cond(ev)
        return {BOOLEAN: result}, error

    return run


def _compare_cond(c: Compiler, node: n.Compare) -> RCondFn:
    left, right, op = c.value(node.left), c.value(node.right), node.op
    return lambda ev: _compare(op, left(ev), right(ev))


def _in(c: Compiler, node: n.In) -> RCondFn:
    # InExpression: NULL and non-strings are UNKNOWN for IN and NOT IN alike.
    operand, test = c.value(node.operand), in_test(node.items)

    def run(ev: Evaluation) -> RCond:
        parts, error = operand(ev)
        string = parts.get(STRING)
        if string is None:
            return NULL_BOOL, error
        hit = test(string)
        return (pc.invert(hit) if node.negated else hit), error

    return run


_STRING_KERNELS: dict[str, Callable[[Datum, str], Datum]] = {
    "CONTAINS": lambda s, text: pc.match_substring(s, text),
    "STARTSWITH": lambda s, text: pc.starts_with(s, text),
    "ENDSWITH": lambda s, text: pc.ends_with(s, text),
}


def _string_test(c: Compiler, node: n.StringTest) -> RCondFn:
    # FALSE for NULL, non-strings and an empty search string, in the NOT forms too.
    operand, kernel = c.value(node.operand), _STRING_KERNELS[node.op]
    text, negated = node.value, node.negated

    def run(ev: Evaluation) -> RCond:
        parts, error = operand(ev)
        string = parts.get(STRING)
        if string is None or not text:
            return FALSE, error
        hit = kernel(string, text)
        if negated:
            hit = pc.invert(hit)
        return pc.fill_null(hit, False), error

    return run


def _is_null(c: Compiler, node: n.IsNull) -> RCondFn:
    operand = c.value(node.operand)

    def run(ev: Evaluation) -> RCond:
        parts, error = operand(ev)
        found = present(parts)
        return (found if node.negated else pc.invert(found)), error

    return run


def _not(c: Compiler, node: n.Not) -> RCondFn:
    operand = c.cond(node.operand)

    def run(ev: Evaluation) -> RCond:
        result, error = operand(ev)
        return pc.invert(result), error

    return run


def _and(c: Compiler, node: n.And) -> RCondFn:
    operands = [c.cond(o) for o in node.operands]
    return lambda ev: _combine(True, [o(ev) for o in operands])


def _or(c: Compiler, node: n.Or) -> RCondFn:
    operands = [c.cond(o) for o in node.operands]
    return lambda ev: _combine(False, [o(ev) for o in operands])


#: Node class -> (value handler, condition handler).
HANDLERS: dict[type[n.Node], tuple[Handler, Handler]] = {
    n.StringLit: (_literal, _value_cond),
    n.ExactLit: (_literal, _value_cond),
    n.ApproxLit: (_literal, _value_cond),
    n.BoolLit: (_literal, _value_cond),
    n.NullLit: (_literal, _value_cond),
    n.Ident: (_ident, _value_cond),
    n.Negate: (_negate, _value_cond),
    n.Compare: (_cond_value, _compare_cond),
    n.Between: (_cond_value, between),
    n.In: (_cond_value, _in),
    n.StringTest: (_cond_value, _string_test),
    n.IsNull: (_cond_value, _is_null),
    n.Not: (_cond_value, _not),
    n.And: (_cond_value, _and),
    n.Or: (_cond_value, _or),
}

#: The kernels cover every node kind the rocketmq grammar builds (`dialects.node_kinds`).
LOWERING = Lowering(HANDLERS, {}, _compare, _combine, _finish)
