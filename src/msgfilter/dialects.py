"""What each SQL-like dialect allows and how it types values.

One grammar serves every dialect (syntax/selector.lark); these frozen records switch its
features on and off in the lexer, the builder and the checker, and name the value rules
the backends apply.
"""

from __future__ import annotations

from .errors import FilterError
from .syntax.grammar import Grammar

Dialect = Grammar


_SQL92_KEYWORDS = frozenset(
    {"NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE", "NULL", "TRUE", "FALSE"}
)

JMS = Dialect(name="jms", keywords=_SQL92_KEYWORDS)

ROCKETMQ = Dialect(
    name="rocketmq",
    keywords=(_SQL92_KEYWORDS - {"LIKE", "ESCAPE"}) | {"CONTAINS", "STARTSWITH", "ENDSWITH"},
    tight_not=True,
    arithmetic=False,
    string_tests=True,
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
)

ACTIVEMQ = Dialect(
    name="activemq",
    keywords=_SQL92_KEYWORDS | {"XPATH", "XQUERY"},
    tight_not=True,
    modulo=True,
    functions=True,
    unicode_identifiers=False,
    comments=True,
    line_comment_needs_eol=True,
    empty_matches_all=False,
    fold_negation=False,
    escape_utf16=True,
    boolean_literal_check=True,
    max_exact=None,
)

SQL_DIALECTS: dict[str, Dialect] = {d.name: d for d in (JMS, ROCKETMQ, ACTIVEMQ)}


def sql_dialect(name: str) -> Dialect:
    """The SQL-like dialect called `name`."""
    try:
        return SQL_DIALECTS[name]
    except KeyError:
        raise FilterError(f"unknown selector dialect {name!r}") from None
