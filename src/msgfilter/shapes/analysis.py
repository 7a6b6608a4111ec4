"""The first text of a shape, analysed: where each literal value of its checked tree comes
from (which literal token, through which folded signs), the program that rebuilds the tree,
and the checker's value rules as checks of slots, recorded as the shape's `Template`."""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from ..semantics.check import pattern_check
from ..semantics.model import ValueModel
from ..syntax import nodes as n
from ..syntax.grammar import Grammar
from ..syntax.lexer import Lexed
from .shape import Shape
from .template import (
    DECODERS,
    FIXED,
    NODE,
    NODES,
    SLOT,
    SLOTS,
    Ref,
    Step,
    Template,
    final,
)


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    return bool(a == b)


_LITERAL_NODES = {n.StringLit: "STRING", n.ExactLit: "EXACT", n.ApproxLit: "APPROX"}
#: Node classes with fields holding literal values, and those fields.
_VALUE_FIELDS: dict[type, frozenset[str]] = {
    n.StringLit: frozenset({"value"}), n.ExactLit: frozenset({"value"}),
    n.ApproxLit: frozenset({"value"}), n.In: frozenset({"items"}),
    n.Like: frozenset({"pattern", "escape"}), n.StringTest: frozenset({"value"}),
    n.XQuery: frozenset({"query"}),
}


class Analysis(NamedTuple):
    """What the first text of a shape tells about every text of it."""

    literals: tuple[Any, ...]
    template: Template | None
    refs: dict[int, Ref]


def analyse(
    shape: Shape, lexed: Lexed, tree: n.Expr | None, grammar: Grammar, model: ValueModel,
    convert: bool, identifiers: frozenset[str],
) -> Analysis:
    """The literals of a compiled text and, where every literal value in its checked
    tree can be placed in a slot, the template of its shape (whose filters read
    `identifiers`)."""
    kinds, starts, ends = lexed.kinds, lexed.starts, lexed.ends
    slot_of: dict[int, int] = {}
    for index, kind in enumerate(kinds):
        if kind in DECODERS:
            slot_of[index] = len(slot_of)
    decoders = tuple(DECODERS[kinds[i]] for i in slot_of)
    raw = [decode(text) for decode, text in zip(decoders, lexed.lits, strict=True)]
    if tree is None:
        return Analysis(tuple(raw), None, {})
    values = list(raw)
    folds: list[tuple[int, int, bool]] = []
    placed = _place(tree, kinds, starts, ends, slot_of, values, folds, grammar)
    if placed is None:
        return Analysis(tuple(raw), None, {})
    program, refs, checks, order = placed
    checks.extend(_value_checks(order, refs, grammar, model))
    template = Template(
        shape, grammar, model, convert, decoders, tuple(folds), tuple(checks),
        tuple(program), identifiers,
    )
    return Analysis(tuple(values), template, refs)


def steps(tree: n.Expr) -> dict[int, int]:
    """The program step of each node (by `id`) of a tree of a template's shape."""
    return {id(node): step for step, node in enumerate(_postorder(tree))}


def _postorder(tree: n.Expr) -> list[n.Expr]:
    order: list[n.Expr] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(n.children(node))
    order.reverse()
    return order


def _place(
    tree: n.Expr, kinds: list[str], starts: list[int], ends: list[int],
    slot_of: dict[int, int], values: list[Any], folds: list[tuple[int, int, bool]],
    grammar: Grammar,
) -> tuple[list[Step], dict[int, Ref], list[tuple[Any, ...]], list[n.Expr]] | None:
    start_at = {s: i for i, s in enumerate(starts)}
    end_at = {e: i for i, e in enumerate(ends)}
    position: dict[int, int] = {}
    program: list[Step] = []
    refs: dict[int, Ref] = {}
    checks: list[tuple[Any, ...]] = []

    def slot(token: int, kind: str) -> int | None:
        return slot_of.get(token) if 0 <= token < len(kinds) and kinds[token] == kind else None

    order = _postorder(tree)
    for node in order:
        first, last = start_at.get(node.span[0]), end_at.get(node.span[1])
        if first is None or last is None or id(node) in position:
            return None
        cls = type(node)
        value_fields = _VALUE_FIELDS.get(cls, frozenset())
        args: list[tuple[int, Any]] = []
        pattern: int | None = None
        for name in _positional(cls):
            value = getattr(node, name)
            if name in value_fields:
                placed = _place_value(node, name, first, last, kinds, start_at, end_at, slot)
                if placed is None:
                    return None
                code, arg, ref = placed
                if code == SLOT and isinstance(node, n.ExactLit | n.ApproxLit) and first != last:
                    # Signs folded into the literal (only where the dialect folds them).
                    between = kinds[first:last]
                    if not grammar.fold_negation or any(
                        k not in ("MINUS", "PLUS", "LPAR") for k in between
                    ):
                        return None
                    odd = between.count("MINUS") % 2
                    exact = isinstance(node, n.ExactLit)
                    folds.append((arg, odd, exact))
                    values[arg] = final(values[arg], odd, exact)
                got = values[arg] if code == SLOT else (
                    tuple(values[i] for i in arg) if code == SLOTS else None
                )
                if not _same(got, value):
                    return None
                args.append((code, arg))
                if ref is not None:
                    refs[id(node)] = ref
            elif isinstance(value, n.Node):
                if id(value) not in position:
                    return None
                args.append((NODE, position[id(value)]))
            elif isinstance(value, tuple) and value and isinstance(value[0], n.Node):
                if any(id(v) not in position for v in value):
                    return None
                args.append((NODES, tuple(position[id(v)] for v in value)))
            else:
                args.append((FIXED, value))
        if isinstance(node, n.Like):
            pattern = start_at.get(node.pattern_at)
            if pattern is None:
                return None
            if node.escape is not None:
                checks.append(("escape", _escape_slot(node, pattern, slot), grammar.escape_utf16))
        position[id(node)] = len(program)
        program.append((cls, tuple(args), first, last, node.depth, pattern))
    return program, refs, checks, order


