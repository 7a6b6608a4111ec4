"""Planning by shape: the OR branches of a filter found without building its tree.

A broker's subscriptions are a few dozen shapes with different constants, and a filter
compiled from its shape's template (`msgfilter.shapes`) builds its tree only when asked.
Which conjuncts make up each OR branch depends on the shape alone (node kinds, operators,
identifiers), not on the literal values: the first filter of a shape is split into
branches from its tree, and each conjunct is recorded as the template's program step it
stands on (or a NOT, AND or OR that pushing NOTs down made around such steps). A later
filter of the shape rebuilds only those conjuncts from its own literals
(`Template.subtree`), and the planner's per-conjunct rules run on them as on any tree.
Everything a value decides (keys, bounds, exactness, dropping a conjunct a value makes
unkeyable) is still decided per filter, by the same rules. The recipe is kept on the
template (`Template.recipe`), so it goes when the shape cache drops the template.

What the planner makes of one conjunct depends only on the conjunct's node, which is
the template's program run on the literal values that conjunct reads: a recipe keeps the
planner's answer for the last `MEMO_SIZE` (conjunct, values) pairs it met, so that the
many filters of a shape that share a value in one conjunct (`region = 'eu'`, the same IN
list) neither rebuild that node nor plan it again, and share the atoms it made.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..selector import SelectorFilter
from ..shapes.analysis import steps
from ..shapes.cache import template_of
from ..shapes.template import NODE, NODES, SLOT, SLOTS, Template
from ..syntax import nodes as n

#: A conjunct: ("step", i) is the node of program step i; ("not", c), ("and", (c, ...)),
#: ("or", (c, ...)) a node made around others while pushing NOTs down.
Conjunct = tuple[Any, ...]
Branches = list[list[n.Expr]]
#: The planner a recipe was recorded for: its branches are that planner's.
Split = Callable[[n.Expr], Branches]
#: What the planner makes of one conjunct (`clauses`' parts).
P = TypeVar("P")
#: At most this many (conjunct, values) answers a recipe keeps; then it starts afresh.
MEMO_SIZE = 4096
#: A recipe keeps answers once its shape has served this many filters.
MEMO_AFTER = 32
_MISSING = object()


class Recipe:
    """The branches of every filter of one shape, as conjuncts of its template."""

    __slots__ = ("branches", "facts", "memo", "slots", "split", "uses")

    def __init__(self, split: Split, branches: tuple[tuple[Conjunct, ...], ...] | None,
                 slots: tuple[tuple[tuple[int, ...], ...], ...]) -> None:
        self.split = split
        #: None where a conjunct could not be recorded: such a shape is planned from trees.
        self.branches = branches
        #: The literal slots each conjunct of `branches` reads (same layout).
        self.slots = slots
        #: (conjunct, its values) -> what the planner made of it, bounded by `MEMO_SIZE`;
        #: made once the shape has served `MEMO_AFTER` filters (most shapes of a broker
        #: serve a handful, and an empty memo would cost each of them bytes for nothing).
        self.memo: dict[tuple[Any, ...], Any] | None = None
        self.uses = 0
        #: Answers about whole filters of the shape, by what of their literals each
        #: depends on (`remembered`), bounded by `MEMO_SIZE`.
        self.facts: dict[tuple[Any, ...], Any] = {}

    def parts_of(self, template: Template, values: Sequence[Any],
                 part: Callable[[n.Expr], P]) -> list[list[P]]:
        """`part` of each conjunct of each branch of the filter of `template`'s shape
        whose literals are `values`."""
        assert self.branches is not None
        memo = self.memo
        if memo is None:
            # Two threads may both count or make it: a lost count or memo costs a plan.
            self.uses += 1
            if self.uses >= MEMO_AFTER:
                memo = self.memo = {}
        built: dict[int, n.Expr] = {}
        subtree = template.subtree

        def make(conjunct: Conjunct) -> n.Expr:
            kind, arg = conjunct
            if kind == "step":
                node = built.get(arg)
                if node is None:
                    node = built[arg] = subtree(arg, values)
                return node
            if kind == "not":
                return n.Not(make(arg))
            parts = tuple(make(c) for c in arg)
            return n.And(parts) if kind == "and" else n.Or(parts)

        out: list[list[P]] = []
        if memo is None:
            return [[part(make(c)) for c in branch] for branch in self.branches]
        for branch, branch_slots in zip(self.branches, self.slots, strict=True):
            row: list[P] = []
            for conjunct, used in zip(branch, branch_slots, strict=True):
                key = (conjunct, *[_value_key(values[s]) for s in used])
                found = memo.get(key, _MISSING)
                if found is _MISSING:
                    found = part(make(conjunct))
                    if len(memo) >= MEMO_SIZE:
                        memo.clear()
                    memo[key] = found
                row.append(found)
            out.append(row)
        return out


def parts(f: SelectorFilter, split: Split, part: Callable[[n.Expr], P]) -> list[list[P]]:
    """`part` of each conjunct of each OR branch of `f` as `split` makes them of its tree,
    from the recipe of its shape where there is one; `f.tree` must not be None."""
    template = template_of(f.shape)
    recipe = None if template is None else template.recipe
    if isinstance(recipe, Recipe) and recipe.split == split and recipe.branches is not None:
        assert template is not None
        return recipe.parts_of(template, f.literals, part)
    tree = f.tree
    assert tree is not None
    found = split(tree)
    if template is not None and recipe is None:
        recorded = _record(tree, found)
        template.recipe = Recipe(split, recorded, _slots(template, recorded))
    return [[part(node) for node in branch] for branch in found]


def remembered(f: SelectorFilter, key: tuple[Any, ...], compute: Callable[[], P]) -> P:
    """`compute()` of `f`, kept on its shape's recipe under `key`, which must hold all
    that the answer depends on beyond the shape (the other filters of the shape then
    neither build their trees nor compute it again)."""
    template = template_of(f.shape)
    recipe = None if template is None else template.recipe
    if not isinstance(recipe, Recipe):
        return compute()
    facts = recipe.facts
    found = facts.get(key, _MISSING)
    if found is _MISSING:
        found = compute()
        if len(facts) >= MEMO_SIZE:
            facts.clear()
        facts[key] = found
    return found  # type: ignore[no-any-return]


def _value_key(value: Any) -> Any:
    # A literal as its node compares: -0.0 is not 0.0 (a slot's type is the shape's).
    if type(value) is float and value == 0.0 and math.copysign(1.0, value) < 0:
        return ("-0.0",)
    return value


def _slots(template: Template, recorded: tuple[tuple[Conjunct, ...], ...] | None
           ) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The literal slots each recorded conjunct's node is made of."""
    if recorded is None:
        return ()
    program = template.program

    def of_step(step: int, out: list[int]) -> None:
        for code, arg in program[step][1]:
            if code == SLOT:
                out.append(arg)
            elif code == SLOTS:
                out.extend(arg)
            elif code == NODE:
                of_step(arg, out)
            elif code == NODES:
                for i in arg:
                    of_step(i, out)

    def of(conjunct: Conjunct, out: list[int]) -> None:
        kind, arg = conjunct
        if kind == "step":
            of_step(arg, out)
        elif kind == "not":
            of(arg, out)
        else:
            for c in arg:
                of(c, out)

    def used(conjunct: Conjunct) -> tuple[int, ...]:
        out: list[int] = []
        of(conjunct, out)
        return tuple(out)

    return tuple(tuple(used(c) for c in branch) for branch in recorded)


def _record(tree: n.Expr, found: Branches) -> tuple[tuple[Conjunct, ...], ...] | None:
    step_of = steps(tree)

    def conjunct(node: n.Expr) -> Conjunct | None:
        step = step_of.get(id(node))
        if step is not None:
            return ("step", step)
        if isinstance(node, n.Not):
            inner = conjunct(node.operand)
            return None if inner is None else ("not", inner)
        if isinstance(node, n.And | n.Or):
            parts = [conjunct(o) for o in node.operands]
            if any(p is None for p in parts):
                return None
            return ("and" if isinstance(node, n.And) else "or", tuple(parts))
        return None

    recorded: list[tuple[Conjunct, ...]] = []
    for branch in found:
        parts = [conjunct(node) for node in branch]
        if any(p is None for p in parts):
            return None
        recorded.append(tuple(p for p in parts if p is not None))
    return tuple(recorded)


__all__ = ["MEMO_AFTER", "MEMO_SIZE", "Recipe", "parts", "remembered"]
