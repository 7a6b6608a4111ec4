"""The `jms` value model's handlers: JMS 2.0 to the letter (J21-J41), most tests inline
in the generated code, the rest calls into `semantics.values`.

Short-circuit like the spec's AND/OR tables; look each identifier up once per message;
hoist constant work (LIKE matchers, IN sets) to compile time. The other models' tables
start from this one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ...semantics import values as v
from ...semantics.like import like_shape
from ...syntax import nodes as n
from .generator import (
    SHORT_PATTERN,
    Generator,
    Handlers,
    Template,
    condition,
    falsity_from_tri,
    truth_from_tri,
)

_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_PY_OP = {"=": "==", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


# -- literals and names -------------------------------------------------------------------


def lit_value(g: Generator, node: n.Expr) -> str:
    if isinstance(node, n.NullLit):
        return "None"
    if isinstance(node, n.BoolLit):
        return "True" if node.value else "False"
    return g.lit(node)


def _lit_tri(g: Generator, node: n.Expr) -> str:
    # Only TRUE, FALSE and NULL pass the checker as conditions.
    return lit_value(g, node) if isinstance(node, n.BoolLit | n.NullLit) else "False"


def _lit_truth(g: Generator, node: n.Expr) -> str:
    return "True" if isinstance(node, n.BoolLit) and node.value else "False"


def _lit_falsity(g: Generator, node: n.Expr) -> str:
    return "True" if isinstance(node, n.BoolLit) and not node.value else "False"


def _ident_value(g: Generator, node: n.Ident) -> str:
    return g.bind(node)[0]


def _ident_truth(g: Generator, node: n.Ident) -> str:
    return f"({g.bind(node)[0]} is True)"


def _ident_falsity(g: Generator, node: n.Ident) -> str:
    first, later = g.bind(node)
    # J39: a non-boolean value as a condition is FALSE, NULL is UNKNOWN.
    return f"({first} is not True and {later} is not None)"


def _ident_tri(g: Generator, node: n.Ident) -> str:
    return f"_cond({g.bind(node)[0]})"


# -- arithmetic ---------------------------------------------------------------------------

_ARITH_HELPERS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div"}


def _negate_value(g: Generator, node: n.Negate) -> str:
    return f"_neg({g.value(node.operand)})"


def _arith_value(g: Generator, node: n.Arith) -> str:
    helper = _ARITH_HELPERS[node.op]
    if node.op == "/":
        return f"{helper}({g.value(node.left)}, {g.value(node.right)})"
    # Numbers inline: Python's int/float arithmetic is Java's double arithmetic when a
    # double takes part, and long arithmetic while the result fits in a long; anything
    # else (overflow to wrap, strings, NULL) goes to the helper.
    a, b, r = g.temp(), g.temp(), g.temp()

    def number(x: str) -> str:
        return f"(type({x}) is float or type({x}) is int)"

    return (
        f"(None if ({a} := {g.value(node.left)}) is None or ({b} := {g.value(node.right)}) "
        f"is None else {r} if {number(a)} and {number(b)} and (type({r} := {a} {node.op} {b})"
        f" is float or -9223372036854775808 <= {r} <= 9223372036854775807) "
        f"else {helper}({a}, {b}))"
    )


def _not_condition(g: Generator, node: n.Expr) -> str:
    # The checker keeps value expressions out of condition positions except as
    # operands of `=`/`<>`/IS NULL, where their value is what counts.
    return f"_cond({g.value(node)})"


# -- comparisons -----------------------------------------------------------------------------

_LITERALS = (n.StringLit, n.ExactLit, n.ApproxLit, n.BoolLit)
_COMPARE_HELPERS = {"=": "_eq", "<>": "_ne", "<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}
# Doubles hold every integer up to 2**53 exactly: for such a literal Python's exact
# int/float comparison gives what Java's conversion to double gives.
_EXACT_IN_DOUBLE = 2**53



def _in_double(value: int) -> bool:
    return abs(value) <= _EXACT_IN_DOUBLE


def _like_shape(pattern_escape: tuple[str, str | None]) -> tuple[str, str]:
    # Asked twice per pattern (the code's choice, then its constant), and again for each
    # text of a shape that repeats a pattern; short patterns only are remembered.
    if len(pattern_escape[0]) <= SHORT_PATTERN:
        return _short_like_shape(pattern_escape)
    return like_shape(*pattern_escape)


@functools.lru_cache(maxsize=4096)
def _short_like_shape(pattern_escape: tuple[str, str | None]) -> tuple[str, str]:
    return like_shape(*pattern_escape)


def _like_kind(pattern_escape: tuple[str, str | None]) -> str:
    return _like_shape(pattern_escape)[0]


def _like_text(pattern_escape: tuple[str, str | None]) -> str:
    return _like_shape(pattern_escape)[1]


def _literal_test(g: Generator, op: str, lit: n.Expr) -> Template | None:
    """The inline test `operand op literal` as a function of the operand's first and
    later spellings (the first one is evaluated first and may bind it)."""
    py = _PY_OP[op]
    if isinstance(lit, n.StringLit):
        k = g.lit(lit)
        if op in ("=", "<>"):
            if g.optimistic:
                return g.optimistic_test(lambda f, x: f"({f} {py} {k} and type({x}) is str)")
            # The class test comes first: an odd value's own __eq__ never runs.
            return lambda f, x: f"(type({f}) is str and {x} {py} {k})"
        key = g.lit(lit, v.utf16_key)
        return lambda f, x: f"(type({f}) is str and _utf16({x}) {py} {key})"
    if isinstance(lit, n.BoolLit):
        b = "True" if lit.value else "False"
        return lambda f, x: f"(type({f}) is bool and {x} {py} {b})"
    if isinstance(lit, n.ExactLit):
        k = g.lit(lit)
        if g.classify(lit, _in_double):
            if g.optimistic and op in ("=", "<>"):
                return g.optimistic_test(
                    lambda f, x: f"({f} {py} {k} and (type({x}) is int or type({x}) is float))"
                )
            return lambda f, x: f"((type({f}) is int or type({x}) is float) and {x} {py} {k})"
        kf = g.lit(lit, v.to_double)
        return lambda f, x: (
            f"((type({f}) is int and {x} {py} {k}) or (type({x}) is float and {x} {py} {kf}))"
        )
    if isinstance(lit, n.ApproxLit):
        k = g.lit(lit)
        return lambda f, x: (
            f"((type({f}) is float and {x} {py} {k}) or "
            # float() of an int beyond the double range raises: the function's handler
            # then answers for the whole message, which only such absurd data reaches.
            f"(type({x}) is int and float({x}) {py} {k}))"
        )
    return None


def _compare_parts(g: Generator, node: n.Compare) -> tuple[Template, str, str] | None:
    """(test template, first, later) for `operand op literal`; None for other shapes."""
    op: str = node.op
    left, right = node.left, node.right
    if isinstance(left, _LITERALS) and not isinstance(right, _LITERALS):
        left, right, op = right, left, _FLIP[op]
    if isinstance(left, _LITERALS) or not isinstance(right, _LITERALS):
        return None
    test = _literal_test(g, op, right)
    if test is None:
        return None
    first, later = g.bind(left)
    return test, first, later


def _compare_call(g: Generator, node: n.Compare) -> str:
    helper = _COMPARE_HELPERS[node.op]
    return f"{helper}({g.value(node.left)}, {g.value(node.right)})"


def _compare_truth(g: Generator, node: n.Compare) -> str:
    parts = _compare_parts(g, node)
    if parts is None:
        return f"({_compare_call(g, node)} is True)"
    test, first, later = parts
    return test(first, later)


def _compare_falsity(g: Generator, node: n.Compare) -> str:
    parts = _compare_parts(g, node)
    if parts is None:
        return f"({_compare_call(g, node)} is False)"
    test, first, later = parts
    return f"({first} is not None and not {test(later, later)})"


def _compare_tri(g: Generator, node: n.Compare) -> str:
    parts = _compare_parts(g, node)
    if parts is None:
        return _compare_call(g, node)
    test, first, later = parts
    return f"(None if {first} is None else {test(later, later)})"


def _between_as_logic(node: n.Between) -> n.Expr:
    """J33: BETWEEN is exactly two comparisons joined by AND (NOT BETWEEN: OR)."""
    e = node.operand
    if node.negated:
        return n.Or((n.Compare("<", e, node.low), n.Compare(">", e, node.high)))
    return n.And((n.Compare(">=", e, node.low), n.Compare("<=", e, node.high)))


# -- predicates ----------------------------------------------------------------------------


def _in_parts(g: Generator, node: n.In) -> tuple[Template, Template, str, str]:
    first, later = g.bind(node.operand)
    items = g.lit(node, frozenset)

    hit: Template = lambda f, x: f"(type({f}) is str and {x} in {items})"  # noqa: E731
    if g.optimistic and not node.negated:
        hit = g.optimistic_test(lambda f, x: f"({f} in {items} and type({x}) is str)")

    def miss(f: str, x: str) -> str:
        # J34: a non-string value is FALSE for IN and TRUE for NOT IN.
        return f"({f} is not None and (type({x}) is not str or {x} not in {items}))"

    if node.negated:
        return miss, hit, first, later
    return hit, miss, first, later


def _in_truth(g: Generator, node: n.In) -> str:
    truth, _, first, later = _in_parts(g, node)
    return truth(first, later)


def _in_falsity(g: Generator, node: n.In) -> str:
    _, falsity, first, later = _in_parts(g, node)
    return falsity(first, later)


def _in_tri(g: Generator, node: n.In) -> str:
    truth, _, first, later = _in_parts(g, node)
    return f"(None if {first} is None else {truth(later, later)})"


def _like_hit(g: Generator, node: n.Like) -> Template:
    """The pattern test on a value known to be a string: a plain string operation where
    the pattern's shape allows one, else the compiled linear-time matcher."""
    shape = g.classify(node, _like_kind)
    if shape == "general":
        matcher = g.like(node)
        return lambda f, x: f"{matcher}({x})"
    k = g.lit(node, _like_text)
    return {
        "equals": lambda f, x: f"{x} == {k}",
        "prefix": lambda f, x: f"{x}.startswith({k})",
        "suffix": lambda f, x: f"{x}.endswith({k})",
        "contains": lambda f, x: f"{k} in {x}",
        "any": lambda f, x: "True",
    }[shape]


