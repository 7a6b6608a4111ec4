"""Checked AST -> two Python functions, `matches(message) -> bool` and
`evaluate(message) -> bool | None`, by generating Python source.

The one rule: no byte of user text is ever written into the generated source. Names,
literals, patterns and matchers go into a constants table that the source reaches as
closure variables `K0, K1, ...`; the source holds only our own code, variable names
and table indexes. Every node class has one handler per mode, found through one table
per value model built once (`TABLES`), so that a test can prove every node is handled.

Three modes keep three-valued logic cheap: `truth` is an expression that is truthy
exactly when the condition is TRUE, `falsity` exactly when it is FALSE, `tri` yields
True/False/None. `matches` is the truth of the root, so FALSE and UNKNOWN never need
telling apart where only TRUE counts. `value` yields an operand's value (None = NULL).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..jtypes import Double
from ..message import as_mapping, needs_mapping
from ..semantics import activemq as amq
from ..semantics import rocketmq as rq
from ..semantics import values as v
from ..semantics.activemq_like import amq_like, java_regex
from ..semantics.like import compile_like, like_shape
from ..semantics.model import ValueModel
from ..syntax import nodes as n

# Subtrees this tall go into a function of their own: CPython refuses source nested
# more than 200 parentheses deep, and a selector may nest 256 levels.
_SPLIT_HEIGHT = 24

_RUNTIME: dict[str, Any] = {
    "_as_mapping": as_mapping,
    "_needs_mapping": needs_mapping,
    "_to_double": v.to_double,
    "_cond": v.as_condition,
    "_neg": v.negate,
    "_utf16": v.utf16_key,
    "_eq": v.cmp_eq, "_ne": v.cmp_ne, "_lt": v.cmp_lt,
    "_le": v.cmp_le, "_gt": v.cmp_gt, "_ge": v.cmp_ge,
    "_add": v.add, "_sub": v.sub, "_mul": v.mul, "_div": v.div,
    "_rprop": rq.prop, "_rin": rq.in_list, "_rtest": rq.string_test, "_rneg": rq.negate,
    "_req": rq.eq, "_rne": rq.ne, "_rlt": rq.lt, "_rle": rq.le, "_rgt": rq.gt, "_rge": rq.ge,
    "_aprop": amq.prop, "_acond": amq.as_condition, "_aeq": amq.eq, "_ane": amq.ne,
    "_aord": amq.ordering, "_aarith": amq.arith, "_aneg": amq.negate, "_ain": amq.in_list,
    "_alike": amq.like, "_acall": amq.call, "_failed": amq.failure,
}
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_PY_OP = {"=": "==", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@dataclass
class _Scope:
    """One generated function: the identifiers it loads up front."""

    idents: dict[str, str] = field(default_factory=dict)


class _Gen:
    def __init__(
        self, table: ModelTable, convert_strings: bool = False, optimistic: bool = False
    ) -> None:
        #: Test equality before the value's class (one operation when values differ, the
        #: common case). An odd value's __eq__ may then run and raise: such a function
        #: hands the message to a fallback generated without this shortcut.
        self.optimistic = optimistic
        self.used_optimistic = False
        self.convert_strings = convert_strings
        self.handlers = table.handlers
        self.consts: list[object] = []
        self.const_index: dict[object, str] = {}
        self.temps = 0
        self.subs: list[str] = []
        self.scope = _Scope()
        self.uses: dict[str, int] = {}

    def count_uses(self, tree: n.Expr) -> None:
        """How many places read each identifier (BETWEEN reads its operand twice)."""
        stack: list[n.Expr] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, n.Ident):
                self.uses[node.name] = self.uses.get(node.name, 0) + 1
            stack.extend(n.children(node))
            if isinstance(node, n.Between):
                stack.append(node.operand)

    # -- naming ---------------------------------------------------------------------------

    def const(self, value: object, key: object = None) -> str:
        if key is None:
            if isinstance(value, float):
                # By bits: 0.0 and -0.0 are equal floats but different literals.
                key = (type(value), struct.pack(">d", value))
            elif _hashable(value):
                key = (type(value), value)
            else:
                key = (type(value), id(value))
        name = self.const_index.get(key)
        if name is None:
            name = f"K{len(self.consts)}"
            self.consts.append(value)
            self.const_index[key] = name
        return name

    def like(self, node: n.Like) -> str:
        key = ("LIKE", node.pattern, node.escape)
        return self.const(compile_like(node.pattern, node.escape), key) \
            if key not in self.const_index else self.const_index[key]

    def optimistic_test(self, template: Template) -> Template:
        self.used_optimistic = True
        return template

    def temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def ident(self, name: str) -> str:
        local = self.scope.idents.get(name)
        if local is None:
            local = f"v{len(self.scope.idents)}"
            self.scope.idents[name] = local
        return local

    # -- entry points ---------------------------------------------------------------------

    def function(self, fname: str, body: str, default: str) -> str:
        loads = "".join(
            f"            {local} = m.get({self.const(name)})\n"
            for name, local in self.scope.idents.items()
        )
        # Dicts, other mappings and Message objects all have get(): the fast path reads
        # them directly. Anything else fails on get() and is read once more as the mapping
        # `_as_mapping` gives for it. Values beyond what a message should hold (a Python
        # int too large for a double) must not escape as exceptions either.
        return (
            f"    def {fname}(m):\n"
            f"        try:\n"
            f"{loads}"
            f"            return {body}\n"
            f"        except Exception as _e:\n"
            f"            if _needs_mapping(m):\n"
            f"                return {fname}(_as_mapping(m))\n"
            f"            return {default}\n"
        )

    def emit(self, mode: str, node: n.Expr) -> str:
        if node.depth >= _SPLIT_HEIGHT and node.depth % _SPLIT_HEIGHT == 0:
            return self._split(mode, node)
        handlers = self.handlers.get(type(node))
        if handlers is None:
            # Only a tree from another model's grammar gets here (see ModelTable.absent).
            raise NotImplementedError(f"{type(node).__name__} is not part of this value model")
        return handlers[mode](self, node)

    def _split(self, mode: str, node: n.Expr) -> str:
        outer = self.scope
        self.scope = _Scope()
        body = self.handlers[type(node)]["value" if mode == "value" else "tri"](self, node)
        name = f"_s{len(self.subs)}"
        self.subs.append(self.function(name, body, "None"))
        self.scope = outer
        call = f"{name}(m)"
        if mode == "truth":
            return f"({call} is True)"
        if mode == "falsity":
            return f"({call} is False)"
        return call

    def value(self, node: n.Expr) -> str:
        return self.emit("value", node)

    def truth(self, node: n.Expr) -> str:
        return self.emit("truth", node)

    def falsity(self, node: n.Expr) -> str:
        return self.emit("falsity", node)

    def tri(self, node: n.Expr) -> str:
        return self.emit("tri", node)

    def bind(self, node: n.Expr) -> tuple[str, str]:
        """(first use, later uses) of an operand's value, for a template whose first
        spelling of it is evaluated first. An identifier read in one place only is
        looked up there, so short-circuiting skips its lookup; one read in several
        places is loaded once at the top of the function. Any other operand is bound
        to a temporary so that it is computed once."""
        if isinstance(node, n.Ident):
            if self.uses.get(node.name, 0) > 1:
                local = self.ident(node.name)
                return local, local
            tmp = self.temp()
            return f"({tmp} := m.get({self.const(node.name)}))", tmp
        tmp = self.temp()
        return f"({tmp} := {self.value(node)})", tmp


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


# -- generic derivations between modes -------------------------------------------------


def _truth_from_tri(g: _Gen, node: n.Expr) -> str:
    return f"({g.handlers[type(node)]['tri'](g, node)} is True)"


def _falsity_from_tri(g: _Gen, node: n.Expr) -> str:
    return f"({g.handlers[type(node)]['tri'](g, node)} is False)"


# -- literals and names -------------------------------------------------------------------


def _lit_value(g: _Gen, node: n.Expr) -> str:
    if isinstance(node, n.NullLit):
        return "None"
    if isinstance(node, n.BoolLit):
        return "True" if node.value else "False"
    return g.const(node.value)  # type: ignore[union-attr]


def _lit_tri(g: _Gen, node: n.Expr) -> str:
    # Only TRUE, FALSE and NULL pass the checker as conditions.
    return _lit_value(g, node) if isinstance(node, n.BoolLit | n.NullLit) else "False"


def _lit_truth(g: _Gen, node: n.Expr) -> str:
    return "True" if isinstance(node, n.BoolLit) and node.value else "False"


def _lit_falsity(g: _Gen, node: n.Expr) -> str:
    return "True" if isinstance(node, n.BoolLit) and not node.value else "False"


def _ident_value(g: _Gen, node: n.Ident) -> str:
    return g.bind(node)[0]


def _ident_truth(g: _Gen, node: n.Ident) -> str:
    return f"({g.bind(node)[0]} is True)"


def _ident_falsity(g: _Gen, node: n.Ident) -> str:
    first, later = g.bind(node)
    # J39: a non-boolean value as a condition is FALSE, NULL is UNKNOWN.
    return f"({first} is not True and {later} is not None)"


def _ident_tri(g: _Gen, node: n.Ident) -> str:
    return f"_cond({g.bind(node)[0]})"


# -- arithmetic ---------------------------------------------------------------------------

_ARITH_HELPERS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div"}


def _negate_value(g: _Gen, node: n.Negate) -> str:
    return f"_neg({g.value(node.operand)})"


def _arith_value(g: _Gen, node: n.Arith) -> str:
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


def _not_condition(g: _Gen, node: n.Expr) -> str:
    # The checker keeps value expressions out of condition positions except as
    # operands of `=`/`<>`/IS NULL, where their value is what counts.
    return f"_cond({g.value(node)})"


# -- comparisons -----------------------------------------------------------------------------

_LITERALS = (n.StringLit, n.ExactLit, n.ApproxLit, n.BoolLit)
_COMPARE_HELPERS = {"=": "_eq", "<>": "_ne", "<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}
# Doubles hold every integer up to 2**53 exactly: for such a literal Python's exact
# int/float comparison gives what Java's conversion to double gives.
_EXACT_IN_DOUBLE = 2**53

Template = Callable[[str, str], str]


def _literal_test(g: _Gen, op: str, lit: n.Expr) -> Template | None:
    """The inline test `operand op literal` as a function of the operand's first and
    later spellings (the first one is evaluated first and may bind it)."""
    py = _PY_OP[op]
    if isinstance(lit, n.StringLit):
        k = g.const(lit.value)
        if op in ("=", "<>"):
            if g.optimistic:
                return g.optimistic_test(lambda f, x: f"({f} {py} {k} and type({x}) is str)")
            # The class test comes first: an odd value's own __eq__ never runs.
            return lambda f, x: f"(type({f}) is str and {x} {py} {k})"
        key = g.const(v.utf16_key(lit.value))
        return lambda f, x: f"(type({f}) is str and _utf16({x}) {py} {key})"
    if isinstance(lit, n.BoolLit):
        b = "True" if lit.value else "False"
        return lambda f, x: f"(type({f}) is bool and {x} {py} {b})"
    if isinstance(lit, n.ExactLit):
        k = g.const(lit.value)
        if abs(lit.value) <= _EXACT_IN_DOUBLE:
            if g.optimistic and op in ("=", "<>"):
                return g.optimistic_test(
                    lambda f, x: f"({f} {py} {k} and (type({x}) is int or type({x}) is float))"
                )
            return lambda f, x: f"((type({f}) is int or type({x}) is float) and {x} {py} {k})"
        kf = g.const(v.to_double(lit.value))
        return lambda f, x: (
            f"((type({f}) is int and {x} {py} {k}) or (type({x}) is float and {x} {py} {kf}))"
        )
    if isinstance(lit, n.ApproxLit):
        k = g.const(lit.value)
        return lambda f, x: (
            f"((type({f}) is float and {x} {py} {k}) or "
            # float() of an int beyond the double range raises: the function's handler
            # then answers for the whole message, which only such absurd data reaches.
            f"(type({x}) is int and float({x}) {py} {k}))"
        )
    return None


def _compare_parts(g: _Gen, node: n.Compare) -> tuple[Template, str, str] | None:
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


def _compare_call(g: _Gen, node: n.Compare) -> str:
    helper = _COMPARE_HELPERS[node.op]
    return f"{helper}({g.value(node.left)}, {g.value(node.right)})"


def _compare_truth(g: _Gen, node: n.Compare) -> str:
    parts = _compare_parts(g, node)
    if parts is None:
        return f"({_compare_call(g, node)} is True)"
    test, first, later = parts
    return test(first, later)


def _compare_falsity(g: _Gen, node: n.Compare) -> str:
    parts = _compare_parts(g, node)
    if parts is None:
        return f"({_compare_call(g, node)} is False)"
    test, first, later = parts
    return f"({first} is not None and not {test(later, later)})"


def _compare_tri(g: _Gen, node: n.Compare) -> str:
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


def _in_parts(g: _Gen, node: n.In) -> tuple[Template, Template, str, str]:
    first, later = g.bind(node.operand)
    items = g.const(frozenset(node.items))

    hit: Template = lambda f, x: f"(type({f}) is str and {x} in {items})"  # noqa: E731
    if g.optimistic and not node.negated:
        hit = g.optimistic_test(lambda f, x: f"({f} in {items} and type({x}) is str)")

    def miss(f: str, x: str) -> str:
        # J34: a non-string value is FALSE for IN and TRUE for NOT IN.
        return f"({f} is not None and (type({x}) is not str or {x} not in {items}))"

    if node.negated:
        return miss, hit, first, later
    return hit, miss, first, later


def _in_truth(g: _Gen, node: n.In) -> str:
    truth, _, first, later = _in_parts(g, node)
    return truth(first, later)


def _in_falsity(g: _Gen, node: n.In) -> str:
    _, falsity, first, later = _in_parts(g, node)
    return falsity(first, later)


def _in_tri(g: _Gen, node: n.In) -> str:
    truth, _, first, later = _in_parts(g, node)
    return f"(None if {first} is None else {truth(later, later)})"


def _like_hit(g: _Gen, node: n.Like) -> Template:
    """The pattern test on a value known to be a string: a plain string operation where
    the pattern's shape allows one, else the compiled linear-time matcher."""
    shape, text = like_shape(node.pattern, node.escape)
    if shape == "general":
        matcher = g.like(node)
        return lambda f, x: f"{matcher}({x})"
    k = g.const(text)
    return {
        "equals": lambda f, x: f"{x} == {k}",
        "prefix": lambda f, x: f"{x}.startswith({k})",
        "suffix": lambda f, x: f"{x}.endswith({k})",
        "contains": lambda f, x: f"{k} in {x}",
        "any": lambda f, x: "True",
    }[shape]


