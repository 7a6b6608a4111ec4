"""What each SQL-like dialect allows and how it types values.

One grammar serves every dialect (syntax/selector.lark); these frozen records switch its
features on and off in the lexer and the checker, and tell the backends which value rules
to apply.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import FilterError


@dataclass(frozen=True, slots=True)
class Dialect:
    """The feature flags of one selector dialect."""

    name: str
    #: Words that are keywords (case-insensitive, ASCII letters) and never identifiers.
    keywords: frozenset[str]
    #: NOT is a tight unary prefix (ActiveMQ, RocketMQ) rather than SQL92's loose NOT.
    tight_not: bool = False
    #: `+ - * /` as binary operators.
    arithmetic: bool = True
    #: `[NOT] LIKE ... [ESCAPE ...]`.
    like: bool = True
    #: RocketMQ's `[NOT] CONTAINS / STARTSWITH / ENDSWITH 'literal'`.
    string_tests: bool = False
    #: Hexadecimal `0x1F` and octal `017` exact literals.
    hex_octal: bool = True
    #: Identifiers of Java identifier characters (Unicode) rather than ASCII only.
    unicode_identifiers: bool = True
    #: Properties are strings converted to the type of the literal they meet (RocketMQ).
    string_coercion: bool = False
    #: SQL comments `/* ... */` and `-- ...` (to the end of the line or of the text).
    comments: bool = False
    #: The empty or blank selector matches everything (JMS); otherwise it is an error.
    empty_matches_all: bool = True
    #: ActiveMQ's extra parse-time checks: a TRUE/FALSE literal left of `=`/`<>` with a
    #: string or number literal on the right, and BETWEEN with constant bounds low > high.
    activemq_checks: bool = False
    #: An approximate literal beyond the double range is an error (not Infinity).
    finite_literals: bool = False
    #: The largest exact literal; larger ones are errors (Java long, or int for RocketMQ
    #: where it decides between Integer and Long, see the backend).
    max_exact: int = 2**63 - 1


_SQL92_KEYWORDS = frozenset(
    {"NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE", "NULL", "TRUE", "FALSE"}
)

JMS = Dialect(name="jms", keywords=_SQL92_KEYWORDS)

ROCKETMQ = Dialect(
    name="rocketmq",
    keywords=(_SQL92_KEYWORDS - {"LIKE", "ESCAPE"}) | {"CONTAINS", "STARTSWITH", "ENDSWITH"},
    tight_not=True,
    arithmetic=False,
    like=False,
    string_tests=True,
    hex_octal=False,
    unicode_identifiers=False,
    string_coercion=True,
    comments=True,
    empty_matches_all=False,
    activemq_checks=True,
    finite_literals=True,
)

SQL_DIALECTS: dict[str, Dialect] = {d.name: d for d in (JMS, ROCKETMQ)}


def sql_dialect(name: str) -> Dialect:
    """The SQL-like dialect called `name`."""
    try:
        return SQL_DIALECTS[name]
    except KeyError:
        raise FilterError(f"unknown selector dialect {name!r}") from None
