"""The rocketmq value model's lowering table: RocketMQ's SQL92 filter (semantics/rocketmq.py,
docs/rocketmq.md) as Spark expressions, mirroring the Arrow backend's kernels
(backends/arrow/rocketmq.py).

Every property is a string, converted to the type of the literal it meets by Java's
valueOf rules (rocketmq_values.py). A conversion that throws in the broker aborts that
message's evaluation: each lowered value carries an `error` Column (throws.py), and the
answer is UNKNOWN ("not delivered") where it is TRUE, unless AND / OR had decided, left
to right, before reaching the operand that threw.

What runs in Python: only the text of a double column where text itself is compared
(CONTAINS & co., or `=` against a string column): Java's Double.toString, an Arrow UDF.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from functools import reduce

from pyspark.sql import Column
from pyspark.sql import functions as F

from ...layout import BOOLEAN, DOUBLE, LONG, NULL, STRING
from ...semantics import rocketmq as rq
from ...semantics import values as v
from ...syntax import nodes as n
from . import rocketmq_values as rv
from .compiler import LITERALS, PARENT, Handler, Lowering, Table
from .errors import Fallback
from .fallback import double_text_udf
from .throws import combine, or_errors
from .values import V, as_condition, const, known_truth, null, null_bool, truth

_CMP: dict[str, Callable[[Column, Column], Column]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
_SEMANTICS: dict[str, Callable[[object, object], bool | None]] = {
    "=": rq.eq, "<>": rq.ne, "<": rq.lt, "<=": rq.le, ">": rq.gt, ">=": rq.ge,
}
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

#: A double column's values -> their Java text (an Arrow UDF: a part run in Python).
TextOf = Callable[[V], V]


def _present(x: V) -> Column:
    if x.kind == NULL:
        return F.lit(False)
    if x.is_const:
        return F.lit(x.const is not None)
    return x.col.isNotNull()


def _thrown() -> V:
    """A comparison of constants that throws in the broker."""
    return V(null_bool(), BOOLEAN, error=F.lit(True))


def _number(op: str, text: V, number: V) -> tuple[Column, Column | None]:
    """`text op number`, the text converted to the number's type (a constant)."""
    # A conversion's error is FALSE where its text is NULL: only the number's presence
    # is added (nothing for a constant).
    if number.kind == LONG:
        bound = rv.long_bound(number.const) if number.is_const else rv.LONG_MAX
        value, error = rv.to_long(text, bound)
        return _CMP[op](value, number.col), _present(number) & error
    converted, thrown = rv.to_double(text)
    result = rv.compare_doubles(op, converted, number.col, number.const)
    return result, None if thrown is None else _present(number) & thrown


def _texts(op: str, a: V, b: V, text_of: TextOf) -> tuple[Column, Column | None]:
    """Two properties: `=` / `<>` by text, an ordering by their doubles (or a throw)."""
    if op not in ("=", "<>"):
        (x, ex), (y, ey) = rv.to_double(a), rv.to_double(b)
        thrown = or_errors(ex, ey)
        both = _present(a) & _present(b)
        return rv.compare_doubles(op, x, y), None if thrown is None else both & thrown
    if a.kind == b.kind == STRING:
        return _CMP[op](a.col, b.col), None
    if a.kind == b.kind == rv.DOUBLE_TEXT:
        # One text per double (every NaN is "NaN"): equal texts are equal by compareTo.
        return rv.compare_doubles(op, a.col, b.col), None
    number, text = (a, b) if a.kind == rv.DOUBLE_TEXT else (b, a)
    if text.is_const:
        equal = rv.double_text_equals(number, text.const)
        return (equal if op == "=" else ~equal), None
    return _CMP[op](text_of(a).col if a is number else a.col,
                    text_of(b).col if b is number else b.col), None


def _pair(op: str, a: V, b: V, text_of: TextOf) -> tuple[Column, Column | None] | None:
    """`a op b` where both are present, and where that throws (TRUE only where both are
    present); None: unlike types. The value is NULL where either is NULL (`compare`
    relies on it), as Spark's operators on the operands' columns give."""
    ka, kb = a.kind, b.kind
    if ka in rv.TEXTS and kb in rv.TEXTS:
        return _texts(op, a, b, text_of)
    if ka in rv.TEXTS and kb in (LONG, DOUBLE):
        return _number(op, a, b)
    if kb in rv.TEXTS and ka in (LONG, DOUBLE):
        return _number(_FLIP[op], b, a)
    if ka in rv.TEXTS and kb == BOOLEAN:
        return _CMP[op](rv.to_boolean(a), b.col), None
    if ka == BOOLEAN and kb in rv.TEXTS:
        # The broker casts the Boolean to a String here: ClassCastException.
        return null_bool(), _present(a) & _present(b)
    if ka == kb == BOOLEAN or ka == kb == LONG:
        return _CMP[op](a.col, b.col), None
    if ka in (LONG, DOUBLE) and kb in (LONG, DOUBLE):
        return rv.compare_doubles(op, a.col.cast("double"), b.col.cast("double")), None
    return None