def _like_parts(g: _Gen, node: n.Like) -> tuple[str, str, str, str]:
    first, later = g.bind(node.operand)
    hit = f"({_like_hit(g, node)(later, later)})"
    # J37: NULL is UNKNOWN; a non-string is FALSE for LIKE, TRUE for NOT LIKE.
    matched = f"(type({first}) is str and {hit})"
    unmatched = f"({first} is not None and (type({later}) is not str or not {hit}))"
    if node.negated:
        matched, unmatched = unmatched, matched
    return matched, unmatched, first, later


def _like_truth(g: _Gen, node: n.Like) -> str:
    return _like_parts(g, node)[0]


def _like_falsity(g: _Gen, node: n.Like) -> str:
    return _like_parts(g, node)[1]


def _like_tri(g: _Gen, node: n.Like) -> str:
    first, later = g.bind(node.operand)
    hit = f"(type({later}) is str and {_like_hit(g, node)(later, later)})"
    if node.negated:
        hit = f"(not {hit})"
    return f"(None if {first} is None else {hit})"


def _is_null_tri(g: _Gen, node: n.IsNull) -> str:
    return f"({g.value(node.operand)} is {'not ' if node.negated else ''}None)"


# -- logic ------------------------------------------------------------------------------------


def _not_truth(g: _Gen, node: n.Not) -> str:
    return g.falsity(node.operand)


