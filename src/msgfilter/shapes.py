"""Compile by shape: selectors that differ only in their literal values share one checked
template and one generated `matches` code object.

A broker's subscriptions are a few dozen shapes with different constants
(`tenant = 't17' AND price > 120.5`). The shape of a text is its dialect, switches and
limits, the kind of each token, and the name of each identifier; its literals (string,
exact and approximate) are the slots. A text of a known shape pays for lexing, decoding
its literals, the static checks that depend on literal values, and binding the shared
code to its own constants; parsing, checking the tree, generating source and Python's
`compile` were paid once, by the first text of that shape.

Every value rule stays where it lives; this module only records, on the first text, where
each rule looked at a literal value, and replays that on the next:

- the checker's value rules (a long beyond the range, an infinite double, RocketMQ's
  BETWEEN bounds, a LIKE pattern the broker's regex refuses, an ESCAPE of one character)
  become checks on the slots (`_checks`). A text that fails one is compiled by the whole
  pipeline, which raises the error as it always does (message, offset, kind);
- JMS's signed literals fold as `semantics.fold` folds them (`_final`);
- the generator marks each constant it takes from a literal value (`Generator.lit`) and
  each choice of code it makes on one (`Generator.classify`: an exact literal within
  2**53, the kind of a LIKE pattern). A text whose values choose otherwise gets code of
  its own, kept as another variant of the template;
- the tree is rebuilt only when asked for (`SelectorFilter.tree`), from a program
  recorded on the first text, with the spans of the new text.

Anything the recording cannot place (a node whose span is not made of tokens, a literal
value reaching the code through a node it does not know) leaves the shape unshared: such
texts take the whole pipeline. The templates live in a bounded LRU (`SHAPE_CACHE_SIZE`),
behind a lock.
"""

from __future__ import annotations

import dataclasses
import math
import struct
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from cachetools import LRUCache

from .backends.python.compiler import Careful, generate_shared
from .backends.python.runtime import RUNTIME
from .java import utf16_length, wrap
from .limits import DEFAULT_LIMITS, Limits
from .semantics.activemq_like import PatternError
from .semantics.check import pattern_check
from .semantics.model import ValueModel
from .syntax import nodes as n
from .syntax.builder import decode_exact
from .syntax.grammar import Grammar
from .syntax.lexer import LITERAL_CODES, Lexed

#: Templates kept (most recently used). A template holds a checked tree, a rebuild
#: program and up to `MAX_VARIANTS` code objects: about 2 KB each (tracemalloc). A
#: broker's selectors vary in operators, identifiers and signs as well as values, so
#: 100 000 threshold alerts hold several thousand shapes: a bound below that makes
#: every compile a miss, dearer than no cache at all.
SHAPE_CACHE_SIZE = 16384
#: Code variants kept per shape (texts whose values choose different code).
MAX_VARIANTS = 8

#: Where a template finds a node's literal values in a text's slot values: ("slot", s),
#: ("items", (s, ...)) for IN, ("like", pattern slot, escape slot or None).
Ref = tuple[Any, ...]


class Shape:
    """The shape of a selector: what two texts share when they differ only in the values
    of their literals. Hashable; equal for equal shapes; one object per cached template."""

    __slots__ = ("_hash", "dialect", "key")

    def __init__(self, dialect: str, key: tuple[Any, ...]) -> None:
        object.__setattr__(self, "dialect", dialect)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "_hash", hash(key))

    dialect: str
    key: tuple[Any, ...]
    _hash: int

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Shape is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Shape):
            return NotImplemented
        return self is other or (self._hash == other._hash and self.key == other.key)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (Shape, (self.dialect, self.key))

    @property
    def slots(self) -> int:
        """How many literals a text of this shape holds."""
        codes: tuple[str, ...] = self.key[1]
        return sum(1 for code in codes if code in LITERAL_CODES)

    def __repr__(self) -> str:
        return f"Shape({self.dialect!r}, {len(self.key[1])} tokens, {self.slots} slots)"


def _string(text: str) -> str:
    return text[1:-1].replace("''", "'")


_DECODERS: dict[str, Callable[[str], Any]] = {
    "STRING": _string, "EXACT": decode_exact, "APPROX": float,
}


def shape_key(
    dialect: str, flags: tuple[bool, bool], limits: Limits, lexed: Lexed
) -> tuple[Any, ...]:
    """What a text's shape is made of: the dialect and its switches for this text
    (ActiveMQ's and Artemis's prefixes), the limits the parser reads, and each token's code
    (`Lexed.codes`: a keyword, an operator, an identifier's text, a literal's kind)."""
    # Of the limits, those the parser reads: the length is checked on each text.
    bounds = None if limits is DEFAULT_LIMITS else (limits.max_depth, limits.max_in_items)
    if bounds == _DEFAULT_BOUNDS:
        bounds = None
    return ((dialect, flags, bounds), tuple(lexed.codes))


