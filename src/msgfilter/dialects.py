"""The dialect registry: every dialect msgfilter knows, each registered once, here.

A `Dialect` names its grammar switches (SQL-like dialects; None for the tag dialects), its
value model (what every backend lowers it by) and the factory that builds its filters.
`msgfilter.compile`, the broker built-ins, the command line and the testing package look
dialects up here; nothing else names them.

This module sits above `selector` and `tags` (it names their factories) and below
`engine`; no module under it imports it, so the registry closes no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any

from .amqp import sql as amqp_sql
from .errors import FilterError
from .filter import Filter
from .limits import Limits
from .selector import SelectorFilter
from .semantics import artemis
from .semantics.artemis import Prepared
from .semantics.model import ValueModel
from .syntax import amqp_parser
from .syntax.grammar import Grammar
from .syntax.nodes import Node
from .tags import pulsar as pulsar_tags
from .tags import rocketmq as rocketmq_tags

__all__ = [
    "DEFAULT", "Dialect", "Factory", "all_dialects", "by_name", "get", "names", "node_kinds",
]

#: How a dialect builds the filter of one text: `build(text, limits)`.
Factory = Callable[[str, Limits], Filter]


@dataclass(frozen=True, slots=True)
class Dialect:
    """One dialect: its name, what it parses, how it types values, how it is built."""

    #: The name `msgfilter.compile(text, dialect=...)` takes.
    name: str
    #: One line for the command line's help and the docs.
    summary: str
    #: How the dialect types, converts and compares values: what each backend lowers by.
    model: ValueModel
    #: Builds the filter of one text (raises FilterError for text the dialect rejects).
    build: Factory
    #: The grammar switches of an SQL-like dialect; None for a tag dialect.
    grammar: Grammar | None = None
    #: Where the dialect answers otherwise than the JMS specification, one line each
    #: (`explain()` lists them).
    departures: tuple[str, ...] = ()
    #: An SQL-like dialect (a JMS selector descendant): the five selector-grammar dialects
    #: and amqp-sql, which reads RabbitMQ's own grammar (`grammar` None).
    sql: bool = False
    #: The node classes a dialect without a `Grammar` builds (amqp-sql:
    #: `syntax.amqp_parser.NODE_KINDS`); a grammar says its own (`Grammar.node_kinds`).
    kinds: frozenset[type[Node]] = frozenset()


_SQL92_KEYWORDS = frozenset(
    {"NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE", "NULL", "TRUE", "FALSE"}
)


def _sql(
    name: str, summary: str, model: ValueModel, departures: tuple[str, ...] = (),
    prepare: Callable[[str], Prepared] | None = None,
    **switches: Any,
) -> Dialect:
    """An SQL-like dialect: the one selector grammar under `switches`, filters built by
    `SelectorFilter` (after `prepare` rewrites the text, where the dialect does)."""
    grammar = Grammar(name=name, **switches)
    build = partial(
        SelectorFilter, dialect=name, grammar=grammar, model=model, departures=departures,
        prepare=prepare,
    )
    return Dialect(name, summary, model, build, grammar, departures, sql=True)


#: Qpid Broker-J's departures from the JMS specification (docs/qpid.md has each with an
#: example; the rule numbers are those of the JMS rules, J1-J41).
_QPID_DEPARTURES = (
    "NOT stands where unary minus does and takes a whole equality: `x = NOT a = 1` (J17)",
    "`=` with one NULL operand is FALSE and `<>` TRUE; NULL = NULL is TRUE (J25)",
    "AND answers its first operand that is not TRUE, OR its first TRUE one, else the last:"
    " NULL OR FALSE is FALSE, NULL AND FALSE is NULL (J39)",
    "Java types: int arithmetic wraps at 32 bits, `/` and `%` divide as doubles, a float"
    " and a double compare as doubles (J21-J23, J30)",
    "unlike types: `<>` is TRUE (NOT of `=`); NaN = NaN and -0.0 <> 0.0 (Double.equals);"
    " `TRUE = 1` is a compile error (J24, J26, J28)",
    "IN on a non-string is UNKNOWN, and so is NOT IN (J34)",
    "ESCAPE is one UTF-16 unit; negating a byte or short throws (J19, J35)",
    "arithmetic on a string or boolean throws: the message is not delivered (J32, J40)",
    "`+` joins a string left operand with the right one's Java text (J31)",
    "LIKE collapses runs of `%` before reading escapes, an escape escapes any character"
    " and one at the end ends the pattern, an escaped character above U+00FF or below"
    " U+0010 is mistranslated into the regex (J36)",
    "JMSPriority, JMSTimestamp, JMSExpiration, JMSRedelivered and JMSDeliveryMode are never"
    " NULL (4, 0, 0, FALSE, 'NON_PERSISTENT'); JMSDestination is always NULL;"
    " AMQMessageID is JMSMessageID (J15)",
    "literals: an L suffix, decimals beyond the long range are BigDecimals (J9, J10)",
    "ASCII identifiers and double-quoted ones; `/* */` and `--` comments; `%` (J5, J7, J13)",
)


#: The grammar ActiveMQ Classic, Artemis and Qpid Broker-J inherit from ActiveMQ's
#: selector parser: NOT as a tight prefix, `%`, ASCII identifiers, comments, ESCAPE as one
#: UTF-16 unit, `TRUE = 1` refused, exact literals beyond a long kept (BigDecimal).
_JAVA_BROKER: dict[str, Any] = {
    "tight_not": True, "modulo": True, "unicode_identifiers": False, "comments": True,
    "line_comment_needs_eol": True, "fold_negation": False, "escape_utf16": True,
    "boolean_literal_check": True, "max_exact": None,
}


_DIALECTS: tuple[Dialect, ...] = (
    _sql(
        "jms", "JMS 2.0 message selectors", ValueModel.JMS,
        keywords=_SQL92_KEYWORDS,
    ),
    _sql(
        "rocketmq", "RocketMQ's SQL92 filter", ValueModel.ROCKETMQ,
        keywords=(_SQL92_KEYWORDS - {"LIKE", "ESCAPE"}) | {"CONTAINS", "STARTSWITH", "ENDSWITH"},
        tight_not=True,
        arithmetic=False,
        hex_octal=False,
        unicode_identifiers=False,
        comments=True,
        line_comment_needs_eol=True,
        dangling_comment_ends=True,
        empty_matches_all=False,
        fold_negation=False,
        boolean_literal_check=True,
        between_bounds_check=True,
        finite_literals=True,
    ),
    _sql(
        "activemq", "ActiveMQ Classic 5.17's selectors, quirks and Java types",
        ValueModel.ACTIVEMQ,
        keywords=_SQL92_KEYWORDS | {"XPATH", "XQUERY"},
        functions=True,
        empty_matches_all=False,
        **_JAVA_BROKER,
    ),
    _sql(
        "artemis", "ActiveMQ Artemis's selectors: AMQ header names, quoted names, Java types",
        ValueModel.ARTEMIS,
        prepare=artemis.prepare,
        keywords=_SQL92_KEYWORDS | {"XPATH", "XQUERY"},
        quoted_identifiers=True,
        **_JAVA_BROKER,
    ),
    _sql(
        "qpid", "Qpid Broker-J's selectors, quirks and Java types", ValueModel.QPID,
        departures=_QPID_DEPARTURES,
        keywords=_SQL92_KEYWORDS,
        not_over_equality=True,
        quoted_identifiers=True,
        **_JAVA_BROKER,
    ),
    # RabbitMQ's own grammar and lexer (syntax.amqp_parser): no Grammar switches.
    Dialect(
        amqp_sql.DIALECT, "RabbitMQ 4.2's AMQP SQL filter expressions", amqp_sql.MODEL,
        amqp_sql.AmqpSqlFilter, departures=amqp_sql.DEPARTURES, sql=True,
        kinds=amqp_parser.NODE_KINDS,
    ),
    # A tag filter class is its dialect: it is also built directly (not only through
    # `compile`), so the class module holds the name and the model it stamps on filters.
    Dialect(
        rocketmq_tags.DIALECT, "RocketMQ tag expressions (TagA || TagB)", rocketmq_tags.MODEL,
        rocketmq_tags.RocketMQTagFilter,
    ),
    Dialect(
        pulsar_tags.DIALECT, "Pulsar anytag / alltag tag filters", pulsar_tags.MODEL,
        pulsar_tags.PulsarTagFilter.from_text,
    ),
)

_BY_NAME: MappingProxyType[str, Dialect] = MappingProxyType({d.name: d for d in _DIALECTS})

#: The name `compile` uses when given none.
DEFAULT = "jms"


def get(name: str) -> Dialect:
    """The dialect called `name`; FilterError naming the known dialects otherwise."""
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(_BY_NAME))
        raise FilterError(f"unknown dialect {name!r} (known: {known})") from None


def names() -> tuple[str, ...]:
    """Every dialect's name, in registration order (`jms` first)."""
    return tuple(_BY_NAME)


def all_dialects() -> tuple[Dialect, ...]:
    """Every dialect, in registration order."""
    return _DIALECTS


def node_kinds(model: ValueModel) -> frozenset[type[Node]]:
    """The node classes a tree of `model` can hold: those of its dialects' grammars
    (`Grammar.node_kinds`, or `Dialect.kinds` for amqp-sql), none for a tag model.
    Backend tables cover these and need not say which they never meet."""
    kinds: set[type[Node]] = set()
    for dialect in _DIALECTS:
        if dialect.model is model:
            grammar = dialect.grammar
            kinds |= dialect.kinds if grammar is None else grammar.node_kinds()
    return frozenset(kinds)


def by_name() -> MappingProxyType[str, Dialect]:
    """A read-only view: dialect name -> `Dialect`."""
    return _BY_NAME