def _not_falsity(g: _Gen, node: n.Not) -> str:
    return g.truth(node.operand)


def _not_tri(g: _Gen, node: n.Not) -> str:
    t = g.temp()
    return f"(None if ({t} := {g.tri(node.operand)}) is None else not {t})"


def _and_truth(g: _Gen, node: n.And) -> str:
    return "(" + " and ".join(g.truth(o) for o in node.operands) + ")"


def _and_falsity(g: _Gen, node: n.And) -> str:
    return "(" + " or ".join(g.falsity(o) for o in node.operands) + ")"


def _and_tri(g: _Gen, node: n.And) -> str:
    # FALSE as soon as an operand is FALSE; else UNKNOWN if any was UNKNOWN, else TRUE.
    temps = [g.temp() for _ in node.operands]
    tests = " or ".join(
        f"({t} := {g.tri(o)}) is False" for t, o in zip(temps, node.operands, strict=True)
    )
    unknown = " or ".join(f"{t} is None" for t in temps)
    return f"(False if ({tests}) else (None if ({unknown}) else True))"


def _or_truth(g: _Gen, node: n.Or) -> str:
    return "(" + " or ".join(g.truth(o) for o in node.operands) + ")"


def _or_falsity(g: _Gen, node: n.Or) -> str:
    return "(" + " and ".join(g.falsity(o) for o in node.operands) + ")"


