"""Checked AST -> two Python functions, `matches(message) -> bool` and
`evaluate(message) -> bool | None`, by generating Python source.

The one rule: no byte of user text is ever written into the generated source. Names,
literals, patterns and matchers go into a constants table that the source reaches as
closure variables `K0, K1, ...`; the source holds only our own code, variable names
and table indexes. Every node class has one handler per mode, found through a table
built once (`_HANDLERS`), so that a test can prove every node is handled.

Three modes keep three-valued logic cheap: `truth` is an expression that is truthy
exactly when the condition is TRUE, `falsity` exactly when it is FALSE, `tri` yields
True/False/None. `matches` is the truth of the root, so FALSE and UNKNOWN never need
telling apart where only TRUE counts. `value` yields an operand's value (None = NULL).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..dialects import Dialect
from ..message import as_mapping
from ..semantics import values as v
from ..semantics.like import compile_like
from ..syntax import nodes as n

Matcher = Callable[[Any], bool]
Evaluator = Callable[[Any], bool | None]

# Subtrees this tall go into a function of their own: CPython refuses source nested
# more than 200 parentheses deep, and a selector may nest 256 levels.
_SPLIT_HEIGHT = 24

_RUNTIME: dict[str, Any] = {
    "_as_mapping": as_mapping,
    "_to_double": v.to_double,
    "_cond": v.as_condition,
    "_neg": v.negate,
    "_utf16": v.utf16_key,
    "_cmp": {
        "=": v.cmp_eq, "<>": v.cmp_ne, "<": v.cmp_lt,
        "<=": v.cmp_le, ">": v.cmp_gt, ">=": v.cmp_ge,
    },
    "_arith": dict(v.ARITHMETIC),
}
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_PY_OP = {"=": "==", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


@dataclass
class _Scope:
    """One generated function: the identifiers it loads up front."""

    idents: dict[str, str] = field(default_factory=dict)


class _Gen:
    def __init__(self) -> None:
        self.consts: list[object] = []
        self.const_index: dict[object, str] = {}
        self.temps = 0
        self.subs: list[str] = []
        self.scope = _Scope()

    # -- naming ---------------------------------------------------------------------------

    def const(self, value: object, key: object = None) -> str:
        if key is None:
            key = (type(value), value) if _hashable(value) else (type(value), id(value))
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
        return (
            f"    def {fname}(m):\n"
            f"        if type(m) is not dict:\n"
            f"            m = _as_mapping(m)\n"
            f"        try:\n"
            f"{loads}"
            f"            return {body}\n"
            # Values beyond what a message should hold (a Python int too large for a
            # double, a mapping whose get() fails) must not escape as exceptions.
            f"        except Exception:\n"
            f"            return {default}\n"
        )

    def emit(self, mode: str, node: n.Expr) -> str:
        if node.depth >= _SPLIT_HEIGHT and node.depth % _SPLIT_HEIGHT == 0:
            return self._split(mode, node)
        handler = _HANDLERS[type(node)][mode]
        return handler(self, node)

    def _split(self, mode: str, node: n.Expr) -> str:
        outer = self.scope
        self.scope = _Scope()
        body = _HANDLERS[type(node)]["value" if mode == "value" else "tri"](self, node)
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
        """(first use, later uses) of an operand's value: a local for identifiers,
        else a walrus-bound temporary so the operand is computed once."""
        if isinstance(node, n.Ident):
            local = self.ident(node.name)
            return local, local
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
    return f"({_HANDLERS[type(node)]['tri'](g, node)} is True)"


def _falsity_from_tri(g: _Gen, node: n.Expr) -> str:
    return f"({_HANDLERS[type(node)]['tri'](g, node)} is False)"


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
    return g.ident(node.name)


def _ident_truth(g: _Gen, node: n.Ident) -> str:
    return f"({g.ident(node.name)} is True)"


def _ident_falsity(g: _Gen, node: n.Ident) -> str:
    x = g.ident(node.name)
    # J39: a non-boolean value as a condition is FALSE, NULL is UNKNOWN.
    return f"({x} is not True and {x} is not None)"


def _ident_tri(g: _Gen, node: n.Ident) -> str:
    return f"_cond({g.ident(node.name)})"


# -- arithmetic ---------------------------------------------------------------------------


def _negate_value(g: _Gen, node: n.Negate) -> str:
    return f"_neg({g.value(node.operand)})"


def _arith_value(g: _Gen, node: n.Arith) -> str:
    return f"_arith[{g.const(node.op)}]({g.value(node.left)}, {g.value(node.right)})"


def _not_condition(g: _Gen, node: n.Expr) -> str:
    # The checker keeps value expressions out of condition positions except as
    # operands of `=`/`<>`/IS NULL, where their value is what counts.
    return f"_cond({g.value(node)})"


# -- comparisons -----------------------------------------------------------------------------

_NUMERIC = (n.ExactLit, n.ApproxLit)


def _compare_parts(g: _Gen, op: str, left: n.Expr, right: n.Expr) -> tuple[str, str] | None:
    """(truth, may-be-unknown test) for `identifier op literal`, inline; None otherwise."""
    if isinstance(left, n.StringLit | n.ExactLit | n.ApproxLit | n.BoolLit) and isinstance(
        right, n.Ident
    ):
        left, right, op = right, left, _FLIP[op]
    if not isinstance(left, n.Ident):
        return None
    x = g.ident(left.name)
    py = _PY_OP[op]
    if isinstance(right, n.StringLit):
        if op in ("=", "<>"):
            return f"(type({x}) is str and {x} {py} {g.const(right.value)})", x
        key = g.const(v.utf16_key(right.value))
        return f"(type({x}) is str and _utf16({x}) {py} {key})", x
    if isinstance(right, n.BoolLit):
        lit = "True" if right.value else "False"
        return f"(type({x}) is bool and {x} {py} {lit})", x
    if isinstance(right, n.ExactLit):
        k, kf = g.const(right.value), g.const(v.to_double(right.value))
        return (
            f"((type({x}) is int and {x} {py} {k}) or (type({x}) is float and {x} {py} {kf}))",
            x,
        )
    if isinstance(right, n.ApproxLit):
        k = g.const(right.value)
        return (
            f"((type({x}) is float and {x} {py} {k}) or "
            f"(type({x}) is int and _to_double({x}) {py} {k}))",
            x,
        )
    return None


def _compare_call(g: _Gen, node: n.Compare) -> str:
    return f"_cmp[{g.const(node.op)}]({g.value(node.left)}, {g.value(node.right)})"


def _compare_truth(g: _Gen, node: n.Compare) -> str:
    parts = _compare_parts(g, node.op, node.left, node.right)
    if parts is None:
        return f"({_compare_call(g, node)} is True)"
    return parts[0]


def _compare_falsity(g: _Gen, node: n.Compare) -> str:
    parts = _compare_parts(g, node.op, node.left, node.right)
    if parts is None:
        return f"({_compare_call(g, node)} is False)"
    truth, x = parts
    return f"({x} is not None and not {truth})"


def _compare_tri(g: _Gen, node: n.Compare) -> str:
    parts = _compare_parts(g, node.op, node.left, node.right)
    if parts is None:
        return _compare_call(g, node)
    truth, x = parts
    return f"(None if {x} is None else {truth})"


def _between_as_logic(node: n.Between) -> n.Expr:
    """J33: BETWEEN is exactly two comparisons joined by AND (NOT BETWEEN: OR)."""
    e = node.operand
    if node.negated:
        return n.Or((n.Compare("<", e, node.low), n.Compare(">", e, node.high)))
    return n.And((n.Compare(">=", e, node.low), n.Compare("<=", e, node.high)))


# -- predicates ----------------------------------------------------------------------------


def _in_parts(g: _Gen, node: n.In) -> tuple[str, str, str]:
    x = g.ident(node.operand.name)  # type: ignore[union-attr]
    items = g.const(frozenset(node.items))
    hit = f"(type({x}) is str and {x} in {items})"
    # J34: a non-string value is FALSE for IN and TRUE for NOT IN.
    miss = f"({x} is not None and (type({x}) is not str or {x} not in {items}))"
    return (miss, hit, x) if node.negated else (hit, miss, x)


def _in_truth(g: _Gen, node: n.In) -> str:
    return _in_parts(g, node)[0]


def _in_falsity(g: _Gen, node: n.In) -> str:
    return _in_parts(g, node)[1]


def _in_tri(g: _Gen, node: n.In) -> str:
    truth, _, x = _in_parts(g, node)
    return f"(None if {x} is None else {truth})"


def _like_parts(g: _Gen, node: n.Like) -> tuple[str, str, str]:
    first, later = g.bind(node.operand)
    matcher = g.like(node)
    hit = f"{matcher}({later})"
    # J37: NULL is UNKNOWN; a non-string is FALSE for LIKE, TRUE for NOT LIKE.
    if node.negated:
        truth = f"({first} is not None and (type({later}) is not str or not {hit}))"
        falsity = f"(type({first}) is str and {hit})"
    else:
        truth = f"(type({first}) is str and {hit})"
        falsity = f"({first} is not None and (type({later}) is not str or not {hit}))"
    return truth, falsity, first


def _like_truth(g: _Gen, node: n.Like) -> str:
    return _like_parts(g, node)[0]


def _like_falsity(g: _Gen, node: n.Like) -> str:
    return _like_parts(g, node)[1]


def _like_tri(g: _Gen, node: n.Like) -> str:
    first, later = g.bind(node.operand)
    matcher = g.like(node)
    hit = f"(type({later}) is str and {matcher}({later}))"
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


def _unsupported(g: _Gen, node: n.Expr) -> str:
    raise NotImplementedError(f"{type(node).__name__} is not supported by this dialect")


Handlers = dict[str, Callable[[_Gen, Any], str]]

_LITERAL: Handlers = {
    "value": _lit_value, "truth": _lit_truth, "falsity": _lit_falsity, "tri": _lit_tri,
}
_VALUE_ONLY: Handlers = {
    "truth": _truth_from_tri, "falsity": _falsity_from_tri, "tri": _not_condition,
}


def _condition(truth: Any, falsity: Any, tri: Any) -> dict[str, Any]:
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
    n.And: _condition(_and_truth, _and_falsity, _and_tri),
    n.Or: _condition(_or_truth, _or_falsity, _or_tri),
    n.StringTest: _condition(_unsupported, _unsupported, _unsupported),
}


def compile_python(
    tree: n.Expr | None, dialect: Dialect | None = None
) -> tuple[Matcher, Evaluator, str]:
    """(matches, evaluate, generated source) for a checked tree; None = empty selector."""
    if tree is None:
        return (lambda m: True), (lambda m: True), ""
    gen = _Gen()
    matches = gen.function("matches", gen.truth(tree), "False")
    gen.scope, gen.temps = _Scope(), gen.temps
    evaluate = gen.function("evaluate", gen.tri(tree), "None")
    params = ", ".join(f"K{i}" for i in range(len(gen.consts)))
    source = (
        f"def _bind({params}):\n"
        + "".join(gen.subs)
        + matches
        + evaluate
        + "    return matches, evaluate\n"
    )
    namespace: dict[str, Any] = dict(_RUNTIME)
    exec(compile(source, "<msgfilter>", "exec"), namespace)
    matches_fn, evaluate_fn = namespace["_bind"](*gen.consts)
    return matches_fn, evaluate_fn, source
