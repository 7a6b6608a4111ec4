"""The activemq value model's lowering table: ActiveMQ Classic 5.17's evaluation
(`semantics.activemq`, activemq-selectors.md) with each value's Java class known for the
whole frame (activemq_values.py), its exceptions as error Columns (throws.py), and its
evaluation order: operands left to right, arithmetic and `< <= > >=` skip their right
operand where the left one is NULL, `=` evaluates both, AND / OR stop once decided.

What stays in Python (the whole filter then runs in the per-message Arrow UDF):
ActiveMQ's functions (REGEX, INLIST, SPLIT, MAKELIST, REPLACE: Java regular expressions
and lists), a string property read as a number under `convert_string_expressions:`
(Java's valueOf rules), a float written as text (Float.toString) and identifiers whose
Spark type has no Java class (timestamps, decimals, arrays, ...)."""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import functions as F
from pyspark.sql import types as T

from ...java.types import Double
from ...layout import BOOLEAN, NULL, OTHER, STRING
from ...selector import CONVERT_PREFIX
from ...semantics import activemq as amq
from ...semantics.activemq_like import activemq_like_regex, amq_like, regex_segments
from ...syntax import nodes as n
from ..between import between_rule
from . import activemq_values as jv
from .compiler import LITERALS, PARENT, Handler, Lowering, Table
from .errors import Fallback
from .fallback import double_text_udf
from .throws import combine, or_errors
from .values import V, as_condition, double_arith, known_truth, long_arith, null, truth


def _convert(lw: Lowering) -> bool:
    """ActiveMQ's `convert_string_expressions:` prefix (SelectorFilter.convert_strings)."""
    return lw.text.startswith(CONVERT_PREFIX)


def _literal(lw: Lowering, node: n.Expr, kids: list[V]) -> V:
    if isinstance(node, n.NullLit):
        return null(NULL)
    if isinstance(node, n.ExactLit):
        return jv.const(amq.literal_exact(node.value))
    if isinstance(node, n.ApproxLit):
        return jv.const(Double(node.value))
    return jv.const(node.value)  # type: ignore[union-attr]


def _ident(lw: Lowering, node: n.Ident, kids: list[V]) -> V:
    found = lw.idents.get(node.name)
    if found is None:
        found = lw.idents[node.name] = lw.schema.resolve(node.name, jv.java_typed)
    if found.kind == OTHER:
        raise Fallback(
            f"{node.name} is read from {lw.schema.bindings[node.name]}, which has no Java "
            "class: the activemq dialect compares such values as Python objects"
        )
    return found


def _negate(lw: Lowering, node: n.Negate, kids: list[V]) -> V:
    return jv.negate(kids[0])


# -- arithmetic -------------------------------------------------------------------------------


def _text_of(lw: Lowering, node: n.Expr, x: V) -> V:
    """String.valueOf of a non-NULL right operand of `string + x`."""
    if x.is_const:
        return jv.const(amq.java_str(x.const))
    if x.kind == STRING:
        return x
    if x.kind in jv.INTEGRAL or x.kind == BOOLEAN:
        # Spark writes integers in decimal and booleans as true/false, as Java does.
        return V(x.col.cast(T.StringType()), STRING)
    if x.kind == jv.DOUBLE:
        lw.udf_parts.append((lw.source(node), "a double written as text (Java's Double.toString)"))
        return V(double_text_udf()(x.col), STRING)
    raise Fallback(f"{lw.source(node)} is a Float written as text (Java's Float.toString)")


def _arith(lw: Lowering, node: n.Arith, kids: list[V]) -> V:
    a, b = kids
    op = node.op
    if a.kind == NULL:
        return V(null(NULL).col, NULL, error=a.error)  # the right side is not evaluated
    error = or_errors(a.error, jv.errors_if(b.error, a))
    if b.kind == NULL:
        return V(null(NULL).col, NULL, error=error)
    if a.is_const and b.is_const:
        return jv.fold(lambda: amq.arith(op, a.const, b.const))
    numbers = (*jv.NUMBERS, jv.BIG_DECIMAL)
    if op == "+" and a.kind == STRING:
        text = _text_of(lw, node.right, b)
        value = text if a.is_const and a.const == "" else V(F.concat(a.col, text.col), STRING)
        return V(value.col, STRING, error=error)
    if a.kind not in numbers or b.kind not in numbers:
        # "Cannot convert value ... into a number", "Cannot call plus operation on: ...".
        return V(null(NULL).col, NULL, error=or_errors(error, jv.when_present(F.lit(True), a, b)))
    try:
        result = _numbers(op, a, b)
    except OverflowError:  # float() of a BigDecimal literal beyond the double range
        raise Fallback(f"{lw.source(node)} holds a number beyond the double range") from None
    return V(result.col, result.kind, may_nan=result.may_nan, error=error)


def _numbers(op: str, a: V, b: V) -> V:
    """ArithmeticExpression on two numbers: `/` and `%` in doubles, `+ - *` in doubles
    when a Float or Double takes part, else in longs when a Long does, else in ints."""
    if op in ("/", "%") or a.kind in jv.FLOATING or b.kind in jv.FLOATING:
        x, y = jv.as_double(a), jv.as_double(b)
        if op == "%":
            # Java's % is IEEE's except by zero (NaN), where Spark gives NULL or raises.
            nan = F.when(x.col.isNotNull(), F.lit(float("nan")))
            col = F.when(y.col == 0.0, nan).otherwise(x.col % y.col)
            return V(col, jv.DOUBLE, may_nan=True)
        # values.py's double rules (IEEE division by signed zeros) on the values as the
        # jms model's doubles ("D"), constants kept so that a zero divisor is known.
        found = double_arith(op, V(x.col, "D", x.const), V(y.col, "D", y.const))
        return V(found.col, jv.DOUBLE, may_nan=True)
    if jv.LONG in (a.kind, b.kind):
        x, y = jv.as_integral(a, jv.LONG), jv.as_integral(b, jv.LONG)
        return V(long_arith(op, V(x.col, "L", x.const), V(y.col, "L", y.const)).col, jv.LONG)
    x, y = jv.as_integral(a, jv.INT), jv.as_integral(b, jv.INT)
    # Exact in longs (|x op y| < 2**62), then wrapped to 32 bits.
    exact = {"+": x.col + y.col, "-": x.col - y.col, "*": x.col * y.col}[op]
    return V(jv.wrap_int(exact), jv.INT)