def _or_tri(g: _Gen, node: n.Or) -> str:
    temps = [g.temp() for _ in node.operands]
    tests = " or ".join(
        f"({t} := {g.tri(o)}) is True" for t, o in zip(temps, node.operands, strict=True)
    )
    unknown = " or ".join(f"{t} is None" for t in temps)
    return f"(True if ({tests}) else (None if ({unknown}) else False))"


def _via(logic: Callable[[Any], n.Expr], mode: str) -> Callable[[_Gen, Any], str]:
    return lambda g, node: g.emit(mode, logic(node))


Handlers = dict[str, Callable[[_Gen, Any], str]]

_LITERAL: Handlers = {
    "value": _lit_value, "truth": _lit_truth, "falsity": _lit_falsity, "tri": _lit_tri,
}
_VALUE_ONLY: Handlers = {
    "truth": _truth_from_tri, "falsity": _falsity_from_tri, "tri": _not_condition,
}


def _condition(truth: Any, falsity: Any, tri: Any) -> Handlers:
    # A condition used as a value (an operand of `=` or IS NULL) is its tri value.
    return {"truth": truth, "falsity": falsity, "tri": tri, "value": tri}


_HANDLERS: dict[type[n.Node], dict[str, Callable[[_Gen, Any], str]]] = {
    n.StringLit: _LITERAL, n.ExactLit: _LITERAL, n.ApproxLit: _LITERAL,
    n.BoolLit: _LITERAL, n.NullLit: _LITERAL,
    n.Ident: {"value": _ident_value, "truth": _ident_truth, "falsity": _ident_falsity,
              "tri": _ident_tri},
    n.Negate: {"value": _negate_value, **_VALUE_ONLY},
    n.Arith: {"value": _arith_value, **_VALUE_ONLY},
    n.Compare: _condition(_compare_truth, _compare_falsity, _compare_tri),
    n.Between: _condition(*(_via(_between_as_logic, m) for m in ("truth", "falsity", "tri"))),
    n.In: _condition(_in_truth, _in_falsity, _in_tri),
    n.Like: _condition(_like_truth, _like_falsity, _like_tri),
    n.IsNull: _condition(_truth_from_tri, _falsity_from_tri, _is_null_tri),
    n.Not: _condition(_not_truth, _not_falsity, _not_tri),
    n.And: (_AND := _condition(_and_truth, _and_falsity, _and_tri)),
    n.Or: (_OR := _condition(_or_truth, _or_falsity, _or_tri)),
}