def _like_parts(g: Generator, node: n.Like) -> tuple[str, str, str, str]:
    first, later = g.bind(node.operand)
    hit = f"({_like_hit(g, node)(later, later)})"
    # J37: NULL is UNKNOWN; a non-string is FALSE for LIKE, TRUE for NOT LIKE.
    matched = f"(type({first}) is str and {hit})"
    unmatched = f"({first} is not None and (type({later}) is not str or not {hit}))"
    if node.negated:
        matched, unmatched = unmatched, matched
    return matched, unmatched, first, later


def _like_truth(g: Generator, node: n.Like) -> str:
    return _like_parts(g, node)[0]


def _like_falsity(g: Generator, node: n.Like) -> str:
    return _like_parts(g, node)[1]


def _like_tri(g: Generator, node: n.Like) -> str:
    first, later = g.bind(node.operand)
    hit = f"(type({later}) is str and {_like_hit(g, node)(later, later)})"
    if node.negated:
        hit = f"(not {hit})"
    return f"(None if {first} is None else {hit})"


def is_null_tri(g: Generator, node: n.IsNull) -> str:
    return f"({g.value(node.operand)} is {'not ' if node.negated else ''}None)"


# -- logic ------------------------------------------------------------------------------------


def _not_truth(g: Generator, node: n.Not) -> str:
    return g.falsity(node.operand)