def compare(op: str, a: V, b: V, text_of: TextOf) -> V:
    """RocketMQ's ComparisonExpression: a NULL decides before any conversion (for `=` /
    `<>` asymmetrically: NULL on the left UNKNOWN, on the right FALSE, both NULL equal;
    an ordering UNKNOWN), unlike types are FALSE for `=` (TRUE for `<>`) and throw in an
    ordering."""
    errors = or_errors(a.error, b.error)
    if a.is_const and b.is_const:
        try:
            found = truth(_SEMANTICS[op](a.const, b.const))
        except rq.Undelivered:
            found = _thrown()
        if errors is None:
            return found
        return V(found.col, BOOLEAN, error=or_errors(errors, found.error))
    left, right = _present(a), _present(b)
    both = left & right
    pair = None if NULL in (a.kind, b.kind) else _pair(op, a, b, text_of)
    thrown: Column | None = None
    if op in ("=", "<>"):
        equal = op == "="
        if pair is not None and b.never_null:
            answer = pair[0]  # NULL where `a` is: UNKNOWN
        elif pair is not None and a.never_null:
            answer = F.when(right, pair[0]).otherwise(F.lit(not equal))
        else:
            result = pair[0] if pair is not None else F.lit(not equal)
            answer = (
                F.when(both, result).when(left, F.lit(not equal))
                .when(right, null_bool()).otherwise(F.lit(equal))
            )
        if pair is not None:
            thrown = pair[1]
    elif pair is None:
        answer = null_bool()
        thrown = None if NULL in (a.kind, b.kind) else both
    else:
        answer = pair[0]  # NULL where either is: UNKNOWN
        thrown = pair[1]
    return V(answer, BOOLEAN, error=or_errors(errors, thrown))


def _no_text(x: V) -> V:
    raise Fallback("a double column's text (Double.toString) is compared")


def _text_of(lw: Lowering, node: n.Expr) -> TextOf:
    def text(x: V) -> V:
        lw.udf_parts.append(
            (lw.source(node), "a double column written as text (Java's Double.toString)")
        )
        return V(double_text_udf()(x.col), STRING, error=x.error)

    return text


# -- handlers ---------------------------------------------------------------------------------


def _literal(lw: Lowering, node: n.Expr, kids: list[V]) -> V:
    if isinstance(node, n.NullLit):
        return null(NULL)
    assert isinstance(node, n.StringLit | n.ExactLit | n.ApproxLit | n.BoolLit)
    return const(node.value)


def _ident(lw: Lowering, node: n.Ident, kids: list[V]) -> V:
    found = lw.idents.get(node.name)
    if found is None:
        found = lw.idents[node.name] = lw.schema.resolve(node.name, rv.property_typed)
    return found


def _negate(lw: Lowering, node: n.Negate, kids: list[V]) -> V:
    x = kids[0]
    # A property is a string: negated, NULL.
    found = const(rq.negate(x.const)) if x.is_const else null(NULL)
    return found if x.error is None else V(found.col, found.kind, found.const, error=x.error)


def _compare(lw: Lowering, node: n.Compare, kids: list[V]) -> V:
    return compare(node.op, kids[0], kids[1], _text_of(lw, node))


def _in(lw: Lowering, node: n.In, kids: list[V]) -> V:
    # InExpression: NULL and non-strings are UNKNOWN for IN and NOT IN alike.
    x = kids[0]
    if x.is_const:
        found = truth(rq.in_list(x.const, frozenset(node.items), node.negated))
    elif x.kind == STRING:
        hit = x.col.isin(*sorted(node.items))
        found = V(~hit if node.negated else hit, BOOLEAN)
    elif x.kind == rv.DOUBLE_TEXT:
        hit = reduce(operator.or_, (rv.double_text_equals(x, item) for item in sorted(node.items)))
        found = V(~hit if node.negated else hit, BOOLEAN)
    else:
        found = truth(None)
    return found if x.error is None else V(found.col, BOOLEAN, error=x.error)


_STRING_TESTS: dict[str, Callable[[Column, str], Column]] = {
    "CONTAINS": lambda s, text: s.contains(text),
    "STARTSWITH": lambda s, text: s.startswith(text),
    "ENDSWITH": lambda s, text: s.endswith(text),
}


def _string_test(lw: Lowering, node: n.StringTest, kids: list[V]) -> V:
    # FALSE for NULL, non-strings and an empty search string, in the NOT forms too.
    x = kids[0]
    if x.is_const:
        found = truth(rq.string_test(node.op, node.negated, x.const, node.value))
    elif x.kind not in rv.TEXTS or not node.value:
        found = truth(False)
    else:
        text = _text_of(lw, node)(x) if x.kind == rv.DOUBLE_TEXT else x
        hit = _STRING_TESTS[node.op](text.col, node.value)
        found = V(F.coalesce(~hit if node.negated else hit, F.lit(False)), BOOLEAN)
    return found if x.error is None else V(found.col, BOOLEAN, error=x.error)


def _not(lw: Lowering, node: n.Not, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const and x.error is None:
        value = v.as_condition(x.const)
        return truth(None if value is None else not value)
    return V(~as_condition(x), BOOLEAN, error=x.error, absorbed=x.absorbed)


def _combine(conjunction: bool, kids: Sequence[V]) -> V:
    values = list(kids)
    if all(x.is_const and x.error is None for x in values):
        truths = [v.as_condition(x.const) for x in values]
        return known_truth(conjunction, truths)
    result, error = combine(conjunction, values, as_condition)
    return V(result, BOOLEAN, error=error, absorbed=True)


#: Node class -> handler: the parent table (AND, OR, BETWEEN, IS NULL) and the RocketMQ
#: model's own.
HANDLERS: dict[type[n.Node], Handler] = {
    **PARENT,
    **dict.fromkeys(LITERALS, _literal),
    n.Ident: _ident,
    n.Negate: _negate,
    n.Compare: _compare,
    n.In: _in,
    n.StringTest: _string_test,
    n.Not: _not,
}

def _table_compare(op: str, a: V, b: V) -> V:
    # BETWEEN's orderings compare doubles, never a double column's text.
    return compare(op, a, b, _no_text)


#: Every node kind the rocketmq grammar builds has a native form (`dialects.node_kinds`).
TABLE = Table(HANDLERS, {}, _table_compare, _combine)