# -- the rocketmq model: string properties converted to the literal's type ---------------
# Every operation is a call into semantics/rocketmq.py, whose conversions may raise
# `Undelivered` as the broker throws; the generated function's handler turns that into
# "not delivered" for the whole message, as the broker does.

_RMQ_COMPARE = {"=": "_req", "<>": "_rne", "<": "_rlt", "<=": "_rle", ">": "_rgt", ">=": "_rge"}


def _rmq_ident_value(g: _Gen, node: n.Ident) -> str:
    return f"_rprop({g.bind(node)[0]})"


def _rmq_ident_tri(g: _Gen, node: n.Ident) -> str:
    # A bare property is cast to Boolean: a string (every property) is FALSE.
    return f"_cond(_rprop({g.bind(node)[0]}))"


def _rmq_compare_tri(g: _Gen, node: n.Compare) -> str:
    return f"{_RMQ_COMPARE[node.op]}({g.value(node.left)}, {g.value(node.right)})"


def _rmq_in_tri(g: _Gen, node: n.In) -> str:
    items = g.const(frozenset(node.items))
    return f"_rin({g.value(node.operand)}, {items}, {node.negated})"


def _rmq_string_test_tri(g: _Gen, node: n.StringTest) -> str:
    op, text = g.const(node.op), g.const(node.value)
    return f"_rtest({op}, {node.negated}, {g.value(node.operand)}, {text})"


