"""A template: what every text of one shape shares, and how a new text of the shape is
replayed through it (its literals decoded, signs folded, value rules checked as checks of
slots, a code variant chosen, the tree rebuilt from the recorded program)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from ..java import utf16_length, wrap
from ..semantics.activemq_like import PatternError
from ..semantics.model import ValueModel
from ..syntax import nodes as n
from ..syntax.builder import decode_exact
from ..syntax.grammar import Grammar
from .shape import Shape

#: Where a template finds a node's literal values in a text's slot values: ("slot", s),
#: ("items", (s, ...)) for IN, ("like", pattern slot, escape slot or None).
Ref = tuple[Any, ...]


def _string(text: str) -> str:
    return text[1:-1].replace("''", "'")


DECODERS: dict[str, Callable[[str], Any]] = {
    "STRING": _string, "EXACT": decode_exact, "APPROX": float,
}



class Variant(NamedTuple):
    """One code object of a template, right for values that classify as `classes`."""

    bind: Callable[..., Any]
    source: str
    consts: tuple[object, ...]
    recipes: tuple[tuple[int, Any, Callable[[Any], Any] | None], ...]
    classes: tuple[tuple[Any, Callable[[Any], Any], object], ...]
    careful: int | None


class Template:
    """What every text of one shape shares."""

    __slots__ = (
        "checks", "convert", "decoders", "folds", "grammar", "identifiers", "model",
        "program", "recipe", "shape", "statics", "variants",
    )

    def __init__(
        self, shape: Shape, grammar: Grammar, model: ValueModel, convert: bool,
        decoders: tuple[Callable[[str], Any], ...], folds: tuple[tuple[int, int, bool], ...],
        checks: tuple[tuple[Any, ...], ...], program: tuple[Step, ...],
        identifiers: frozenset[str],
    ) -> None:
        self.shape, self.grammar, self.model, self.convert = shape, grammar, model, convert
        self.decoders, self.folds, self.checks = decoders, folds, checks
        self.program, self.identifiers = program, identifiers
        #: Replaced whole (never mutated), so readers need no lock.
        self.variants: tuple[Variant, ...] = ()
        #: What the index learned of planning this shape (`index.shape_plans`); it lives
        #: and goes with the template. Set once, read without a lock.
        self.recipe: object = None
        #: The nodes of `subtree` that hold no literal value, made once (nodes are
        #: immutable, so every text of the shape shares them).
        self.statics: dict[int, n.Expr] | None = None

    def values(self, lits: Sequence[str]) -> list[Any] | None:
        """The checked literal values of a text of this shape, or None where a value rule
        refuses one (the whole pipeline then says which, and where)."""
        # Inline for the common forms: a call per literal is much of the cost here.
        values = [
            (text[1:-1] if "''" not in text else text[1:-1].replace("''", "'"))
            if decode is _string
            else int(text) if decode is decode_exact and text.isdigit() and text[0] != "0"
            else decode(text)
            for decode, text in zip(self.decoders, lits, strict=True)
        ]
        for slot, odd, exact in self.folds:
            values[slot] = final(values[slot], odd, exact)
        for check in self.checks:
            if not _passes(check, values):
                return None
        return values

    def variant(self, values: Sequence[Any]) -> Variant | None:
        for variant in self.variants:
            if not variant.classes:
                return variant
            if all(
                classifier(payload(ref, values)) == result
                for ref, classifier, result in variant.classes
            ):
                return variant
        return None

    def tree(self, values: Sequence[Any], starts: Sequence[int], ends: Sequence[int]) -> n.Expr:
        """The checked tree of a text of this shape (its values, its token offsets)."""
        built: list[n.Expr] = []
        for cls, args, first, last, depth, pattern in self.program:
            made = [
                arg if code == FIXED
                else built[arg] if code == NODE
                else tuple(built[i] for i in arg) if code == NODES
                else values[arg] if code == SLOT
                else tuple(values[i] for i in arg)
                for code, arg in args
            ]
            extra = {} if pattern is None else {"pattern_at": starts[pattern]}
            built.append(cls(*made, span=(starts[first], ends[last]), depth=depth, **extra))
        return built[-1]

    def subtree(self, step: int, values: Sequence[Any]) -> n.Expr:
        """The node of program `step` and its sub-expressions for a text of this shape's
        `values`, without source positions: what a planner reads of one conjunct (the
        index plans a known shape this way, never building the whole tree)."""
        statics = self.statics
        if statics is None:
            statics = self.statics = self._statics()
        node = statics.get(step)
        if node is not None:
            return node
        cls, args, _, _, depth, _ = self.program[step]
        made = [
            arg if code == FIXED
            else self.subtree(arg, values) if code == NODE
            else tuple(self.subtree(i, values) for i in arg) if code == NODES
            else values[arg] if code == SLOT
            else tuple(values[i] for i in arg)
            for code, arg in args
        ]
        made_node: n.Expr = cls(*made, depth=depth)
        return made_node

    def _statics(self) -> dict[int, n.Expr]:
        statics: dict[int, n.Expr] = {}
        for step, (cls, args, _, _, depth, _) in enumerate(self.program):
            if all(code == FIXED or (code == NODE and arg in statics)
                   or (code == NODES and all(i in statics for i in arg))
                   for code, arg in args):
                statics[step] = cls(*[
                    arg if code == FIXED else statics[arg] if code == NODE
                    else tuple(statics[i] for i in arg) for code, arg in args
                ], depth=depth)
        return statics


# A program step: (node class, positional args as (code, arg), first token, last token,
# depth, pattern token of a LIKE or None).
Step = tuple[type, tuple[tuple[int, Any], ...], int, int, int, int | None]
FIXED, NODE, NODES, SLOT, SLOTS = range(5)


def final(value: Any, odd: int, exact: bool) -> Any:
    """A literal's value after the signs folded into it (`semantics.fold`)."""
    if exact:
        return wrap(-value if odd else value)
    return -value if odd else value


def payload(ref: Ref, values: Sequence[Any]) -> Any:
    tag = ref[0]
    if tag == "slot":
        return values[ref[1]]
    if tag == "items":
        return tuple(values[i] for i in ref[1])
    return (values[ref[1]], None if ref[2] is None else values[ref[2]])


def _passes(check: tuple[Any, ...], values: Sequence[Any]) -> bool:
    tag = check[0]
    if tag == "max":
        return bool(values[check[1]] <= check[2])
    if tag == "finite":
        return not math.isinf(values[check[1]])
    if tag == "order":
        return not values[check[1]] > values[check[2]]
    if tag == "escape":
        escape = values[check[1]]
        return (utf16_length(escape) if check[2] else len(escape)) == 1
    # "pattern": the broker compiles the LIKE pattern into a regex when it parses.
    try:
        check[1](values[check[2]], None if check[3] is None else values[check[3]])
    except PatternError:
        return False
    return True
