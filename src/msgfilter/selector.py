"""`SelectorFilter`: a compiled SQL-like selector (the `jms`, `rocketmq`, `activemq` and
`artemis` dialects)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .backends.python import compile_function
from .backends.python.generator import TypedReads
from .errors import EvaluationFailure, FilterPositionError, FilterSyntaxError
from .filter import Filter
from .limits import DEFAULT_LIMITS, Limits
from .semantics import artemis
from .semantics.artemis import Prepared
from .semantics.check import check
from .semantics.model import ValueModel
from .syntax import nodes as n
from .syntax.grammar import Grammar
from .syntax.parser import parse
from .syntax.unparse import unparse


class SelectorFilter(Filter):
    """A selector compiled through the whole pipeline: text -> tokens -> AST ->
    checked AST -> generated Python evaluator.

    The dialect registry (`msgfilter.dialects`) builds one for each SQL-like dialect,
    giving it the dialect's name, grammar and value model; `msgfilter.compile` is the
    way to get one.
    """

    __slots__ = ("_outcome", "_source", "convert_strings", "departures", "grammar", "tree")

    #: The checked AST (None for the empty selector, which matches everything).
    tree: n.Expr | None
    #: The dialect's grammar switches.
    grammar: Grammar
    #: ActiveMQ's `convert_string_expressions:` prefix was given.
    convert_strings: bool
    #: The dialect's departures from the JMS specification (the registry's), one line each.
    departures: tuple[str, ...]
    _source: str
    _outcome: dict[str, Any]

    def __init__(
        self,
        text: str,
        limits: Limits = DEFAULT_LIMITS,
        *,
        dialect: str,
        grammar: Grammar,
        model: ValueModel,
        departures: tuple[str, ...] = (),
        prepare: Callable[[str], Prepared] | None = None,
    ) -> None:
        if prepare is not None:
            # The dialect rewrites the text first (Artemis: the JMS client's translation,
            # trimming, prefixes); errors are shown in the text the parser saw.
            prepared = prepare(text)
            shown, body, convert = prepared.text, prepared.body, prepared.convert
            if prepared.hyphenated:
                grammar = replace(grammar, hyphenated_identifiers=True, quoted_identifiers=False)
            empty = prepared.empty
        else:
            convert = grammar.functions and text.startswith(CONVERT_PREFIX)
            # ActiveMQ's prefix turns on string conversion; blanking it keeps offsets right.
            body = " " * len(CONVERT_PREFIX) + text[len(CONVERT_PREFIX):] if convert else text
            shown, empty = text, False
        try:
            tree = None if empty else parse(body, grammar, limits)
            if tree is None and not empty and not grammar.empty_matches_all:
                raise FilterSyntaxError("empty expression", body, len(body), ("an expression",))
            if tree is not None:
                tree = check(tree, body, grammar, model)
        except FilterPositionError as error:
            if body == shown:
                raise
            raise _with_text(error, shown) from None
        matches, self_source = compile_function(tree, model, "truth", convert_strings=convert)
        super().__init__(
            text,
            dialect,
            _reads(tree, model),
            matches,
            self._first_evaluate,
            limits,
            model=model,
        )
        for name, value in (
            ("tree", tree), ("grammar", grammar), ("_source", self_source),
            ("convert_strings", convert), ("_outcome", {}), ("departures", departures),
        ):
            object.__setattr__(self, name, value)

    def _first_evaluate(self, message: Any) -> bool | None:
        # `evaluate` is compiled on first use: brokers mostly only call `matches`, and
        # compiling both would double the cost of a cold compile. Building it twice in a
        # race is harmless; the attribute then holds the compiled function itself.
        evaluate, _ = compile_function(
            self.tree, self.model, "tri", convert_strings=self.convert_strings
        )
        object.__setattr__(self, "evaluate", evaluate)
        result: bool | None = evaluate(message)
        return result

    def outcome(self, message: Any) -> bool | EvaluationFailure | None:
        """Like `evaluate`, but where the broker's evaluation throws (only the `activemq`
        dialect models that) the result is an `EvaluationFailure`, not UNKNOWN."""
        result: bool | EvaluationFailure | None = self._outcome_of("tri", message)
        return result

    def match_outcome(self, message: Any) -> bool | EvaluationFailure:
        """Like `matches`, with the broker's short-circuits, and an `EvaluationFailure`
        where its evaluation throws."""
        result: bool | EvaluationFailure = self._outcome_of("truth", message)
        return result

    def _outcome_of(self, mode: str, message: Any) -> Any:
        function = self._outcome.get(mode)
        if function is None:
            if self.tree is None:
                return True
            function, _ = compile_function(
                self.tree, self.model, mode, default="_failed(_e)",
                convert_strings=self.convert_strings,
            )
            self._outcome[mode] = function
        return function(message)

    def typed_matches(self, reads: TypedReads) -> Any:
        """`matches` reading typed properties as `reads` says: `f(props, headers, R, memo)`
        (see `TypedReads`), each identifier read where evaluation reaches it and in the
        order pulsar-jms's broker (ActiveMQ's selector code) evaluates. Compiled on first
        use and kept with the filter."""
        return self._typed("typed", reads, batch=False)

    def typed_matches_all(self, reads: TypedReads) -> Any:
        """`typed_matches` over a sequence of `msgfilter.Message`: `f(messages, R, memo)`
        is the list of its answers, one per message, with the loop in the generated code
        (see `Generator.batch_function`). Compiled on first use and kept with the filter."""
        return self._typed("typed-all", reads, batch=True)

    def _typed(self, key: str, reads: TypedReads, *, batch: bool) -> Any:
        found = self._outcome.get(key)
        if found is None or found[0] != reads:
            function, _ = compile_function(
                self.tree, self.model, "truth", convert_strings=self.convert_strings,
                typed=reads, batch=batch,
            )
            found = (reads, function)
            self._outcome[key] = found
        return found[1]

    @property
    def source(self) -> str:
        """The generated Python source of both evaluators (for `msgfilter explain`)."""
        return self._source + compile_function(
            self.tree, self.model, "tri", convert_strings=self.convert_strings
        )[1]

    @property
    def sql_dialect(self) -> Grammar:
        """The dialect's grammar switches (the older name of `grammar`)."""
        return self.grammar

    def explain(self) -> str:
        lines = [super().explain()]
        # The dialect's departures (the registry's), then Artemis's for this selector.
        departures = list(self.departures)
        if self.model is ValueModel.ARTEMIS:
            departures.extend(artemis.departures(self.text, self.tree))
        if departures:
            lines.append("departures from the JMS specification:")
            lines.extend(f"  - {line}" for line in departures)
        if self.tree is not None:
            lines.append(f"tree:        {self.tree!r}")
            lines.append("generated Python (constants K* come from a table, never inlined):")
            lines.append(self.source.rstrip())
        return "\n".join(lines)

    def unparse(self) -> str:
        if self.tree is None:
            return ""
        prefix = CONVERT_PREFIX if self.convert_strings else ""
        if self.grammar.hyphenated_identifiers:
            prefix += HYPHENATED_PREFIX
        return prefix + unparse(self.tree, self.grammar)

    def _key(self) -> object:
        return (self.tree, self.convert_strings)


#: ActiveMQ's selector prefix that turns on string-to-number conversion in comparisons.
CONVERT_PREFIX = "convert_string_expressions:"
#: Artemis's selector prefix that lets `-` continue an identifier.
HYPHENATED_PREFIX = "hyphenated_props:"


def _reads(tree: n.Expr | None, model: ValueModel) -> frozenset[str]:
    """The names the filter reads from a message (backends pick columns by them)."""
    if tree is None:
        return frozenset()
    names = n.identifiers(tree)
    return artemis.reads(names) if model is ValueModel.ARTEMIS else names


def _with_text(error: FilterPositionError, text: str) -> FilterPositionError:
    copy = type(error).__new__(type(error))
    copy.__dict__.update(error.__dict__)
    FilterPositionError.__init__(copy, error.message, text, error.offset)
    return copy