def _rmq_negate_value(g: _Gen, node: n.Negate) -> str:
    return f"_rneg({g.value(node.operand)})"


def _from_tri(tri: Callable[[_Gen, Any], str]) -> Handlers:
    return _condition(
        lambda g, node: f"({tri(g, node)} is True)",
        lambda g, node: f"({tri(g, node)} is False)",
        tri,
    )


def _tri_tests(handlers: Handlers) -> Handlers:
    """Handlers whose TRUE and FALSE tests evaluate the node fully, in the broker's order.

    Where evaluation can abort (RocketMQ's throws), a test that stops at the first operand
    that is not FALSE would skip an operand that throws: only AND's and OR's own TRUE tests
    may short-circuit, because "not TRUE" already means "not delivered" there."""
    tri = handlers["tri"]
    return {
        **handlers,
        "falsity": lambda g, node: f"({tri(g, node)} is False)",
        **({} if handlers is _AND or handlers is _OR else {
            "truth": lambda g, node: f"({tri(g, node)} is True)",
        }),
    }


_ROCKETMQ_HANDLERS: dict[type[n.Node], Handlers] = {
    **_HANDLERS,
    n.Not: _tri_tests(_HANDLERS[n.Not]),
    n.And: _tri_tests(_HANDLERS[n.And]),
    n.Or: _tri_tests(_HANDLERS[n.Or]),
    n.Ident: {"value": _rmq_ident_value, "truth": _truth_from_tri,
              "falsity": _falsity_from_tri, "tri": _rmq_ident_tri},
    n.Negate: {"value": _rmq_negate_value, **_VALUE_ONLY},
    n.Compare: _from_tri(_rmq_compare_tri),
    n.In: _from_tri(_rmq_in_tri),
    n.StringTest: _from_tri(_rmq_string_test_tri),
}

# -- the activemq model: ActiveMQ 5.17 with Java types ------------------------------------
# Operands are evaluated in ActiveMQ's order and as lazily as it does: arithmetic and
# `< <= > >=` skip their right operand when the left one is NULL, `=` evaluates both.
# `matches` follows BooleanExpression.matches (AND and OR short-circuit on "not TRUE"),
# everything else evaluate(); an exception is the outcome "error".


def _amq_literal_value(g: _Gen, node: n.Expr) -> str:
    if isinstance(node, n.ExactLit):
        return g.const(amq.literal_exact(node.value), ("amq-exact", node.value))
    if isinstance(node, n.ApproxLit):
        return g.const(Double(node.value), ("amq-approx", node.value))
    return _lit_value(g, node)


def _amq_ident_value(g: _Gen, node: n.Ident) -> str:
    return f"_aprop({g.bind(node)[0]}, {g.const(node.name)})"


