"""`SelectorFilter`: a compiled SQL-like selector (the `jms`, `rocketmq`, `activemq`,
`artemis` and `qpid` dialects; the `rocketmq-tag` and `pulsar-tag` dialects are
`msgfilter.tags`)."""

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
from .shapes import cache as shape_cache
from .shapes.analysis import analyse
from .shapes.shape import Shape, shape_key, text_key
from .shapes.template import Template
from .syntax import nodes as n
from .syntax.grammar import Grammar
from .syntax.lexer import Lexed, check_length, literals_agree, scan, split_literals, tokenize
from .syntax.parser import parse
from .syntax.unparse import unparse


class SelectorFilter(Filter):
    """A selector compiled through the whole pipeline: text -> tokens -> AST ->
    checked AST -> generated Python evaluator.

    The dialect registry (`msgfilter.dialects`) builds one for each SQL-like dialect,
    giving it the dialect's name, grammar and value model; `msgfilter.compile` is the
    way to get one.

    Texts that differ only in their literal values share one template (`msgfilter.shapes`):
    a new text of a known shape is only lexed, its literals decoded and checked, and the
    shared code bound to them; `tree` is then built on first read. The filter is the one
    the whole pipeline would build. Two read-only attributes serve planning by shape:

    - `shape`: a hashable `msgfilter.shapes.Shape`, equal for two filters of one dialect
      whose texts have the same tokens but for the values of their literals (identifier
      names, keywords, operators, prefixes and the parser's limits included), and the
      same object for all filters compiled from one cached template, and only for them
      (`msgfilter.shapes.cache.template_of(f.shape)` finds that template: their `literals`
      fill its slots);
    - `literals`: the checked values of the text's literals (strings, exact and
      approximate numbers; each IN item, LIKE pattern and escape) in text order, a JMS
      signed literal with its sign folded in.
    """

    __slots__ = (
        "_lazy", "_outcome", "_source", "_tree", "convert_strings", "departures", "grammar",
        "literals", "shape",
    )

    #: The dialect's grammar switches.
    grammar: Grammar
    #: ActiveMQ's `convert_string_expressions:` prefix was given.
    convert_strings: bool
    #: The dialect's departures from the JMS specification (the registry's), one line each.
    departures: tuple[str, ...]
    #: The shape of the text (`msgfilter.shapes.Shape`): hashable, equal for two filters
    #: of one dialect (and limits) whose texts differ only in their literal values, and
    #: the same object for all filters compiled from one cached template.
    shape: Shape
    #: The checked literal values of the text, in the order they stand in it (a JMS
    #: signed literal with its sign folded in): what fills the shape's slots.
    literals: tuple[Any, ...]
    _source: str
    #: Evaluators made on demand (outcomes, typed reads), by kind; None until the first:
    #: most filters never need one, and an empty dict costs 64 bytes a filter.
    _outcome: dict[str, Any] | None
    _tree: Any
    _lazy: Any

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
        use_shapes: bool = True,
    ) -> None:
        if prepare is not None:
            # The dialect rewrites the text first (Artemis: the JMS client's translation,
            # trimming, prefixes); errors are shown in the text the parser saw.
            prepared = prepare(text)
            shown, body, convert = prepared.text, prepared.body, prepared.convert
            hyphenated = prepared.hyphenated
            if hyphenated:
                grammar = replace(grammar, hyphenated_identifiers=True, quoted_identifiers=False)
            empty = prepared.empty
        else:
            convert = grammar.functions and text.startswith(CONVERT_PREFIX)
            # ActiveMQ's prefix turns on string conversion; blanking it keeps offsets right.
            body = " " * len(CONVERT_PREFIX) + text[len(CONVERT_PREFIX):] if convert else text
            shown, empty, hyphenated = text, False, False
        lexed = None
        flags = (convert, hyphenated)
        split = None
        by_text: tuple[Any, ...] | None = None
        if not empty and len(body) <= limits.max_length:
            if use_shapes and not hyphenated:
                split = split_literals(body, grammar)
            if split is not None:
                # Most texts of a known shape are found here, before the token loop.
                by_text = text_key(dialect, flags, limits, split[0])
                found = shape_cache.lookup_text(by_text)
                if found is not None and self._from_shape(
                    found, split[1], text, body, dialect, limits, model, departures
                ):
                    return
            lexed = scan(body, grammar, limits)
        pieces = () if split is None else split[0]
        key: tuple[Any, ...] | None = None
        if lexed is not None:
            key = shape_key(dialect, flags, limits, lexed)
            found = shape_cache.lookup(key) if use_shapes else None
            if found is not None and self._from_shape(
                found, lexed.lits, text, body, dialect, limits, model, departures
            ):
                _lead(by_text, pieces, lexed, found)
                return
        try:
            if empty:
                tree = None
            else:
                if lexed is None:
                    check_length(body, limits)
                    lexed = Lexed.of(tokenize(body, grammar, limits), grammar)
                tree = parse(body, grammar, limits, lexed.tokens())
            if tree is None and not empty and not grammar.empty_matches_all:
                raise FilterSyntaxError("empty expression", body, len(body), ("an expression",))
            if tree is not None:
                tree = check(tree, body, grammar, model)
        except FilterPositionError as error:
            if body == shown:
                raise
            raise _with_text(error, shown) from None
        if lexed is None:
            lexed = Lexed([], [], {}, [])
        # The scanner's tokens only: a text the careful lexer reads is never served by a
        # template (scan() must be able to read the next text of its shape).
        cacheable = use_shapes and key is not None
        if key is None:
            key = shape_key(dialect, flags, limits, lexed)
        shape = shape_cache.shape_of(key, dialect) if cacheable else Shape(dialect, key)
        identifiers = _reads(tree, model)
        analysis = analyse(shape, lexed, tree, grammar, model, convert, identifiers)
        if analysis.template is None and cacheable:
            # Literals the recording could not place are not the template's slot
            # values: this filter must not pass for one of the cached template's.
            shape = Shape(dialect, key)
        learned = None
        if analysis.template is not None and cacheable and tree is not None:
            learned = shape_cache.learn(analysis, tree)
            cached = shape_cache.template_of(shape)
            if learned is not None and cached is not None:
                _lead(by_text, pieces, lexed, cached)
        if learned is None:
            learned = compile_function(tree, model, "truth", convert_strings=convert)
        matches, self_source = learned
        super().__init__(
            text,
            dialect,
            identifiers,
            matches,
            self._first_evaluate,
            limits,
            model=model,
        )
        for name, value in (
            ("_tree", tree), ("_lazy", None), ("grammar", grammar), ("_source", self_source),
            ("convert_strings", convert), ("_outcome", None), ("departures", departures),
            ("shape", shape), ("literals", analysis.literals),
        ):
            object.__setattr__(self, name, value)

    def _from_shape(
        self, template: Template, lits: list[str], text: str, body: str, dialect: str,
        limits: Limits, model: ValueModel, departures: tuple[str, ...],
    ) -> bool:
        """Become the filter of `text` (whose literal texts are `lits`) from its shape's
        template; False where the whole pipeline must run (a value rule refuses a
        literal, or the values choose code no variant has)."""
        values = template.values(lits)
        if values is None:
            return False
        variant = template.variant(values)
        if variant is None:
            return False
        setattr_ = object.__setattr__
        # Not the lexed tokens: their match objects cost more memory than the filter, and
        # most filters never build their tree (the index plans by shape). The text scans
        # again, the same way, if the tree is asked for.
        literals = tuple(values)
        setattr_(self, "_lazy", (template, literals, None if body is text else body))
        setattr_(self, "_tree", _PENDING)
        setattr_(self, "matches", shape_cache.bind(template, variant, values, self._get_tree))
        setattr_(self, "text", text)
        setattr_(self, "dialect", dialect)
        setattr_(self, "identifiers", template.identifiers)
        setattr_(self, "evaluate", self._first_evaluate)
        setattr_(self, "limits", limits)
        setattr_(self, "model", model)
        setattr_(self, "grammar", template.grammar)
        setattr_(self, "_source", variant.source)
        setattr_(self, "convert_strings", template.convert)
        setattr_(self, "_outcome", None)
        setattr_(self, "departures", departures)
        setattr_(self, "shape", template.shape)
        setattr_(self, "literals", literals)
        setattr_(self, "_frozen", True)
        return True

    @property
    def empty(self) -> bool:
        """True for the empty selector (no tree: it matches every message); unlike
        `tree is None`, never builds the tree."""
        return self._tree is None

    @property
    def tree(self) -> n.Expr | None:
        """The checked AST (None for the empty selector, which matches everything)."""
        tree = self._tree
        if tree is _PENDING:
            return self._get_tree()
        return tree  # type: ignore[no-any-return]

    def _get_tree(self) -> n.Expr:
        # A filter compiled from its shape's template builds its tree on first use.
        # Two threads may both build it: the trees are equal, either one is kept.
        tree = self._tree
        if tree is _PENDING:
            template, values, body = self._lazy
            lexed = scan(self.text if body is None else body, self.grammar, self.limits)
            assert lexed is not None  # it scanned before
            tree = template.tree(values, lexed.starts, lexed.ends)
            object.__setattr__(self, "_tree", tree)
            object.__setattr__(self, "_lazy", None)
        return tree  # type: ignore[no-any-return]

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

    def _made(self) -> dict[str, Any]:
        """The filter's `_outcome` dict, made on first use (two threads racing may each
        make one: one is kept, and an evaluator stored in the other is compiled again
        when next asked for)."""
        made = self._outcome
        if made is None:
            made = {}
            object.__setattr__(self, "_outcome", made)
        return made

    def _outcome_of(self, mode: str, message: Any) -> Any:
        made = self._made()
        function = made.get(mode)
        if function is None:
            if self.tree is None:
                return True
            function, _ = compile_function(
                self.tree, self.model, mode, default="_failed(_e)",
                convert_strings=self.convert_strings,
            )
            made[mode] = function
        return function(message)

    def typed_matches(self, reads: TypedReads) -> Any:
        """`matches` reading typed properties as `reads` says: `f(V, P, H, R, M)` (the
        contract of `msgfilter.pulsar_jms.evaluator`), each identifier read where
        evaluation reaches it and in the order pulsar-jms's broker (ActiveMQ's selector
        code) evaluates. Compiled on first use and kept with the filter."""
        return self._typed("typed", reads, batch=False)

    def typed_matches_all(self, reads: TypedReads) -> Any:
        """`typed_matches` over a sequence of `msgfilter.Message`: `f(S, R, M)`
        is the list of its answers, one per message, with the loop in the generated code
        (see `Generator.batch_function`). Compiled on first use and kept with the filter."""
        return self._typed("typed-all", reads, batch=True)

    def _typed(self, key: str, reads: TypedReads, *, batch: bool) -> Any:
        made = self._made()
        found = made.get(key)
        if found is None or found[0] != reads:
            function, _ = compile_function(
                self.tree, self.model, "truth", convert_strings=self.convert_strings,
                typed=reads, batch=batch,
            )
            found = (reads, function)
            made[key] = found
        return found[1]

    @property
    def source(self) -> str:
        """The generated Python source of both evaluators (for `msgfilter explain`)."""
        return self._source + compile_function(
            self.tree, self.model, "tri", convert_strings=self.convert_strings
        )[1]

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


_PENDING: Any = object()


def _reads(tree: n.Expr | None, model: ValueModel) -> frozenset[str]:
    """The names the filter reads from a message (backends pick columns by them)."""
    if tree is None:
        return frozenset()
    names = n.identifiers(tree)
    return artemis.reads(names) if model is ValueModel.ARTEMIS else names


def _lead(by_text: tuple[Any, ...] | None, pieces: tuple[str, ...], lexed: Lexed,
          template: Template) -> None:
    """Lead the text key `by_text` (None: the text had none) to `template` once the
    lexer read the text's literals where `split_literals` found them."""
    if by_text is not None and literals_agree(pieces, lexed):
        shape_cache.remember_text(by_text, template)


def _with_text(error: FilterPositionError, text: str) -> FilterPositionError:
    copy = type(error).__new__(type(error))
    copy.__dict__.update(error.__dict__)
    FilterPositionError.__init__(copy, error.message, text, error.offset)
    return copy
