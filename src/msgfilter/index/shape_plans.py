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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..selector import SelectorFilter
from ..shapes.analysis import steps
from ..shapes.cache import template_of
from ..shapes.template import Template
from ..syntax import nodes as n

#: A conjunct: ("step", i) is the node of program step i; ("not", c), ("and", (c, ...)),
#: ("or", (c, ...)) a node made around others while pushing NOTs down.
Conjunct = tuple[Any, ...]
Branches = list[list[n.Expr]]
#: The planner a recipe was recorded for: its branches are that planner's.
Split = Callable[[n.Expr], Branches]


class Recipe(NamedTuple):
    """The branches of every filter of one shape, as conjuncts of its template."""

    split: Split
    #: None where a conjunct could not be recorded: such a shape is planned from trees.
    branches: tuple[tuple[Conjunct, ...], ...] | None

    def branches_of(self, template: Template, values: Sequence[Any]) -> Branches:
        """The branches of the filter of `template`'s shape whose literals are `values`."""
        assert self.branches is not None
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

        return [[make(c) for c in branch] for branch in self.branches]


def branches(f: SelectorFilter, split: Split) -> Branches:
    """The OR branches of `f` (each a list of conjuncts) as `split` makes them of its tree,
    from the recipe of its shape where there is one; `f.tree` must not be None."""
    template = template_of(f.shape)
    recipe = None if template is None else template.recipe
    if isinstance(recipe, Recipe) and recipe.split == split and recipe.branches is not None:
        assert template is not None
        return recipe.branches_of(template, f.literals)
    tree = f.tree
    assert tree is not None
    found = split(tree)
    if template is not None and recipe is None:
        template.recipe = Recipe(split, _record(tree, found))
    return found


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


__all__ = ["Recipe", "branches"]