def _amq_ident_tri(g: _Gen, node: n.Ident) -> str:
    return f"_acond({_amq_ident_value(g, node)})"


def _amq_lazy(g: _Gen, left: n.Expr, right: n.Expr, call: Callable[[str, str], str]) -> str:
    t = g.temp()
    return f"(None if ({t} := {g.value(left)}) is None else {call(t, g.value(right))})"


def _amq_arith_value(g: _Gen, node: n.Arith) -> str:
    op = g.const(node.op)
    u = g.temp()
    return _amq_lazy(
        g, node.left, node.right,
        lambda t, r: f"(None if ({u} := {r}) is None else _aarith({op}, {t}, {u}))",
    )


def _amq_negate_value(g: _Gen, node: n.Negate) -> str:
    return f"_aneg({g.value(node.operand)})"


def _amq_compare_tri(g: _Gen, node: n.Compare) -> str:
    convert = "True" if g.convert_strings else "False"
    if node.op in ("=", "<>"):
        helper = "_aeq" if node.op == "=" else "_ane"
        return f"{helper}({g.value(node.left)}, {g.value(node.right)}, {convert})"
    op = g.const(node.op)
    return _amq_lazy(
        g, node.left, node.right, lambda t, r: f"_aord({op}, {t}, {r}, {convert})"
    )


def _amq_in_tri(g: _Gen, node: n.In) -> str:
    items = g.const(frozenset(node.items))
    return f"_ain({g.value(node.operand)}, {items}, {node.negated})"


def _amq_like_tri(g: _Gen, node: n.Like) -> str:
    key = ("AMQ-LIKE", node.pattern, node.escape)
    matcher = g.const_index.get(key) or g.const(amq_like(node.pattern, node.escape), key)
    test = f"_alike({g.value(node.operand)}, {matcher})"
    if not node.negated:
        return test
    t = g.temp()
    return f"(None if ({t} := {test}) is None else not {t})"


def _amq_call_value(g: _Gen, node: n.Call) -> str:
    args = ", ".join(g.value(a) for a in node.args)
    return f"_acall({g.const(node.name)}, [{args}], {g.const(java_regex)})"


def _amq_call_tri(g: _Gen, node: n.Call) -> str:
    return f"_acond({_amq_call_value(g, node)})"


def _amq_not_tri(g: _Gen, node: n.Not) -> str:
    t = g.temp()
    return f"(None if ({t} := {g.tri(node.operand)}) is None else not {t})"


def _amq(tri: Callable[[_Gen, Any], str], value: Callable[[_Gen, Any], str] | None = None
         ) -> Handlers:
    return {
        "truth": lambda g, node: f"({tri(g, node)} is True)",
        "falsity": lambda g, node: f"({tri(g, node)} is False)",
        "tri": tri,
        "value": value or tri,
    }


_AMQ_LITERAL: Handlers = {**_LITERAL, "value": _amq_literal_value}

_ACTIVEMQ_HANDLERS: dict[type[n.Node], Handlers] = {
    **_HANDLERS,
    n.ExactLit: _AMQ_LITERAL, n.ApproxLit: _AMQ_LITERAL,
    n.Ident: _amq(_amq_ident_tri, _amq_ident_value),
    n.Negate: {"value": _amq_negate_value, **_VALUE_ONLY},
    n.Arith: {"value": _amq_arith_value, **_VALUE_ONLY},
    n.Compare: _amq(_amq_compare_tri),
    n.In: _amq(_amq_in_tri),
    n.Like: _amq(_amq_like_tri),
    n.IsNull: _amq(_is_null_tri),
    n.Not: _amq(_amq_not_tri),
    n.And: {**_amq(_and_tri), "truth": _and_truth},
    n.Or: {**_amq(_or_tri), "truth": _or_truth},
    n.Call: _amq(_amq_call_tri, _amq_call_value),
    n.XQuery: _amq(lambda g, node: "False"),
}


