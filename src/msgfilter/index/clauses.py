"""Clause plans: every keyable conjunct of a selector, per OR branch, for the index.

A filter's plan is a list of clauses such that the filter can be TRUE for a message only
when every keyed part of one clause holds: an OR becomes its branches (an AND of ORs is
distributed, up to `MAX_CLAUSES`), and each clause keeps ALL of its conjuncts that a
look-up can test, not only the most selective one:

- `Atom`: a hashed condition on one identifier: equality or IN (its keys), a prefix
  (`LIKE 'p%'`, `STARTSWITH`), or presence (`IS NOT NULL`, or in `jms` the presence a
  predicate needs to be TRUE at all).
- `Bound`: a numeric interval of one identifier in double space, inclusive, with strict
  comparisons moved to the next double so that the interval says exactly what the
  comparison says (`jms` only; a bound that cannot be exact is kept wide).

A clause is `exact` when its atoms and bounds are the whole branch and each says exactly
what its conjunct says: a hit then proves the filter TRUE and the evaluator is skipped.
Anything else a clause holds (NOT, `<>`, arithmetic, ...) leaves it inexact: a hit makes
the filter a candidate, verified by its compiled `matches`. A RocketMQ OR's exact hit
holds for a message only where no comparison the broker meets first throws: the plan's
`guards` name those (`throws`), and the look-up verifies the hit where one fails. The key
forms of values are `canonical`'s; the per-conjunct rules of each model are `keys`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ..amqp.properties import Affix, PropertyFilter
from ..amqp.sql import AmqpSqlFilter
from ..filter import Filter
from ..message import KEYS_PROPERTY, TAGS_PROPERTY
from ..selector import SelectorFilter
from ..semantics.model import JAVA_TYPED, ValueModel
from ..syntax import nodes as n
from ..tags import PulsarTagFilter, RocketMQTagFilter
from . import canonical as c
from . import shape_plans, throws
from .bounds import (
    HIGH_ELSE,
    LOW_ELSE,
    Bound,
    jms_bound,
    rocketmq_bound,
)
from .keys import (
    PLANNERS,
    AnyTag,
    Eq,
    Found,
    Planner,
    Prefix,
    Present,
    Range,
    Tag,
    like_prefix,
    sides_of,
)

#: At most this many clauses come of distributing an AND over its ORs; beyond, an OR
#: inside an AND is left to the evaluator (its clause keeps the AND's other conjuncts).
MAX_CLAUSES = 16
#: An IN list (or several) expands to at most this many hashed keys per clause; beyond,
#: the longest lists are left to the evaluator.
MAX_COMBINATIONS = 64

EQ, PREFIX, PRESENT, NE, NOT_EQ = "eq", "prefix", "present", "ne", "not-eq"
#: Atoms whose keys a message's value strikes out.
_STRUCK = (NE, NOT_EQ)

class Atom(NamedTuple):
    """A hashed condition on `ident`: `kind` eq (value has one of `keys`, of RocketMQ
    kinds `kinds`), prefix (its text starts with `keys[0]`), present (`keys` empty), ne
    (a string other than each of `keys`) or not-eq (a value whose text, if it has one,
    is none of `keys`); the last two are filed as present, their keys struck out after
    the look-up."""

    ident: str
    kind: str
    keys: tuple[object, ...]
    kinds: tuple[str, ...] = ()


class Clause(NamedTuple):
    """One OR branch: every atom and bound must hold; `exact` when that is the branch.
    (Named tuples rather than frozen dataclasses: a plan makes several per filter, and
    building them is most of what planning a known shape costs.)"""

    atoms: tuple[Atom, ...]
    bounds: tuple[Bound, ...]
    exact: bool

    @property
    def signature(self) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
        """Which identifiers it is filed on, and how: clauses alike share one table."""
        return tuple((a.ident, a.kind) for a in self.atoms), tuple(b.ident for b in self.bounds)


#: One empty set for every plan without guards (each `frozenset()` call makes another).
_NO_GUARDS: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ClausePlan:
    """How the index finds a filter: by `clauses` (any one hit makes it a candidate),
    by `tags` (RocketMQ / Pulsar tag look-ups, exact when `tags_exact`), or by neither:
    checked for every message (`everything`; with `exact`, it matches every message),
    or never (`never`)."""

    clauses: tuple[Clause, ...] = ()
    tags: tuple[Tag | AnyTag, ...] = ()
    tags_exact: bool = False
    everything: bool = False
    exact: bool = False
    never: bool = False
    #: Why the filter is checked for every message, or what still needs verifying.
    reason: str = ""
    #: RocketMQ: the values (`bounds`' marked names) whose failed conversion makes a
    #: hit on an exact clause need verifying for that message (`throws.guard`).
    guards: frozenset[str] = _NO_GUARDS


def plan_clauses(f: Filter) -> ClausePlan:
    """The clause plan of a compiled filter."""
    if isinstance(f, RocketMQTagFilter):
        if f.subscribe_all:
            return ClausePlan(
                everything=True, exact=True, reason="rocketmq-tag '*' (every message)")
        if not f.tags:
            return ClausePlan(never=True, reason="rocketmq-tag with no tag (no message)")
        return ClausePlan(tags=tuple(Tag(t) for t in f.ordered_tags), tags_exact=True)
    if isinstance(f, PulsarTagFilter):
        if not f.any_tags and not f.all_tags:
            return ClausePlan(
                everything=True, exact=True, reason="pulsar-tag without tags (every message)")
        if f.all_tags:
            first = f.ordered_all_tags[0]
            exact = len(f.all_tags) == 1 and (not f.any_tags or first in f.any_tags)
            return ClausePlan(tags=(AnyTag(first),), tags_exact=exact,
                              reason="" if exact else "pulsar alltag: the other tags")
        return ClausePlan(tags=tuple(AnyTag(t) for t in f.ordered_any_tags), tags_exact=True)
    if isinstance(f, PropertyFilter):
        return _property_plan(f)
    if isinstance(f, AmqpSqlFilter):
        tree = f.tree
        return _plan_branches(lambda: tree, f.model, lambda split, part: [
            [part(node) for node in branch] for branch in split(tree)], lambda: None)
    if not isinstance(f, SelectorFilter):
        return ClausePlan(everything=True, reason="not a selector or tag filter")
    if f.empty:
        return ClausePlan(everything=True, exact=True,
                          reason="empty selector (matches every message)")
    if f.model in JAVA_TYPED and f.convert_strings:
        return ClausePlan(everything=True, reason=f"{f.model.value} convert_string_expressions")
    # The tree only where needed: a known shape's branches and guard come without it.
    return _plan_branches(
        lambda: f.tree, f.model, lambda split, part: shape_plans.parts(f, split, part),
        lambda: shape_plans.remembered(f, ("guard", *throws.literal_classes(f.literals)),
                                       lambda: _guard(f.tree)))


#: What the planner makes of one conjunct: its atoms and bounds (None: it keys nothing),
#: whether they say exactly what it says, and if not, why.
Part = tuple[tuple["Atom | Bound", ...] | None, bool, str]
#: The parts of each OR branch of a selector, given the planner's split and part.
PartsOf = Callable[[shape_plans.Split, Callable[[n.Expr], Part]], list[list[Part]]]


def _plan_branches(tree_of: Callable[[], n.Expr | None], model: ValueModel,
                   parts_of: PartsOf, guard_of: Callable[[], frozenset[str] | None]
                   ) -> ClausePlan:
    """The plan of a selector of `model` from the parts of its OR branches (`parts_of`
    splits it by the planner's rule; a known shape's come from its recipe; `tree_of` its
    tree; `guard_of` its `throws.guard`, rocketmq only)."""
    planner = _planner(model)
    if planner is None:
        return ClausePlan(everything=True, reason=f"{model.value}: no index rules")
    clauses: list[Clause] = []
    reasons: set[str] = set()
    for parts in parts_of(planner.branches, planner.part):
        clause, why = planner.clause(parts)
        if clause is None:
            tree = tree_of()
            assert tree is not None  # not empty
            return ClausePlan(everything=True, reason=planner.legacy.why(tree))
        clauses.append(clause)
        if why:
            reasons.add(why)
    guards = _NO_GUARDS
    if model is ValueModel.ROCKETMQ and len(clauses) > 1 and any(cl.exact for cl in clauses):
        # A failed number conversion the broker meets before a TRUE branch aborts its
        # whole evaluation: a hit proves the filter TRUE only for a message whose values
        # there convert (`throws.guard`), which the look-up checks.
        found = guard_of()
        if found is None:
            clauses = [Clause(cl.atoms, cl.bounds, False) for cl in clauses]
            reasons.add("rocketmq OR: a comparison that may always throw")
        else:
            guards = found
    if model is ValueModel.AMQP and len(clauses) > 1 and _has_arith(tree_of()):
        # A float beyond the double range fails RabbitMQ's whole evaluation (badarith),
        # whichever branch it is in: a hit on one branch proves nothing.
        clauses = [Clause(cl.atoms, cl.bounds, False) for cl in clauses]
        reasons.add("amqp OR with arithmetic")
    unique = tuple(dict.fromkeys(clauses))
    if len(unique) > 1 and any(a.kind in _STRUCK for cl in unique for a in cl.atoms):
        # A message's excluded value strikes out the filter, not one of its clauses: an
        # OR keeps `<>` as presence only, and is verified.
        unique = tuple(dict.fromkeys(Clause(tuple(
            Atom(a.ident, PRESENT, ()) if a.kind in _STRUCK else a for a in cl.atoms),
            cl.bounds, cl.exact and not any(a.kind in _STRUCK for a in cl.atoms))
            for cl in unique))
        reasons.add("<> in an OR")
    if not any(cl.exact for cl in unique):
        guards = _NO_GUARDS
    return ClausePlan(clauses=unique, reason=", ".join(sorted(reasons)), guards=guards)


def _property_plan(f: PropertyFilter) -> ClausePlan:
    """An AMQP property filter's one clause: each application property entry as a key
    (an exact value: its `amqp_key`; `&p:text`: the prefix's bytes; null or `&s:`: the
    property's presence, which `&s:` narrows further). Properties-field entries read the
    message's fields, which the index does not look up: the evaluator checks them."""
    atoms: list[Atom] = []
    exact = not f.properties
    whys = [] if exact else ["amqp property filter: properties fields"]
    for name, reference in f.application_properties:
        if name in _TABLE_FALLBACKS:
            # A table's tag and keys columns answer for these names (`Layout`), which a
            # message's application properties do not hold.
            exact = False
            whys.append("amqp property filter: TAGS or KEYS")
            continue
        if reference is None:
            atoms.append(Atom(name, PRESENT, ()))
        elif isinstance(reference, Affix):
            if reference.prefix and reference.text:
                atoms.append(Atom(name, PREFIX, (reference.text,)))
                continue
            atoms.append(Atom(name, PRESENT, ()))
            exact = False
            whys.append("amqp property filter: &s: suffix or empty &p:")
        else:
            key = c.amqp_key(reference)
            if key is None:  # pragma: no cover - references are AMQP values
                exact = False
                continue
            atoms.append(Atom(name, EQ, (key,)))
    if not atoms:
        return ClausePlan(everything=True, reason="amqp property filter without"
                          " application properties")
    order = {EQ: 0, PREFIX: 1, PRESENT: 2}
    atoms.sort(key=lambda a: (order[a.kind], a.ident))
    return ClausePlan(clauses=(Clause(tuple(atoms), (), exact),),
                      reason=", ".join(dict.fromkeys(whys)))


_TABLE_FALLBACKS = frozenset({TAGS_PROPERTY, KEYS_PROPERTY})
_planners: dict[ValueModel, _ClausePlanner] = {}


def _planner(model: ValueModel) -> _ClausePlanner | None:
    """The (stateless) clause planner of a model, made once."""
    found = _planners.get(model)
    if found is None:
        kind = PLANNERS.get(model)
        if kind is None:
            return None
        found = _planners[model] = _ClausePlanner(kind(model), model)
    return found


def _guard(tree: n.Expr | None) -> frozenset[str] | None:
    return None if tree is None else throws.guard(tree)


def _has_arith(tree: n.Expr | None) -> bool:
    stack = [] if tree is None else [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Arith):
            return True
        stack.extend(n.children(node))
    return False


class _ClausePlanner:
    """Turns a checked tree into clauses with the per-conjunct rules of one model (the
    legacy planner's, with exact numeric bounds and prefixes in `jms`)."""

    def __init__(self, legacy: Planner, model: ValueModel) -> None:
        self.legacy = legacy
        self.model = model
        self.jms = model is ValueModel.JMS
        self.rocketmq = model is ValueModel.ROCKETMQ

    # -- disjunctive normal form, bounded ---------------------------------------------------

    def branches(self, tree: n.Expr) -> list[list[n.Expr]]:
        """The OR branches of `tree`, each a list of conjuncts."""
        if isinstance(tree, n.Or):
            out: list[list[n.Expr]] = []
            for operand in tree.operands:
                out.extend(self.branches(operand))
                if len(out) > MAX_CLAUSES:
                    return [[tree]]
            return out
        if isinstance(tree, n.And):
            if not any(isinstance(o, n.Or | n.And) for o in tree.operands):
                # Most selectors: a plain AND of predicates, nothing to distribute.
                return [list(tree.operands)]
            product: list[list[n.Expr]] = [[]]
            for operand in tree.operands:
                parts: list[list[n.Expr]] = self.branches(operand) \
                    if isinstance(operand, n.Or | n.And) else [[operand]]
                if len(product) * len(parts) > MAX_CLAUSES:
                    # Too many: keep this operand whole (the evaluator's part).
                    parts = [[operand]]
                product = [p + q for p in product for q in parts]
            return product
        if self.jms and isinstance(tree, n.Not) and isinstance(tree.operand, n.Or | n.And):
            # De Morgan holds in three-valued logic: NOT (A OR B) is TRUE exactly when
            # NOT A and NOT B are; each pushed-down NOT is then keyed (and exact) or not
            # on its own.
            inner = tree.operand
            negated: list[n.Expr] = [n.Not(o, span=o.span) for o in inner.operands]
            pushed: n.Expr = n.And(tuple(negated), span=inner.span) if isinstance(inner, n.Or) \
                else n.Or(tuple(negated), span=inner.span)
            return self.branches(pushed)
        return [[tree]]

    # -- one clause -------------------------------------------------------------------------

    def part(self, node: n.Expr) -> Part:
        """What one conjunct contributes to its clause (see `Part`)."""
        found = self.conjunct(node)
        if found is None:
            return None, False, self.legacy.why(node)
        items, exact = found
        if exact:
            return tuple(items), True, ""
        why = "rocketmq: a bound at 0, infinity or beyond 2**53" if self.rocketmq and all(
            type(i) is Bound for i in items) else self.legacy.why(node)
        return tuple(items), False, why

    def clause(self, parts: list[Part]) -> tuple[Clause | None, str]:
        """The clause of one branch from its conjuncts' parts (None: no conjunct keys
        it), and why it is inexact."""
        eqs: dict[str, Atom] = {}
        prefixes: dict[str, Atom] = {}
        present: dict[str, Atom] = {}
        unequal: dict[str, Atom] = {}
        bounds: dict[str, Bound] = {}
        exact = True
        why = ""
        for items, part_exact, part_why in parts:
            if items is None:
                exact, why = False, why or part_why
                continue
            if not part_exact and exact:
                exact, why = False, part_why
            for item in items:
                if type(item) is Bound:
                    seen = bounds.get(item.ident)
                    bounds[item.ident] = item if seen is None else Bound(
                        item.ident, max(seen.low, item.low), min(seen.high, item.high))
                    continue
                assert type(item) is Atom
                if item.kind in _STRUCK:
                    seen_ne = unequal.get(item.ident)
                    if seen_ne is not None and seen_ne.kind != item.kind:
                        exact, why = False, why or "two conditions on one name"
                        continue
                    unequal[item.ident] = item if seen_ne is None else Atom(
                        item.ident, item.kind, (*seen_ne.keys, *item.keys))
                    continue
                table = eqs if item.kind == EQ else prefixes if item.kind == PREFIX \
                    else present
                if item.ident in table:
                    if table is not present:
                        # Two conditions of a kind on one name: keep the first, check
                        # the rest.
                        exact, why = False, why or "two conditions on one name"
                    continue
                table[item.ident] = item
        if len(eqs) > 1 or any(len(a.keys) > MAX_COMBINATIONS for a in eqs.values()):
            # An IN list expands to its keys; a product beyond the bound drops the longest.
            while eqs and math.prod(len(a.keys) for a in eqs.values()) > MAX_COMBINATIONS:
                longest = max(eqs, key=lambda i: (len(eqs[i].keys), i))
                del eqs[longest]
                exact, why = False, why or "IN lists beyond the expansion bound"
        atoms = [eqs[i] for i in sorted(eqs)]
        if prefixes:
            atoms.extend(prefixes[i] for i in sorted(prefixes))
        if unequal:
            # Beside an equality or prefix on the name, `<>` is left to the evaluator.
            for i in sorted(unequal):
                if i in eqs or i in prefixes:
                    exact, why = False, why or "two conditions on one name"
                else:
                    atoms.append(unequal[i])
        if present:
            # Presence adds nothing beside another condition on the same name.
            atoms.extend(present[i] for i in sorted(present) if i not in eqs
                         and i not in prefixes and i not in bounds and i not in unequal)
        ranges = tuple(bounds[i] for i in sorted(bounds)) if bounds else ()
        if not atoms and not ranges:
            return None, why
        return Clause(tuple(atoms), ranges, exact), why

    def conjunct(self, node: n.Expr) -> tuple[list[Atom | Bound], bool] | None:
        """What one conjunct contributes, and whether that is exactly the conjunct."""
        if self.jms:
            found = self._jms(node)
            if found is not None:
                return found
        elif self.model is ValueModel.ROCKETMQ:
            if isinstance(node, n.StringTest) and node.op == "STARTSWITH" and node.value \
                    and not node.negated and isinstance(node.operand, n.Ident):
                # TRUE exactly when the property's string (as the prefix look-up reads
                # it, `canonical.rocketmq_text`) starts with the non-empty text.
                return [Atom(node.operand.name, PREFIX, (node.value,))], True
            if isinstance(node, n.Compare) and node.op == "<>" and isinstance(
                    node.left, n.Ident) and isinstance(node.right, n.StringLit):
                # `prop <> 'text'` is TRUE for a present property whose string (as
                # `canonical.rocketmq_text` reads it; a value of no Java type has none)
                # is not the text. (With the literal first, an absent property is TRUE
                # too: not keyed.)
                return [Atom(node.left.name, NOT_EQ, (node.right.value,))], True
            bounded = self._rocketmq_bounds(node)
            if bounded is not None:
                return bounded
        legacy = self.legacy.condition(node) if not isinstance(node, n.And | n.Or) else None
        if legacy is None:
            return None
        return _from_probes(legacy)

    def _rocketmq_bounds(self, node: n.Expr) -> tuple[list[Atom | Bound], bool] | None:
        """A RocketMQ comparison of a property with a number is TRUE only when the
        property's string converts to the literal's Java type (`Integer`, `Long`,
        `Double`.valueOf) and compares so: a bound on the value read that way (the
        bound's name says how). A failed conversion makes the broker throw: no number,
        no hit, as the evaluator's FALSE. Exact where the double interval says what the
        Java comparison says (see `bounds.rocketmq_bound`)."""
        if isinstance(node, n.Compare) and node.op in _ORDERINGS:
            found = sides_of(node)
            bound = None if found is None else rocketmq_bound(found[0], found[2])
            if found is None or bound is None:
                return None
            name, low, high, exact = bound
            return [Bound(name + found[1], low, high)], exact
        if isinstance(node, n.Between) and not node.negated and isinstance(node.operand, n.Ident):
            lower = rocketmq_bound(">=", node.low)
            upper = rocketmq_bound("<=", node.high)
            if lower is None or upper is None:
                return None
            ident = node.operand.name
            exact = lower[3] and upper[3]
            if lower[0] == upper[0]:
                return [Bound(lower[0] + ident, lower[1], upper[2])], exact
            return [Bound(lower[0] + ident, lower[1], lower[2]),
                    Bound(upper[0] + ident, upper[1], upper[2])], exact
        return None

    def _jms_not(self, node: n.Compare) -> tuple[list[Atom | Bound], bool] | None:
        """NOT of a JMS comparison with a literal: TRUE exactly when the comparison is
        FALSE, which it is for any present value of another type (and NaN), not only
        for a number outside it."""
        found = sides_of(node)
        if found is None:
            return None
        op, ident, lit, _ = found
        if op == "=":
            if not isinstance(lit, n.StringLit):
                return None
            return [Atom(ident, NOT_EQ, (lit.value,))], True
        if op not in _ORDERINGS:
            return None
        # NOT (x > 3) is x <= 3 with non-numbers at -inf; NOT (x < 3) is x >= 3 with
        # them at +inf.
        inverse = _COMPLEMENT[op]
        bound = jms_bound(inverse, lit)
        if bound is None:
            return None
        low, high, exact = bound
        mark = LOW_ELSE if inverse in ("<", "<=") else HIGH_ELSE
        return [Bound(mark + ident, low, high)], exact

    def _jms(self, node: n.Expr) -> tuple[list[Atom | Bound], bool] | None:
        if isinstance(node, n.In):
            if node.negated or not isinstance(node.operand, n.Ident) or not node.items:
                return None
            return [Atom(node.operand.name, EQ, tuple(dict.fromkeys(node.items)))], True
        if isinstance(node, n.Compare) and node.op == "=":
            found = sides_of(node)
            keyed = None if found is None else c.jms_literal(found[2])
            if found is None or keyed is None:
                return None
            return [Atom(found[1], EQ, (keyed[0],))], keyed[1]
        if isinstance(node, n.Not) and isinstance(node.operand, n.Compare):
            return self._jms_not(node.operand)
        if isinstance(node, n.Compare) and node.op == "<>":
            # J-rules: `<>` of a string literal is TRUE exactly for a string value other
            # than the literal (NULL and other types: not TRUE).
            found = sides_of(node)
            if found is None or not isinstance(found[2], n.StringLit):
                return None
            return [Atom(found[1], NE, (found[2].value,))], True
        if isinstance(node, n.Compare) and node.op in _ORDERINGS:
            sides = sides_of(node)
            if sides is None:
                return None
            op, ident, lit, _ = sides
            bound = jms_bound(op, lit)
            if bound is None:
                return None
            low, high, exact = bound
            return [Bound(ident, low, high)], exact
        if isinstance(node, n.Between) and not node.negated and isinstance(node.operand, n.Ident):
            lower = jms_bound(">=", node.low)
            upper = jms_bound("<=", node.high)
            if lower is None or upper is None:
                return None
            return [Bound(node.operand.name, lower[0], upper[1])], lower[2] and upper[2]
        if isinstance(node, n.Like) and not node.negated and isinstance(node.operand, n.Ident):
            prefix = like_prefix(node.pattern, node.escape)
            if not prefix:
                return None
            exact = node.pattern == prefix + "%"
            return [Atom(node.operand.name, PREFIX, (prefix,))], exact
        if isinstance(node, n.IsNull) and node.negated and isinstance(node.operand, n.Ident):
            # J37: IS NOT NULL is TRUE exactly when the message holds a value.
            return [Atom(node.operand.name, PRESENT, ())], True
        return None


def _from_probes(found: Found) -> tuple[list[Atom | Bound], bool]:
    """A legacy planner's probes for one conjunct as atoms: its equalities on one name
    as one atom (an IN's keys), a wide range as a bound."""
    probes, exact, _ = found
    out: list[Atom | Bound] = []
    eqs: dict[str, list[Eq]] = {}
    for probe in probes:
        if isinstance(probe, Eq):
            eqs.setdefault(probe.ident, []).append(probe)
        elif isinstance(probe, Prefix):
            out.append(Atom(probe.ident, PREFIX, (probe.prefix,)))
        elif isinstance(probe, Present):
            out.append(Atom(probe.ident, PRESENT, ()))
        elif isinstance(probe, Range):
            out.append(Bound(probe.ident, probe.low, probe.high))
        else:  # pragma: no cover - a conjunct's probes are of these kinds
            return [], False
    if len(eqs) > 1:  # pragma: no cover - one conjunct keys one name
        return [], False
    for ident, found_eqs in eqs.items():
        out.append(Atom(ident, EQ, tuple(p.key for p in found_eqs),
                        tuple(p.kind for p in found_eqs)))
    return out, exact


_ORDERINGS = ("<", "<=", ">", ">=")
#: The ordering that is TRUE of a number exactly where the other is FALSE.
_COMPLEMENT = {">": "<=", ">=": "<", "<": ">=", "<=": ">"}


__all__ = [
    "EQ", "NE", "NOT_EQ", "PREFIX", "PRESENT", "Atom", "Clause", "ClausePlan", "plan_clauses",
]
