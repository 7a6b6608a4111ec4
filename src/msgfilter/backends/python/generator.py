"""The generator: one evaluator's source, its constants table and its temporaries, with
dispatch on node class through the handler table of a value model (`tables`).

Handlers are functions `(generator, node) -> source text` per mode: `truth` is an
expression truthy exactly when the condition is TRUE, `falsity` exactly when it is FALSE,
`tri` yields True/False/None, `value` an operand's value (None = NULL).
"""

from __future__ import annotations

import functools
import struct
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...semantics.like import compile_like
from ...syntax import nodes as n

# Subtrees this tall go into a function of their own: CPython refuses source nested
# more than 200 parentheses deep, and a selector may nest 256 levels.
_SPLIT_HEIGHT = 24

#: An inline test as a function of an operand's first and later spellings.
Template = Callable[[str, str], str]


@dataclass
class _Scope:
    """One generated function: the identifiers it loads up front, and how a typed
    evaluator spells a message's properties and headers there."""

    idents: dict[str, str] = field(default_factory=dict)
    #: `P` and `H`: parameters of a typed function; in a batch function's loop, the
    #: message's own dicts, read where a typed read needs them (most reads never do).
    props: str = "P"
    heads: str = "H"


class Generator:
    """Generates the source of one evaluator: its functions, constants and temporaries."""

    def __init__(
        self,
        handlers: Mapping[type[n.Node], Handlers],
        convert_strings: bool = False,
        optimistic: bool = False,
        typed: TypedReads | None = None,
        batch: bool = False,
        lean_reads: bool = False,
        refs: Mapping[int, object] | None = None,
    ) -> None:
        #: Read identifiers through a typed-property reader (see `TypedReads`) instead of
        #: `m.get`: each read where evaluation reaches it, never loaded up front.
        self.typed = typed
        #: With `typed`: read inline through the memo, testing no classes (odd data
        #: raises, and the function hands the message to a fallback generated without
        #: this, which reads every name through `R.read`).
        self.lean_reads = lean_reads
        #: Test equality before the value's class (one operation when values differ, the
        #: common case). An odd value's __eq__ may then run and raise: such a function
        #: hands the message to a fallback generated without this shortcut.
        self.optimistic = optimistic
        self.used_optimistic = False
        self.convert_strings = convert_strings
        self.handlers = handlers
        self.consts: list[object] = []
        self.const_index: dict[object, str] = {}
        self.temps = 0
        self.subs: list[str] = []
        # A batch function's loop reads each message `m`; its split-off parts take P, H.
        self.scope = _Scope(props="m.property_dict", heads="m.header_dict") if batch else _Scope()
        self.uses: dict[str, int] = {}
        #: For a generation shared by shape (`msgfilter.shapes`): id of a node holding
        #: literal values -> where a text of the same shape keeps them. The generated code
        #: then depends on literal values only through `lit` and `classify`, which record
        #: each use so that another text's constants and code choice can be re-derived.
        self.refs = refs
        #: (constant index, ref, transform) of each constant taken from a literal value.
        self.recipes: list[tuple[int, object, Callable[[Any], Any] | None]] = []
        #: (ref, classifier, result) of each choice the code made on a literal value.
        self.classes: list[tuple[object, Callable[[Any], Any], object]] = []
        #: A literal value was used from a node `refs` does not know: not shareable.
        self.unshared = False

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

    def lit(self, node: n.Node, transform: Callable[[Any], Any] | None = None) -> str:
        """A constant made from the literal value(s) of `node` (see `payload`), through
        `transform`. Never shared with an equal constant: which constants coincide would
        make the code depend on the values, and a text of the same shape must be able to
        reuse the code with its own."""
        value = payload(node)
        index = len(self.consts)
        self.consts.append(value if transform is None else transform(value))
        if self.refs is not None:
            ref = self.refs.get(id(node))
            if ref is None:
                self.unshared = True
            else:
                self.recipes.append((index, ref, transform))
        return f"K{index}"

    def classify(self, node: n.Node, classifier: Callable[[Any], Any]) -> Any:
        """`classifier` of the literal value(s) of `node`, for code that differs by it;
        recorded so that a text of the same shape reuses the code only if its values
        classify alike."""
        result = classifier(payload(node))
        if self.refs is not None:
            ref = self.refs.get(id(node))
            if ref is None:
                self.unshared = True
            else:
                self.classes.append((ref, classifier, result))
        return result

    def like(self, node: n.Like) -> str:
        return self.lit(node, _compile_like)

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

    def bound(self) -> str:
        """The constants and split-off parts made so far, as parameters with defaults:
        a function reads them as locals. (Closure variables would cost one cell object
        per constant and filter, 40 bytes and one more object for the cycle collector to
        walk, and read slower; the default parameters cost one tuple. Nothing calls the
        evaluators with more arguments than their message's.)"""
        names = [f"K{i}" for i in range(len(self.consts))]
        names.extend(f"_s{i}" for i in range(len(self.subs)))
        return "".join(f", {name}={name}" for name in names)

    def function(self, fname: str, body: str, default: str) -> str:
        if self.typed is not None:
            return self._typed_function(fname, body, default)
        loads = "".join(
            f"                {local} = m.get({self.const(name)})\n"
            for name, local in self.scope.idents.items()
        )
        # Dicts, other mappings and Message objects all have get(): the fast path reads
        # them directly. Anything else fails on get() and is read once more as the mapping
        # `_as_mapping` gives for it. Values beyond what a message should hold (a Python
        # int too large for a double) must not escape as exceptions either.
        # A loop, not a call of itself: a function cannot name itself without a closure.
        return (
            f"    def {fname}(m{self.bound()}):\n"
            f"        while True:\n"
            f"            try:\n"
            f"{loads}"
            f"                return {body}\n"
            f"            except Exception as _e:\n"
            f"                if _needs_mapping(m):\n"
            f"                    m = _as_mapping(m)\n"
            f"                    continue\n"
            f"                return {default}\n"
        )

    def batch_function(self, fname: str, body: str, default: str) -> str:
        """A typed evaluator over a sequence of `msgfilter.Message`: `fname(S, R, M)` is
        the list of what the single-message evaluator answers for each message of `S`,
        with the loop in the generated code (no call per message: this loop is what a
        broker's entry filter costs). It reads each message's dicts `view_dict`,
        `property_dict`, `header_dict` as `V`, `P`, `H`: `V` for each message, `P` and `H`
        only where a read needs them (a typed value, a derived header), since most reads do not."""
        assert self.typed is not None
        return (
            f"    def {fname}(S, R, M{self.bound()}):\n"
            f"        out = []\n"
            f"        append = out.append\n"
            f"        for m in S:\n"
            f"            V = m.view_dict\n"
            f"            try:\n"
            f"                append({body})\n"
            f"            except Exception as _e:\n"
            f"                append({default})\n"
            f"        return out\n"
        )

    def _typed_function(self, fname: str, body: str, default: str) -> str:
        # A split-off part lets a failed read propagate: the whole evaluation fails.
        if fname != "matches" and fname != "evaluate":
            return f"    def {fname}(V, P, H, R, M{self.bound()}):\n        return {body}\n"
        return (
            f"    def {fname}(V, P, H, R, M{self.bound()}):\n"
            f"        try:\n"
            f"            return {body}\n"
            f"        except Exception as _e:\n"
            f"            return {default}\n"
        )

    def typed_read(self, name: str) -> str:
        """The expression reading identifier `name` in a typed evaluator: `R.read` for
        the names the reader derives and in a careful evaluator (no `lean_reads`), else
        inline: without a companion in `V` (the common
        case), the value as `V` shows it; with one, `R.read` when a header of that name
        shadows the property, else the memo `M` by the companion's text then the value's,
        else `R.decode` (which fills the memo, reads a value that is not text as it is,
        or raises).

        The companion is first looked for in `V` (the dict about to be read, warm in the
        cache): a name absent from `V` is absent from `P` too, so a plain property costs
        two lookups in one dict. A typed read tests no classes: a companion that is not
        one of the memo's types (not text, or a type pulsar-jms does not write) raises
        KeyError or TypeError there, as does a companion shown only by a header, and the
        message goes to the careful evaluator."""
        typed = self.typed
        assert typed is not None
        # Interned, so that a lookup in a dict whose keys are interned too compares
        # pointers, not characters.
        k = self.const(sys.intern(name))
        props, heads = self.scope.props, self.scope.heads
        if name in typed.derived or not self.lean_reads:
            return f"R.read({props}, {heads}, {k})"
        kt = self.const(sys.intern(name + typed.suffix))
        miss = self.const(_MISS, ("typed-miss",))
        x, t, v = self.temp(), self.temp(), self.temp()
        return (
            f"(V.get({k}) if {kt} not in V else "
            f"R.read({props}, {heads}, {k}) if {k} in {heads} else "
            f"{v} if ({v} := M[({t} := {props}[{kt}])].get(({x} := V.get({k})), {miss})) "
            f"is not {miss} else R.decode({t}, {x}, {k}))"
        )

    def emit(self, mode: str, node: n.Expr) -> str:
        if node.depth >= _SPLIT_HEIGHT and node.depth % _SPLIT_HEIGHT == 0:
            return self._split(mode, node)
        handlers = self.handlers.get(type(node))
        if handlers is None:
            # Only a tree no grammar of this model builds gets here (Grammar.node_kinds).
            raise NotImplementedError(f"{type(node).__name__} is not part of this value model")
        return handlers[mode](self, node)

    def _split(self, mode: str, node: n.Expr) -> str:
        outer = self.scope
        self.scope = _Scope()
        body = self.handlers[type(node)]["value" if mode == "value" else "tri"](self, node)
        name = f"_s{len(self.subs)}"
        self.subs.append(self.function(name, body, "None"))
        self.scope = outer
        call = (
            f"{name}(V, {outer.props}, {outer.heads}, R, M)"
            if self.typed is not None
            else f"{name}(m)"
        )
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
            if self.typed is not None:
                tmp = self.temp()
                return f"({tmp} := {self.typed_read(node.name)})", tmp
            if self.uses.get(node.name, 0) > 1:
                local = self.ident(node.name)
                return local, local
            tmp = self.temp()
            return f"({tmp} := m.get({self.const(node.name)}))", tmp
        tmp = self.temp()
        return f"({tmp} := {self.value(node)})", tmp


