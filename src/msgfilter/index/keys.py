"""Which conjuncts of a checked tree can key the index, per value model.

A probe is a condition on one message value (or a few) that the index can look up. The
plan of a filter is a set of probes such that the filter can be TRUE for a message only
when one of them hits: a conjunct that must be TRUE for the whole selector to be TRUE
(NULL or an absent property never makes these TRUE), or, for an OR, a probe from every
branch. `exact` says that a hit alone proves the filter TRUE, so the evaluator is skipped.

The per-conjunct rules of each model (`Planner.condition`, `why`) are what the clause
plans of `clauses` are made from; the tag probes are what `store.TagStore` files.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..semantics import artemis, qpid
from ..semantics.model import ValueModel
from ..syntax import nodes as n
from . import canonical as c

_FLIP = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_LITERALS = (n.StringLit, n.ExactLit, n.ApproxLit, n.BoolLit, n.NullLit, n.Negate)


@dataclass(frozen=True, slots=True)
class Eq:
    """The value of `ident` has key `key` (of RocketMQ kind `kind`)."""

    ident: str
    key: object
    kind: str = c.STRING


@dataclass(frozen=True, slots=True)
class Compound:
    """Every `idents[i]` has key `keys[i]`: equalities chained across fields."""

    idents: tuple[str, ...]
    keys: tuple[object, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Prefix:
    """The string value of `ident` starts with `prefix` (never empty)."""

    ident: str
    prefix: str


@dataclass(frozen=True, slots=True)
class Range:
    """The numeric value of `ident`, as a double, lies in [low, high] (too wide on
    purpose: strict bounds are taken inclusive, longs by their nearest double)."""

    ident: str
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Present:
    """`ident` has a value (IS NOT NULL)."""

    ident: str


@dataclass(frozen=True, slots=True)
class Tag:
    """The message's RocketMQ tag (`TAGS`) is `tag`."""

    tag: str


@dataclass(frozen=True, slots=True)
class AnyTag:
    """One of the message's Pulsar tags (`tag*` properties) is `tag`."""

    tag: str


Probe = Eq | Compound | Prefix | Range | Present | Tag | AnyTag


#: How likely a message is to hit some probes (lower: more selective); the index gives
#: one from what it holds, so that `tenant IN (...)` beats `type = 'k'` when there are
#: many more tenants than types.
Estimate = Callable[[tuple["Probe", ...]], float]


def static_estimate(probes: tuple[Probe, ...]) -> float:
    """A guess without statistics: by the kind of probe."""
    guess = {Compound: 0.01, Eq: 0.1, Prefix: 0.2, Range: 0.3, Present: 0.9}
    return sum(guess.get(type(p), 0.5) for p in probes)


# -- selectors ---------------------------------------------------------------------------

Found = tuple[tuple[Probe, ...], bool, str]

#: Preference among single conjuncts of an AND (lower first): the most selective kinds.
_RANK = {"compound": 0, "equality": 1, "IN": 2, "prefix": 3, "range": 4, "IS NOT NULL": 5}