_POSITIONAL: dict[type, tuple[str, ...]] = {}


def _positional(cls: type) -> tuple[str, ...]:
    """The fields a node class takes positionally (dataclasses.fields() is slow)."""
    names = _POSITIONAL.get(cls)
    if names is None:
        names = _POSITIONAL[cls] = tuple(
            f.name for f in dataclasses.fields(cls) if not f.kw_only
        )
    return names


def _escape_slot(node: n.Like, pattern: int, slot: Callable[[int, str], int | None]) -> int:
    found = slot(pattern + 2, "STRING")
    assert found is not None  # _place_value placed it already
    return found


def _place_value(
    node: n.Node, name: str, first: int, last: int, kinds: list[str],
    start_at: dict[int, int], end_at: dict[int, int],
    slot: Callable[[int, str], int | None],
) -> tuple[int, Any, Ref | None] | None:
    """(code, arg) of a field holding literal values, and the node's ref for the
    generator (on the field that carries it)."""
    if isinstance(node, n.In):
        operand_end = end_at.get(node.operand.span[1])
        if operand_end is None:
            return None
        items = [i for i in range(operand_end + 1, last) if kinds[i] == "STRING"]
        slots = [slot(i, "STRING") for i in items]
        if any(s is None for s in slots):
            return None
        placed = tuple(s for s in slots if s is not None)
        return SLOTS, placed, ("items", placed)
    if isinstance(node, n.Like):
        pattern_token = start_at.get(node.pattern_at)
        if pattern_token is None:
            return None
        pattern = slot(pattern_token, "STRING")
        escape = None
        if node.escape is not None:
            if pattern_token + 1 >= len(kinds) or kinds[pattern_token + 1] != "ESCAPE":
                return None
            escape = slot(pattern_token + 2, "STRING")
            if escape is None:
                return None
        if pattern is None:
            return None
        ref = ("like", pattern, escape)
        if name == "pattern":
            return SLOT, pattern, ref
        if escape is None:
            return FIXED, None, None
        return SLOT, escape, None
    kind = _LITERAL_NODES.get(type(node), "STRING")
    found = slot(last, kind)
    if found is None:
        return None
    return SLOT, found, ("slot", found)


def _value_checks(
    order: list[n.Expr], refs: dict[int, Ref], grammar: Grammar, model: ValueModel
) -> list[tuple[Any, ...]]:
    """The checker's rules that look at literal values (`semantics.check`), as checks of
    slots; the builder's one (ESCAPE's length) comes from `_place`."""
    checks: list[tuple[Any, ...]] = []
    regex = pattern_check(grammar, model)
    for node in order:
        ref = refs.get(id(node))
        if isinstance(node, n.ExactLit) and grammar.max_exact is not None and ref:
            checks.append(("max", ref[1], grammar.max_exact))
        elif isinstance(node, n.ApproxLit) and grammar.finite_literals and ref:
            checks.append(("finite", ref[1]))
        elif isinstance(node, n.Between) and grammar.between_bounds_check and not node.negated:
            low, high = refs.get(id(node.low)), refs.get(id(node.high))
            numeric = (n.ExactLit, n.ApproxLit)
            if isinstance(node.low, numeric) and isinstance(node.high, numeric) and low and high:
                checks.append(("order", low[1], high[1]))
        elif isinstance(node, n.Like) and regex is not None and ref:
            checks.append(("pattern", regex, ref[1], ref[2]))
    return checks