def _not_falsity(g: Generator, node: n.Not) -> str:
    if g.typed is not None:
        # The broker evaluates NOT's operand fully (ActiveMQ's evaluate(), not matches()):
        # an AND in it goes on past an UNKNOWN operand, and may read more.
        return f"({g.tri(node.operand)} is True)"
    return g.truth(node.operand)


def _not_tri(g: Generator, node: n.Not) -> str:
    t = g.temp()
    return f"(None if ({t} := {g.tri(node.operand)}) is None else not {t})"


def and_truth(g: Generator, node: n.And) -> str:
    return "(" + " and ".join(g.truth(o) for o in node.operands) + ")"


def _and_falsity(g: Generator, node: n.And) -> str:
    return "(" + " or ".join(g.falsity(o) for o in node.operands) + ")"


def and_tri(g: Generator, node: n.And) -> str:
    # FALSE as soon as an operand is FALSE; else UNKNOWN if any was UNKNOWN, else TRUE.
    temps = [g.temp() for _ in node.operands]
    tests = " or ".join(
        f"({t} := {g.tri(o)}) is False" for t, o in zip(temps, node.operands, strict=True)
    )
    unknown = " or ".join(f"{t} is None" for t in temps)
    return f"(False if ({tests}) else (None if ({unknown}) else True))"