_DEFAULT_BOUNDS = (DEFAULT_LIMITS.max_depth, DEFAULT_LIMITS.max_in_items)


class _Variant(NamedTuple):
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
        "program", "recipe", "shape", "variants",
    )

    def __init__(
        self, shape: Shape, grammar: Grammar, model: ValueModel, convert: bool,
        decoders: tuple[Callable[[str], Any], ...], folds: tuple[tuple[int, int, bool], ...],
        checks: tuple[tuple[Any, ...], ...], program: tuple[_Step, ...],
        identifiers: frozenset[str],
    ) -> None:
        self.shape, self.grammar, self.model, self.convert = shape, grammar, model, convert
        self.decoders, self.folds, self.checks = decoders, folds, checks
        self.program, self.identifiers = program, identifiers
        #: Replaced whole (never mutated), so readers need no lock.
        self.variants: tuple[_Variant, ...] = ()
        #: What the index learned of planning this shape (`index.shape_plans`); it lives
        #: and goes with the template. Set once, read without a lock.
        self.recipe: object = None

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
            values[slot] = _final(values[slot], odd, exact)
        for check in self.checks:
            if not _passes(check, values):
                return None
        return values

    def variant(self, values: Sequence[Any]) -> _Variant | None:
        for variant in self.variants:
            if not variant.classes:
                return variant
            if all(
                classifier(_payload(ref, values)) == result
                for ref, classifier, result in variant.classes
            ):
                return variant
        return None

    def tree(self, values: Sequence[Any], starts: Sequence[int], ends: Sequence[int]) -> n.Expr:
        """The checked tree of a text of this shape (its values, its token offsets)."""
        built: list[n.Expr] = []
        for cls, args, first, last, depth, pattern in self.program:
            made = [
                arg if code == _FIXED
                else built[arg] if code == _NODE
                else tuple(built[i] for i in arg) if code == _NODES
                else values[arg] if code == _SLOT
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
        cls, args, _, _, depth, _ = self.program[step]
        made = [
            arg if code == _FIXED
            else self.subtree(arg, values) if code == _NODE
            else tuple(self.subtree(i, values) for i in arg) if code == _NODES
            else values[arg] if code == _SLOT
            else tuple(values[i] for i in arg)
            for code, arg in args
        ]
        node: n.Expr = cls(*made, depth=depth)
        return node


def steps(tree: n.Expr) -> dict[int, int]:
    """The program step of each node (by `id`) of a tree of a template's shape."""
    return {id(node): step for step, node in enumerate(_postorder(tree))}


# A program step: (node class, positional args as (code, arg), first token, last token,
# depth, pattern token of a LIKE or None).
_Step = tuple[type, tuple[tuple[int, Any], ...], int, int, int, int | None]
_FIXED, _NODE, _NODES, _SLOT, _SLOTS = range(5)


def _final(value: Any, odd: int, exact: bool) -> Any:
    """A literal's value after the signs folded into it (`semantics.fold`)."""
    if exact:
        return wrap(-value if odd else value)
    return -value if odd else value


def _payload(ref: Ref, values: Sequence[Any]) -> Any:
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
    convert: bool,
) -> Analysis:
    """The literals of a compiled text and, where every literal value in its checked
    tree can be placed in a slot, the template of its shape."""
    kinds, starts, ends = lexed.kinds, lexed.starts, lexed.ends
    slot_of: dict[int, int] = {}
    for index, kind in enumerate(kinds):
        if kind in _DECODERS:
            slot_of[index] = len(slot_of)
    decoders = tuple(_DECODERS[kinds[i]] for i in slot_of)
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
        tuple(program), n.identifiers(tree),
    )
    return Analysis(tuple(values), template, refs)


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
) -> tuple[list[_Step], dict[int, Ref], list[tuple[Any, ...]], list[n.Expr]] | None:
    start_at = {s: i for i, s in enumerate(starts)}
    end_at = {e: i for i, e in enumerate(ends)}
    position: dict[int, int] = {}
    program: list[_Step] = []
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
                if code == _SLOT and isinstance(node, n.ExactLit | n.ApproxLit) and first != last:
                    # Signs folded into the literal (only where the dialect folds them).
                    between = kinds[first:last]
                    if not grammar.fold_negation or any(
                        k not in ("MINUS", "PLUS", "LPAR") for k in between
                    ):
                        return None
                    odd = between.count("MINUS") % 2
                    exact = isinstance(node, n.ExactLit)
                    folds.append((arg, odd, exact))
                    values[arg] = _final(values[arg], odd, exact)
                got = values[arg] if code == _SLOT else (
                    tuple(values[i] for i in arg) if code == _SLOTS else None
                )
                if not _same(got, value):
                    return None
                args.append((code, arg))
                if ref is not None:
                    refs[id(node)] = ref
            elif isinstance(value, n.Node):
                if id(value) not in position:
                    return None
                args.append((_NODE, position[id(value)]))
            elif isinstance(value, tuple) and value and isinstance(value[0], n.Node):
                if any(id(v) not in position for v in value):
                    return None
                args.append((_NODES, tuple(position[id(v)] for v in value)))
            else:
                args.append((_FIXED, value))
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
        return _SLOTS, placed, ("items", placed)
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
            return _SLOT, pattern, ref
        if escape is None:
            return _FIXED, None, None
        return _SLOT, escape, None
    kind = _LITERAL_NODES.get(type(node), "STRING")
    found = slot(last, kind)
    if found is None:
        return None
    return _SLOT, found, ("slot", found)


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