@dataclass(frozen=True, slots=True)
class TypedReads:
    """The switches of a typed evaluator's code: names in `derived` always go through
    `R.read`; the type of `name` is property `name + suffix`. The evaluator's contract,
    ``f(V, P, H, R, M)`` and its batch form ``f(S, R, M)``, is documented once, in
    `msgfilter.pulsar_jms.evaluator` (pulsar-jms's typed properties are its one user)."""

    derived: frozenset[str]
    suffix: str


def payload(node: n.Node) -> Any:
    """The literal value(s) a node holds: a literal's value, an IN list's items, a LIKE's
    (pattern, escape), a string test's operand, an XQUERY's query."""
    if isinstance(node, n.In):
        return node.items
    if isinstance(node, n.Like):
        return (node.pattern, node.escape)
    if isinstance(node, n.XQuery):
        return node.query
    return node.value  # type: ignore[attr-defined]


def _compile_like(pattern_escape: tuple[str, str | None]) -> object:
    # Matchers are pure functions: texts of one shape with the same pattern share one.
    # Short patterns only, so that the cache's memory stays bounded too.
    if len(pattern_escape[0]) <= SHORT_PATTERN:
        return _compile_short_like(pattern_escape)
    return compile_like(*pattern_escape)


#: LIKE patterns up to this long are remembered (compiled matchers, their shapes).
SHORT_PATTERN = 256


@functools.lru_cache(maxsize=4096)
def _compile_short_like(pattern_escape: tuple[str, str | None]) -> object:
    return compile_like(*pattern_escape)


#: What the memo answers for a (type, text) it does not hold.
_MISS = object()


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


#: A node class's handler per mode.
Handlers = dict[str, Callable[[Generator, Any], str]]


def condition(truth: Any, falsity: Any, tri: Any) -> Handlers:
    # A condition used as a value (an operand of `=` or IS NULL) is its tri value.
    return {"truth": truth, "falsity": falsity, "tri": tri, "value": tri}


# -- generic derivations between modes -------------------------------------------------


def truth_from_tri(g: Generator, node: n.Expr) -> str:
    return f"({g.handlers[type(node)]['tri'](g, node)} is True)"


def falsity_from_tri(g: Generator, node: n.Expr) -> str:
    return f"({g.handlers[type(node)]['tri'](g, node)} is False)"