def or_truth(g: Generator, node: n.Or) -> str:
    return "(" + " or ".join(g.truth(o) for o in node.operands) + ")"


def _or_falsity(g: Generator, node: n.Or) -> str:
    if g.typed is not None:
        # FALSE needs every operand FALSE, but the broker's OR (evaluate()) stops only at
        # TRUE: past an UNKNOWN operand it reads the next one.
        return f"({or_tri(g, node)} is False)"
    return "(" + " and ".join(g.falsity(o) for o in node.operands) + ")"


def or_tri(g: Generator, node: n.Or) -> str:
    temps = [g.temp() for _ in node.operands]
    tests = " or ".join(
        f"({t} := {g.tri(o)}) is True" for t, o in zip(temps, node.operands, strict=True)
    )
    unknown = " or ".join(f"{t} is None" for t in temps)
    return f"(True if ({tests}) else (None if ({unknown}) else False))"


def _via(logic: Callable[[Any], n.Expr], mode: str) -> Callable[[Generator, Any], str]:
    return lambda g, node: g.emit(mode, logic(node))


LITERAL: Handlers = {
    "value": lit_value, "truth": _lit_truth, "falsity": _lit_falsity, "tri": _lit_tri,
}
VALUE_ONLY: Handlers = {
    "truth": truth_from_tri, "falsity": falsity_from_tri, "tri": _not_condition,
}


HANDLERS: dict[type[n.Node], dict[str, Callable[[Generator, Any], str]]] = {
    n.StringLit: LITERAL, n.ExactLit: LITERAL, n.ApproxLit: LITERAL,
    n.BoolLit: LITERAL, n.NullLit: LITERAL,
    n.Ident: {"value": _ident_value, "truth": _ident_truth, "falsity": _ident_falsity,
              "tri": _ident_tri},
    n.Negate: {"value": _negate_value, **VALUE_ONLY},
    n.Arith: {"value": _arith_value, **VALUE_ONLY},
    n.Compare: condition(_compare_truth, _compare_falsity, _compare_tri),
    n.Between: condition(*(_via(_between_as_logic, m) for m in ("truth", "falsity", "tri"))),
    n.In: condition(_in_truth, _in_falsity, _in_tri),
    n.Like: condition(_like_truth, _like_falsity, _like_tri),
    n.IsNull: condition(truth_from_tri, falsity_from_tri, is_null_tri),
    n.Not: condition(_not_truth, _not_falsity, _not_tri),
    n.And: (AND := condition(and_truth, _and_falsity, and_tri)),
    n.Or: (OR := condition(or_truth, _or_falsity, or_tri)),
}