class Planner:
    """The index rules of one value model."""

    def __init__(self, model: ValueModel, estimate: Estimate = static_estimate) -> None:
        self.model = model
        self.estimate = estimate

    # What a model can key: overridden per model.
    def compare(self, node: n.Compare) -> Found | None:
        return None

    def in_list(self, node: n.In) -> Found | None:
        if node.negated or not isinstance(node.operand, n.Ident) or not node.items:
            return None
        ident = node.operand.name
        return tuple(Eq(ident, item) for item in node.items), self.exact_strings, "IN"

    exact_strings = True

    def like(self, node: n.Like) -> Found | None:
        return None

    def string_test(self, node: n.StringTest) -> Found | None:
        return None

    def between(self, node: n.Between) -> Found | None:
        return None

    def ident(self, node: n.Ident) -> Found | None:
        return None

    def is_not_null(self, node: n.IsNull) -> Found | None:
        if node.negated and isinstance(node.operand, n.Ident):
            return (Present(node.operand.name),), False, "IS NOT NULL"
        return None

    def condition(self, node: n.Expr) -> Found | None:
        if isinstance(node, n.And):
            return self.conjunction(node)
        if isinstance(node, n.Or):
            return self.disjunction(node)
        if isinstance(node, n.Compare):
            return self.compare(node)
        if isinstance(node, n.In):
            return self.in_list(node)
        if isinstance(node, n.Like):
            return None if node.negated else self.like(node)
        if isinstance(node, n.StringTest):
            return None if node.negated else self.string_test(node)
        if isinstance(node, n.Between):
            return None if node.negated else self.between(node)
        if isinstance(node, n.IsNull):
            return self.is_not_null(node)
        if isinstance(node, n.Ident):
            return self.ident(node)
        return None

    def conjunction(self, node: n.And) -> Found | None:
        best: Found | None = None
        best_cost = 0.0
        singles: dict[str, Eq] = {}
        all_singles = True
        for operand in node.operands:
            found = self.condition(operand)
            if found is None:
                all_singles = False
                continue
            probes, exact, structure = found
            if structure == "equality" and len(probes) == 1 and isinstance(probes[0], Eq) \
                    and exact and probes[0].ident not in singles:
                singles[probes[0].ident] = probes[0]
            else:
                all_singles = False
            cost = self.estimate(found[0])
            if best is None or cost < best_cost or (cost == best_cost and _better(found, best)):
                best, best_cost = found, cost
        if len(singles) >= 2:
            chosen = sorted(singles.values(), key=lambda p: p.ident)[:4]
            probe = Compound(
                tuple(p.ident for p in chosen), tuple(p.key for p in chosen),
                tuple(p.kind for p in chosen),
            )
            exact = all_singles and len(chosen) == len(node.operands)
            if exact or best is None or self.estimate((probe,)) <= best_cost:
                return (probe,), exact, "compound"
        if best is None:
            return None
        # A hit of one conjunct proves nothing about the others.
        return best[0], best[1] and len(node.operands) == 1, best[2]

    def disjunction(self, node: n.Or) -> Found | None:
        probes: list[Probe] = []
        exact = True
        structures: set[str] = set()
        for operand in node.operands:
            found = self.condition(operand)
            if found is None:
                return None
            probes.extend(found[0])
            exact = exact and found[1]
            structures.add(found[2])
        structure = structures.pop() if len(structures) == 1 else "OR of " + ", ".join(
            sorted(structures))
        return tuple(dict.fromkeys(probes)), exact, structure

    def why(self, tree: n.Expr) -> str:
        """Why no conjunct of `tree` keys it, in a few words (grouped by explain())."""
        if isinstance(tree, n.Or):
            return "OR with a branch that has no key"
        if isinstance(tree, n.Not):
            return "NOT"
        if isinstance(tree, n.And):
            return "AND without a keyable conjunct"
        if isinstance(tree, n.Compare):
            if tree.op == "<>":
                return "<>"
            if not any(isinstance(s, n.Ident) for s in (tree.left, tree.right)) or all(
                isinstance(s, n.Ident) for s in (tree.left, tree.right)
            ):
                return "comparison of two expressions"
            return f"{self.model.value}: comparison not keyed ({tree.op})"
        return f"{type(tree).__name__} condition"


def _better(a: Found, b: Found) -> bool:
    ra, rb = _RANK.get(a[2], 9), _RANK.get(b[2], 9)
    if ra != rb:
        return ra < rb
    if a[1] != b[1]:
        return a[1]
    return len(a[0]) < len(b[0])


