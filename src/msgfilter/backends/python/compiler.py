"""Checked AST -> evaluator: generate the source with a model's table, then bind it to its
constants (`runtime.build`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...semantics.model import ValueModel
from ...syntax import nodes as n
from .generator import Generator, TypedReads
from .runtime import build
from .tables import TABLES


def generate(
    tree: n.Expr, model: ValueModel, mode: str, default: str | None = None,
    convert_strings: bool = False, typed: TypedReads | None = None, batch: bool = False,
) -> tuple[str, tuple[object, ...]]:
    """The source of one function (`matches` for mode "truth", `evaluate` for "tri")
    and the constants its `_bind` takes. `default` is what it returns when evaluation
    raises (the exception is `_e`): by default FALSE for `matches`, UNKNOWN for
    `evaluate`. With `typed`, the function reads a message as `TypedReads` says; with
    `batch` too, it is that function over a sequence of messages (`matches_all(S, R,
    M)`, see `Generator.batch_function`)."""
    source, gen, _ = _generate(tree, model, mode, default, convert_strings, typed, batch)
    return source, tuple(gen.consts)


@dataclass(frozen=True, slots=True)
class Shared:
    """A `matches` evaluator generated for reuse by every text of one shape: its source,
    its constants for the text it was made from, and how to re-derive them for another
    text (see `Generator.lit`, `Generator.classify`)."""

    source: str
    consts: tuple[object, ...]
    #: (constant index, ref, transform): the constant is `transform(value at ref)`.
    recipes: tuple[tuple[int, object, Callable[[Any], Any] | None], ...]
    #: (ref, classifier, result): the code is right only for values that classify alike.
    classes: tuple[tuple[object, Callable[[Any], Any], object], ...]
    #: The index of the careful fallback constant (it holds the tree), if any.
    careful: int | None
    #: A literal value reached the code through a node with no ref: do not share.
    unshared: bool


def generate_shared(
    tree: n.Expr, model: ValueModel, convert_strings: bool, refs: Mapping[int, object]
) -> Shared:
    """`generate` of `matches`, recording where each literal value went (`refs`: id of
    each node holding literal values -> where a text of the same shape keeps them)."""
    source, gen, careful = _generate(
        tree, model, "truth", None, convert_strings, None, False, refs
    )
    return Shared(
        source, tuple(gen.consts), tuple(gen.recipes), tuple(gen.classes), careful,
        gen.unshared,
    )


def _generate(
    tree: n.Expr, model: ValueModel, mode: str, default: str | None,
    convert_strings: bool, typed: TypedReads | None, batch: bool,
    refs: Mapping[int, object] | None = None,
) -> tuple[str, Generator, int | None]:
    table = TABLES[model]
    optimistic = default is None and table.optimistic
    # A typed evaluator reads lean, and always has a careful one to fall back to.
    lean = default is None and typed is not None
    gen = Generator(
        table.handlers, convert_strings, optimistic, typed, batch and typed is not None, lean,
        refs,
    )
    gen.count_uses(tree)
    name, fallback = ("matches", "False") if mode == "truth" else ("evaluate", "None")
    top = table.top.get(type(tree))
    expression = top[mode](gen, tree) if top and mode in top else gen.emit(mode, tree)
    careful_index = None
    if gen.used_optimistic or lean:
        careful_index = len(gen.consts)
        careful = gen.const(Careful(tree, model, mode, convert_strings, typed),
                            ("careful", mode))
        if typed is None:
            fallback = f"{careful}(m)"
        else:
            # The typed evaluator without shortcuts, on this message's parts (a read
            # that fails there fails again, sets R.failed and answers False).
            scope = gen.scope
            fallback = f"{careful}(V, {scope.props}, {scope.heads}, R, M)"
    if batch and typed is not None:
        name = f"{name}_all"
        body = gen.batch_function(name, expression, default or fallback)
    else:
        body = gen.function(name, expression, default or fallback)
    params = ", ".join(f"K{i}" for i in range(len(gen.consts)))
    source = f"def _bind({params}):\n" + "".join(gen.subs) + body + f"    return {name}\n"
    return source, gen, careful_index


class Careful:
    """The function a shortcut-taking evaluator falls back to when evaluation raises,
    generated (once, on first use) without shortcuts. `tree` may be a function giving
    the tree: a filter compiled by shape builds its tree only when something asks."""

    __slots__ = ("convert_strings", "function", "mode", "model", "tree", "typed")

    def __init__(
        self, tree: n.Expr | Callable[[], n.Expr], model: ValueModel, mode: str,
        convert_strings: bool = False, typed: TypedReads | None = None,
    ) -> None:
        self.tree, self.model, self.mode, self.typed = tree, model, mode, typed
        self.convert_strings = convert_strings
        self.function: Callable[..., Any] | None = None

    def __call__(self, *message: Any) -> Any:
        """`f(m)`, or a typed evaluator's `f(V, P, H, R, M)`."""
        if self.function is None:
            default = "False" if self.mode == "truth" else "None"
            tree = self.tree() if callable(self.tree) else self.tree
            self.function, _ = compile_function(
                tree, self.model, self.mode, default=default,
                convert_strings=self.convert_strings, typed=self.typed,
            )
        return self.function(*message)


def compile_function(
    tree: n.Expr | None, model: ValueModel, mode: str, *, default: str | None = None,
    convert_strings: bool = False, typed: TypedReads | None = None, batch: bool = False,
) -> tuple[Callable[..., Any], str]:
    """The evaluator of a checked tree and its source: `matches` for mode "truth",
    `evaluate` for "tri" (None: the empty selector, TRUE for every message). `default`
    is what it answers where evaluation raises (see `generate`; "_failed(_e)" gives an
    `EvaluationFailure`). `typed`: the evaluator reads as `TypedReads` says; `batch`
    (with `typed`): the evaluator of a sequence of messages."""
    if tree is None:
        if typed is None:
            return _always_true, ""
        return (_all_true_typed if batch else _always_true_typed), ""
    source, consts = generate(tree, model, mode, default, convert_strings, typed, batch)
    function: Callable[[Any], Any] = build(source, consts)
    return function, source


def _always_true(message: object) -> bool:
    return True


def _always_true_typed(*message: object) -> bool:
    return True


def _all_true_typed(messages: Any, *reads: object) -> list[bool]:
    return [True] * len(messages)
