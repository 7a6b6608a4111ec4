"""`SelectorFilter`: a compiled SQL-like selector (the `jms` and `rocketmq` dialects)."""

from __future__ import annotations

from typing import Any

from .backends.python import compile_evaluate, compile_matches
from .dialects import Dialect, sql_dialect
from .filter import Filter
from .limits import DEFAULT_LIMITS, Limits
from .semantics.check import check
from .syntax import nodes as n
from .syntax.parser import parse
from .syntax.unparse import unparse


class SelectorFilter(Filter):
    """A selector compiled through the whole pipeline: text -> tokens -> AST ->
    checked AST -> generated Python evaluator."""

    __slots__ = ("_source", "sql_dialect", "tree")

    #: The checked AST (None for the empty selector, which matches everything).
    tree: n.Expr | None
    #: The dialect's feature record.
    sql_dialect: Dialect

    def __init__(self, text: str, dialect: str = "jms", limits: Limits = DEFAULT_LIMITS) -> None:
        record = sql_dialect(dialect)
        tree = parse(text, record, limits)
        if tree is None and not record.empty_matches_all:
            from .errors import FilterSyntaxError

            raise FilterSyntaxError("empty expression", text, len(text), ("an expression",))
        if tree is not None:
            check(tree, text, record)
        matches, self_source = compile_matches(tree, record)
        super().__init__(
            text,
            record.name,
            frozenset() if tree is None else n.identifiers(tree),
            matches,
            self._first_evaluate,
            limits,
        )
        for name, value in (("tree", tree), ("sql_dialect", record), ("_source", self_source)):
            object.__setattr__(self, name, value)

    def _first_evaluate(self, message: Any) -> bool | None:
        # `evaluate` is compiled on first use: brokers mostly only call `matches`, and
        # compiling both would double the cost of a cold compile. Building it twice in a
        # race is harmless; the attribute then holds the compiled function itself.
        evaluate, _ = compile_evaluate(self.tree, self.sql_dialect)
        object.__setattr__(self, "evaluate", evaluate)
        return evaluate(message)

    @property
    def source(self) -> str:
        """The generated Python source of both evaluators (for `msgfilter explain`)."""
        return self._source + compile_evaluate(self.tree, self.sql_dialect)[1]

    def unparse(self) -> str:
        return "" if self.tree is None else unparse(self.tree, self.sql_dialect)

    def _key(self) -> object:
        return self.tree