def sides_of(node: n.Compare) -> tuple[str, str, n.Expr, bool] | None:
    """(op, ident, literal, literal_first) for `ident op literal` or `literal op ident`."""
    left, right = node.left, node.right
    if isinstance(left, n.Ident) and isinstance(right, _LITERALS):
        return node.op, left.name, right, False
    if isinstance(right, n.Ident) and isinstance(left, _LITERALS) and node.op in _FLIP:
        return _FLIP[node.op], right.name, left, True
    return None


class _JmsPlanner(Planner):
    def compare(self, node: n.Compare) -> Found | None:
        sides = sides_of(node)
        if sides is None:
            return None
        op, ident, lit, _ = sides
        if op == "=":
            keyed = c.jms_literal(lit)
            if keyed is None:
                return None
            return (Eq(ident, keyed[0]),), keyed[1], "equality"
        if op in ("<", "<=", ">", ">="):
            bound = c.jms_bound(lit)
            if bound is None:
                return None
            if op in (">", ">="):
                return (Range(ident, bound, math.inf),), False, "range"
            return (Range(ident, -math.inf, bound),), False, "range"
        return None

    def between(self, node: n.Between) -> Found | None:
        if not isinstance(node.operand, n.Ident):
            return None
        low, high = c.jms_bound(node.low), c.jms_bound(node.high)
        if low is None or high is None:
            return None
        return (Range(node.operand.name, low, high),), False, "range"

    def like(self, node: n.Like) -> Found | None:
        if not isinstance(node.operand, n.Ident):
            return None
        prefix = like_prefix(node.pattern, node.escape)
        if not prefix:
            return None
        return (Prefix(node.operand.name, prefix),), False, "prefix"

    def ident(self, node: n.Ident) -> Found | None:
        # J39: a bare identifier is TRUE only when its value is the boolean TRUE.
        return (Eq(node.name, c.TRUE_KEY),), True, "equality"

    def condition(self, node: n.Expr) -> Found | None:
        found = super().condition(node)
        if found is None:
            found = self.not_null(node)
        return found

    def not_null(self, node: n.Expr) -> Found | None:
        """A JMS predicate over identifiers, literals and arithmetic is TRUE or FALSE only
        when none of its identifiers is NULL (J24-J37: NULL makes it UNKNOWN, and
        arithmetic on NULL is NULL), so `a <> 5`, `a NOT IN (...)`, `a > b`, and NOT of
        such a predicate key as `IS NOT NULL` of one identifier (of BETWEEN's operand)."""
        if isinstance(node, n.Not):
            node = node.operand
            if isinstance(node, n.Ident):
                return (Present(node.name),), False, "IS NOT NULL"
            if isinstance(node, n.IsNull) and not node.negated:
                return self.is_not_null(n.IsNull(True, node.operand))
        if not isinstance(node, n.Compare | n.In | n.Like | n.Between):
            return None
        names: list[str] = []
        # [NOT] BETWEEN is two comparisons joined by AND (OR when negated): a NULL bound
        # leaves the other comparison to decide, so only the operand must be present.
        stack: list[n.Expr] = (
            [node.operand] if isinstance(node, n.Between) else list(n.children(node))
        )
        while stack:
            current = stack.pop()
            if isinstance(current, n.Ident):
                names.append(current.name)
            elif isinstance(current, n.Negate | n.Arith):
                stack.extend(n.children(current))
            elif not isinstance(current, n.StringLit | n.ExactLit | n.ApproxLit | n.BoolLit):
                return None
        if not names:
            return None
        return (Present(min(names)),), False, "IS NOT NULL"