# -- comparisons and predicates ------------------------------------------------------------------


def _compare_op(lw: Lowering, op: str, a: V, b: V) -> V:
    convert = _convert(lw)
    try:
        if op == "=":
            return jv.equal(a, b, convert)
        if op == "<>":
            found = jv.equal(a, b, convert)
            if found.is_const:
                return truth(None if found.const is None else not found.const)
            return V(~found.col, BOOLEAN, error=found.error)
        return jv.ordered(op, a, b, convert)
    except jv.NotNative as why:
        raise Fallback(str(why)) from None


def _compare(lw: Lowering, node: n.Compare, kids: list[V]) -> V:
    return _compare_op(lw, node.op, kids[0], kids[1])


def between(lw: Lowering, node: n.Between, kids: list[V]) -> V:
    """J33 (backends/between.py) as compiler.between, through this model's comparison
    with the filter's convert flag, which the table's `compare` cannot know."""
    e, low, high = kids
    rule = between_rule(node.negated)
    return _combine(
        rule.conjunction,
        (_compare_op(lw, rule.low_op, e, low), _compare_op(lw, rule.high_op, e, high)),
    )


def _in(lw: Lowering, node: n.In, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const or x.kind != STRING:
        # A non-string is UNKNOWN for IN and NOT IN alike.
        answer = amq.in_list(x.const, frozenset(node.items), node.negated) if x.is_const else None
        found = truth(answer)
        return found if x.error is None else V(found.col, BOOLEAN, error=x.error)
    hit = x.col.isin(*node.items)
    return V(~hit if node.negated else hit, BOOLEAN, error=x.error)


def like_pattern(pattern: str, escape: str | None) -> str:
    """ActiveMQ's LIKE (its regex, read back as segments: activemq_like.py) as a Spark LIKE
    pattern with backslash escapes; Spark's `_` is one code point, wildcards match line
    breaks, as ActiveMQ's do."""
    special = ("\\", "%", "_")
    segments = regex_segments(activemq_like_regex(pattern, escape)).segments
    return "%".join(
        "".join("_" if ch is None else ("\\" + ch if ch in special else ch) for ch in segment)
        for segment in segments
    )


def _like(lw: Lowering, node: n.Like, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const:
        matched = amq.like(x.const, amq_like(node.pattern, node.escape))
        found = truth(None if matched is None else matched != node.negated)
    elif x.kind == NULL:
        found = truth(None)
    elif x.kind != STRING:
        # A non-string is FALSE for LIKE, TRUE for NOT LIKE.
        found = V(F.when(x.col.isNotNull(), F.lit(node.negated)), BOOLEAN)
    else:
        hit = x.col.like(like_pattern(node.pattern, node.escape))
        found = V(~hit if node.negated else hit, BOOLEAN)
    return found if x.error is None else V(found.col, BOOLEAN, error=x.error)


def _not(lw: Lowering, node: n.Not, kids: list[V]) -> V:
    x = kids[0]
    if x.is_const:
        value = amq.as_condition(x.const)
        return truth(None if value is None else not value)
    return V(~as_condition(x), BOOLEAN, error=x.error, absorbed=x.absorbed)


def _combine(conjunction: bool, kids: Sequence[V]) -> V:
    values = list(kids)
    if all(x.is_const for x in values):
        truths = [amq.as_condition(x.const) for x in values]
        return known_truth(conjunction, truths)
    result, error = combine(conjunction, values, as_condition)
    return V(result, BOOLEAN, error=error, absorbed=True)


def _xquery(lw: Lowering, node: n.XQuery, kids: list[V]) -> V:
    # ActiveMQ's XQUERY on a message that is no XML message: FALSE (as the per-message
    # backend answers it).
    return truth(False)


#: Node class -> handler: the parent table (AND, OR, IS NULL) and the ActiveMQ model's
#: own (BETWEEN through its comparison with the filter's convert flag).
HANDLERS: dict[type[n.Node], Handler] = {
    **PARENT,
    **dict.fromkeys(LITERALS, _literal),
    n.Ident: _ident,
    n.Negate: _negate,
    n.Arith: _arith,
    n.Compare: _compare,
    n.Between: between,
    n.In: _in,
    n.Like: _like,
    n.Not: _not,
    n.XQuery: _xquery,
}

#: Node kinds of the activemq grammar without a native form: the whole filter runs in the
#: per-message Arrow UDF. (What the grammar never builds is its own fact,
#: `dialects.node_kinds`, not listed here.)
UNSUPPORTED: dict[type[n.Node], str] = {
    n.Call: "ActiveMQ's functions (REGEX, INLIST, SPLIT, MAKELIST, REPLACE) run in Python: "
            "their regular expressions and lists have no exact Spark form",
}


def _table_compare(op: str, a: V, b: V) -> V:
    # Table.compare without the filter's convert flag; this table's own BETWEEN (which
    # has the flag) is the only comparison the compiler asks of a table.
    return jv.equal(a, b, False) if op == "=" else jv.ordered(op, a, b, False)


TABLE = Table(HANDLERS, UNSUPPORTED, _table_compare, _combine)