@dataclass(frozen=True, slots=True)
class ModelTable:
    """How this backend lowers one value model: a handler per node class and mode."""

    #: Node class -> {mode: handler} for every node class the model's grammars build.
    handlers: Mapping[type[n.Node], Handlers]
    #: Node classes deliberately without handlers: no grammar of this model builds them
    #: (its switches leave out the syntax), so the checked tree never holds one.
    absent: frozenset[type[n.Node]]
    #: Test equality before the value's class (see `_Gen.optimistic`): only where the
    #: value rules make a failed shortcut fall back to the same answer.
    optimistic: bool = False


def _table(
    handlers: Mapping[type[n.Node], Handlers], absent: set[type[n.Node]], optimistic: bool = False
) -> ModelTable:
    kept = MappingProxyType({k: h for k, h in handlers.items() if k not in absent})
    return ModelTable(kept, frozenset(absent), optimistic)


#: The lowering table of each SQL value model (the tag dialects do not use this backend).
TABLES: Mapping[ValueModel, ModelTable] = MappingProxyType({
    ValueModel.JMS: _table(_HANDLERS, {n.StringTest, n.Call, n.XQuery}, optimistic=True),
    ValueModel.ROCKETMQ: _table(_ROCKETMQ_HANDLERS, {n.Arith, n.Like, n.Call, n.XQuery}),
    ValueModel.ACTIVEMQ: _table(_ACTIVEMQ_HANDLERS, {n.StringTest}),
})


def generate(
    tree: n.Expr, model: ValueModel, mode: str, default: str | None = None,
    convert_strings: bool = False,
) -> tuple[str, tuple[object, ...]]:
    """The source of one function (`matches` for mode "truth", `evaluate` for "tri")
    and the constants its `_bind` takes. `default` is what it returns when evaluation
    raises (the exception is `_e`): by default FALSE for `matches`, UNKNOWN for
    `evaluate`."""
    table = TABLES[model]
    gen = _Gen(table, convert_strings, optimistic=default is None and table.optimistic)
    gen.count_uses(tree)
    name, fallback = ("matches", "False") if mode == "truth" else ("evaluate", "None")
    expression = gen.emit(mode, tree)
    if gen.used_optimistic:
        careful = _Careful(tree, model, mode)
        fallback = f"{gen.const(careful, ('careful', mode))}(m)"
    body = gen.function(name, expression, default or fallback)
    params = ", ".join(f"K{i}" for i in range(len(gen.consts)))
    source = f"def _bind({params}):\n" + "".join(gen.subs) + body + f"    return {name}\n"
    return source, tuple(gen.consts)


class _Careful:
    """The function a shortcut-taking evaluator falls back to when evaluation raises,
    generated (once, on first use) without shortcuts."""

    def __init__(self, tree: n.Expr, model: ValueModel, mode: str) -> None:
        self.tree, self.model, self.mode = tree, model, mode
        self.function: Callable[[Any], Any] | None = None

    def __call__(self, message: Any) -> Any:
        if self.function is None:
            default = "False" if self.mode == "truth" else "None"
            self.function, _ = compile_function(self.tree, self.model, self.mode,
                                                default=default)
        return self.function(message)


def build(source: str, consts: tuple[object, ...]) -> Any:
    """The function that generated `source` defines, bound to its constants."""
    namespace: dict[str, Any] = dict(_RUNTIME)
    exec(compile(source, "<msgfilter>", "exec"), namespace)  # our text only: no user byte is in it
    return namespace["_bind"](*consts)


def compile_function(
    tree: n.Expr | None, model: ValueModel, mode: str, *, default: str | None = None,
    convert_strings: bool = False,
) -> tuple[Callable[[Any], Any], str]:
    """The evaluator of a checked tree and its source: `matches` for mode "truth",
    `evaluate` for "tri" (None: the empty selector, TRUE for every message). `default`
    is what it answers where evaluation raises (see `generate`; "_failed(_e)" gives an
    `EvaluationFailure`)."""
    if tree is None:
        return _always_true, ""
    source, consts = generate(tree, model, mode, default, convert_strings)
    function: Callable[[Any], Any] = build(source, consts)
    return function, source


def _always_true(message: object) -> bool:
    return True