# -- the cache --------------------------------------------------------------------------

_templates: LRUCache[tuple[Any, ...], Template] = LRUCache(maxsize=SHAPE_CACHE_SIZE)
_lock = threading.Lock()
_hits = 0
_misses = 0


class ShapeCacheInfo(NamedTuple):
    hits: int
    misses: int
    maxsize: int
    currsize: int


def lookup(key: tuple[Any, ...]) -> Template | None:
    global _hits, _misses
    with _lock:
        try:
            template: Template = _templates[key]
        except KeyError:
            _misses += 1
            return None
        _hits += 1
    return template


def template_of(shape: Shape) -> Template | None:
    """The cached template of `shape` (the very object a filter of it was made from), or
    None; unlike `lookup`, not counted as a compile's hit or miss."""
    with _lock:
        template = _templates.get(shape.key)
    return template if template is not None and template.shape is shape else None


def shape_of(key: tuple[Any, ...], dialect: str) -> Shape:
    """The cached template's shape object for `key`, else a new one."""
    with _lock:
        template = _templates.get(key)
    return template.shape if template is not None else Shape(dialect, key)


def learn(analysis: Analysis, tree: n.Expr) -> tuple[Callable[..., Any], str] | None:
    """Keep the analysed template (or add a variant to the one cached for its shape) and
    return the `matches` of `tree` made from the shared code, and its source; None where
    the code cannot be shared (the caller then generates it as for any filter)."""
    template = analysis.template
    if template is None:
        return None
    shared = generate_shared(tree, template.model, template.convert, analysis.refs)
    if shared.unshared:
        return None
    namespace: dict[str, Any] = dict(RUNTIME)
    exec(compile(shared.source, "<msgfilter>", "exec"), namespace)  # our text only
    variant = _Variant(
        namespace["_bind"], shared.source, shared.consts, shared.recipes, shared.classes,
        shared.careful,
    )
    with _lock:
        cached = _templates.get(template.shape.key)
        if cached is None:
            template.variants = (variant,)
            _templates[template.shape.key] = template
        elif len(cached.variants) < MAX_VARIANTS:
            cached.variants = (*cached.variants, variant)
    matches: Callable[..., Any] = variant.bind(*shared.consts)
    return matches, shared.source


def bind(
    template: Template, variant: _Variant, values: Sequence[Any],
    tree: Callable[[], n.Expr],
) -> Callable[..., Any]:
    """The shared code bound to the constants of a text's `values`."""
    consts = list(variant.consts)
    for index, ref, transform in variant.recipes:
        value = values[ref[1]] if ref[0] == "slot" else _payload(ref, values)
        consts[index] = value if transform is None else transform(value)
    if variant.careful is not None:
        consts[variant.careful] = Careful(tree, template.model, "truth", template.convert)
    matches: Callable[..., Any] = variant.bind(*consts)
    return matches


def cache_info() -> ShapeCacheInfo:
    """Hits, misses, capacity and current size of the shape cache."""
    with _lock:
        return ShapeCacheInfo(_hits, _misses, int(_templates.maxsize), int(_templates.currsize))


def purge() -> None:
    """Empty the shape cache: the next text of each shape takes the whole pipeline
    (filters already compiled stay valid)."""
    global _hits, _misses
    with _lock:
        _templates.clear()
        _hits = _misses = 0
