"""`AmqpSqlFilter`: an AMQP SQL filter expression (`amqp-sql`) as RabbitMQ 4.2 reads it.

Text -> `syntax.amqp_parser` (RabbitMQ's lexer and grammar, its limits) -> RabbitMQ's
post-parse checks (`semantics.amqp.check`) -> the Python backend's `amqp` table."""

from __future__ import annotations

from typing import Any

from ..backends.python import compile_function
from ..errors import EvaluationFailure
from ..filter import Filter
from ..limits import DEFAULT_LIMITS, Limits
from ..message import amqp_field_name
from ..semantics import amqp
from ..semantics.model import ValueModel
from ..syntax import nodes as n
from ..syntax.amqp_parser import parse
from ..syntax.amqp_unparse import unparse

#: The dialect name of `AmqpSqlFilter`.
DIALECT = "amqp-sql"
#: Its value model (the dialect registry registers both).
MODEL = ValueModel.AMQP

#: Where amqp-sql answers otherwise than the JMS specification (docs/amqp.md has each
#: with an example).
DEPARTURES: tuple[str, ...] = (
    "keywords are upper case only; `!=` is `<>`; `%` is a remainder of two integers;"
    " no BETWEEN; double-quoted text is a string",
    "`0x4142` binary constants; `[any name]` identifiers; `header.priority` (`h.`),"
    " `properties.subject` (`p.`) and `application_properties.k` (`a.`) names; `UTC()`",
    "numbers are `1`, `1.5` and `1.5E3` only (`5.`, `.5`, `5E2`, `1e3` are errors);"
    " at most 4096 characters and 200 tokens",
    "ordering is FALSE, not UNKNOWN, unless both operands are numbers or both strings;"
    " strings order bytewise (UTF-8); strings and binaries are the same type",
    "a boolean equals only a boolean; `1 = 1.0` is TRUE",
    "`/` always gives a float and is UNKNOWN for a zero divisor; `%` of a non-integer is"
    " UNKNOWN; integers never overflow; a float beyond the double range fails the message",
    "`+x` and `-x` of a non-number are UNKNOWN; a sign stands only before a primary",
    "IN takes any expressions and is UNKNOWN only for a NULL operand; IS NULL only"
    " after an identifier; LIKE's pattern must be a string literal",
    "LIKE: `_` is one code point, `%` and `_` never match a line feed where RabbitMQ uses"
    " its regex; a pattern with a control character is an error",
    "`header.priority` is 4 when the message has none",
    "no typing rule at compile time: `'a' + 1` is valid and UNKNOWN",
)


class AmqpSqlFilter(Filter):
    """A compiled amqp-sql expression; `msgfilter.compile(text, "amqp-sql")` builds one.

    A message is a `msgfilter.Message` whose `properties` are the AMQP application
    properties and whose `headers` hold the header and properties fields by their spec
    names with underscores (`priority`, `subject`, `message_id`, ...), or a mapping of
    application properties. The filter compiles under RabbitMQ's own limits (4096
    characters, 200 tokens), whatever `limits` says beyond them.
    """

    __slots__ = ("_outcome", "_source", "departures", "tree")

    #: The parsed tree.
    tree: n.Expr
    #: The dialect's departures from the JMS specification, one line each.
    departures: tuple[str, ...]
    _source: str
    _outcome: Any

    def __init__(self, text: str, limits: Limits = DEFAULT_LIMITS) -> None:
        tree = parse(text)
        amqp.check(tree, text)
        matches, source = compile_function(tree, MODEL, "truth")
        super().__init__(
            text, DIALECT, _reads(tree), matches, self._first_evaluate, limits, model=MODEL
        )
        object.__setattr__(self, "tree", tree)
        object.__setattr__(self, "departures", DEPARTURES)
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_outcome", None)

    def _first_evaluate(self, message: Any) -> bool | None:
        # Compiled on first use, as SelectorFilter's: brokers mostly call `matches` only.
        evaluate, _ = compile_function(self.tree, MODEL, "tri")
        object.__setattr__(self, "evaluate", evaluate)
        result: bool | None = evaluate(message)
        return result

    def outcome(self, message: Any) -> bool | EvaluationFailure | None:
        """Like `evaluate`, but an `EvaluationFailure` where RabbitMQ's evaluation of the
        message raises (Erlang's `badarith`: a float beyond the double range)."""
        function = self._outcome
        if function is None:
            function, _ = compile_function(self.tree, MODEL, "tri", default="_mqfailed(_e)")
            object.__setattr__(self, "_outcome", function)
        result: bool | EvaluationFailure | None = function(message)
        return result

    def explain(self) -> str:
        lines = [super().explain(), "departures from the JMS specification:"]
        lines.extend(f"  - {line}" for line in self.departures)
        lines.append(f"tree:        {self.tree!r}")
        lines.append("generated Python (constants K* come from a table, never inlined):")
        lines.append(self._source.rstrip())
        lines.append(compile_function(self.tree, MODEL, "tri")[1].rstrip())
        return "\n".join(lines)

    def unparse(self) -> str:
        return unparse(self.tree)

    def _key(self) -> object:
        return self.tree


def _reads(tree: n.Expr) -> frozenset[str]:
    """Application property names as they are; fields by their qualified names."""
    names: set[str] = set()
    stack: list[n.Expr] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, n.Ident):
            names.add(node.name)
        elif isinstance(node, n.Field):
            names.add(amqp_field_name(node.name))
        stack.extend(n.children(node))
    return frozenset(names)