class _RocketMQPlanner(Planner):
    def compare(self, node: n.Compare) -> Found | None:
        sides = sides_of(node)
        if sides is None or sides[0] != "=":
            return None
        _, ident, lit, literal_first = sides
        keyed = c.rocketmq_literal(lit)
        if keyed is None:
            return None
        # With the literal first the broker converts the other way (and a Boolean
        # literal meeting a string throws): keep the key, let the evaluator decide.
        return (Eq(ident, keyed[0], keyed[1]),), not literal_first, "equality"

    def disjunction(self, node: n.Or) -> Found | None:
        found = super().disjunction(node)
        if found is None or not found[1]:
            return found
        # A failed number conversion in any branch aborts the whole evaluation (the
        # message is not delivered), even when another branch is TRUE: a hit on one
        # branch proves nothing while a branch converts the message's string.
        if any(_converts(p) for p in found[0]):
            return found[0], False, found[2]
        return found

    def string_test(self, node: n.StringTest) -> Found | None:
        if node.op != "STARTSWITH" or not node.value or not isinstance(node.operand, n.Ident):
            return None
        return (Prefix(node.operand.name, node.value),), False, "prefix"


def _converts(probe: Probe) -> bool:
    """Whether a RocketMQ probe stands for a comparison that may throw on a message value
    (Integer/Long/Double.valueOf of a string; Boolean.valueOf never throws)."""
    kinds = probe.kinds if isinstance(probe, Compound) else (
        (probe.kind,) if isinstance(probe, Eq) else ())
    return any(k in (c.INTEGER, c.DOUBLE) for k in kinds)


class _ActiveMQPlanner(Planner):
    exact_strings = False

    def compare(self, node: n.Compare) -> Found | None:
        sides = sides_of(node)
        if sides is None or sides[0] != "=" or sides[3] or not isinstance(sides[2], n.StringLit):
            return None
        return (Eq(sides[1], sides[2].value),), False, "equality"


class _QpidPlanner(_ActiveMQPlanner):
    """ActiveMQ's keys (Qpid's `=` and IN are TRUE only for the same String, and AND/OR
    are TRUE exactly when JMS's are), except on the names Qpid resolves itself: a header
    it defaults, aliases or renders (JMSDeliveryMode) is not the message value a probe
    would look up."""

    def compare(self, node: n.Compare) -> Found | None:
        found = super().compare(node)
        return None if found is None or _qpid_resolves(found[0]) else found

    def in_list(self, node: n.In) -> Found | None:
        found = super().in_list(node)
        return None if found is None or _qpid_resolves(found[0]) else found

    def is_not_null(self, node: n.IsNull) -> Found | None:
        found = super().is_not_null(node)
        return None if found is None or _qpid_resolves(found[0]) else found


def _qpid_resolves(probes: tuple[Probe, ...]) -> bool:
    return any(isinstance(p, Eq | Present) and p.ident in qpid.RESOLVED for p in probes)
class _ArtemisPlanner(_ActiveMQPlanner):
    """ActiveMQ's rules; but a header identifier (AMQPriority, ...) reads a field that a
    message may hold under its JMS name (semantics.artemis.prop), which a lookup by the
    identifier's name would miss: no conjunct on one is a key."""

    def condition(self, node: n.Expr) -> Found | None:
        operands = (node,) if isinstance(node, n.Ident) else (
            () if isinstance(node, n.And | n.Or) else n.children(node))
        if any(isinstance(o, n.Ident) and o.name in artemis.HEADER_NAMES for o in operands):
            return None
        return super().condition(node)


PLANNERS: dict[ValueModel, type[Planner]] = {
    ValueModel.JMS: _JmsPlanner,
    ValueModel.ROCKETMQ: _RocketMQPlanner,
    ValueModel.ACTIVEMQ: _ActiveMQPlanner,
    ValueModel.QPID: _QpidPlanner,
    ValueModel.ARTEMIS: _ArtemisPlanner,
}


def like_prefix(pattern: str, escape: str | None) -> str:
    """The literal text every match of a LIKE pattern starts with: the characters before
    the first wildcard or escape, cut before any surrogate (Java matches UTF-16 units,
    which a Python prefix test would not see the same way)."""
    out = []
    for ch in pattern:
        if ch in ("%", "_") or ch == escape or "\ud800" <= ch <= "\udfff":
            break
        out.append(ch)
    return "".join(out)
