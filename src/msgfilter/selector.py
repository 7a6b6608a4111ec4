"""`SelectorFilter`: a compiled SQL-like selector (the `jms` and `rocketmq` dialects)."""

from __future__ import annotations

from .backends.python import compile_python
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

    __slots__ = ("source", "sql_dialect", "tree")

    #: The checked AST (None for the empty selector, which matches everything).
    tree: n.Expr | None
    #: The dialect's feature record.
    sql_dialect: Dialect
    #: The generated Python source of the evaluator (for `msgfilter explain`).
    source: str

    def __init__(self, text: str, dialect: str = "jms", limits: Limits = DEFAULT_LIMITS) -> None:
        record = sql_dialect(dialect)
        tree = parse(text, record, limits)
        if tree is None and not record.empty_matches_all:
            from .errors import FilterSyntaxError

            raise FilterSyntaxError("empty expression", text, len(text), ("an expression",))
        if tree is not None:
            check(tree, text, record)
        matches, evaluate, source = compile_python(tree, record)
        super().__init__(
            text,
            record.name,
            frozenset() if tree is None else n.identifiers(tree),
            matches,
            evaluate,
            limits,
        )
        for name, value in (("tree", tree), ("sql_dialect", record), ("source", source)):
            object.__setattr__(self, name, value)

    def unparse(self) -> str:
        return "" if self.tree is None else unparse(self.tree, self.sql_dialect)

    def _key(self) -> object:
        return self.tree
