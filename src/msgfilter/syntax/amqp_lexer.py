"""The amqp-sql lexer: RabbitMQ 4.2's `rabbit_amqp_sql_lexer.xrl`, token for token.

Leex reads the longest token at each place, the first rule winning a tie, so `AND` is
the keyword and `ANDY` an identifier; keywords are upper case only, and a lower- or
mixed-case keyword (or one of the words the OASIS draft reserves: EXISTS, NAN, INF,
LOWER, UPPER, LEFT, RIGHT, SUBSTRING, DATE) is refused as an identifier. Numbers are
`123`, `1.5` and `1.5E-3` only (`5.`, `.5`, `5E2` and lower-case `e` are not numbers);
`0x` binaries take upper-case hex digit pairs; strings take single or double quotes
(a doubled quote stands for one); `[any name]` is a delimited identifier (`[[` and `]]`
for brackets) and `section.name` a section-qualified one. Whitespace is space, tab,
form feed, line feed and carriage return only.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..errors import FilterLimitError, FilterSyntaxError
from ..message import AMQP_HEADER_FIELDS, AMQP_PROPERTIES_FIELDS

#: RabbitMQ's limits on one expression ([Filter-Expressions-v1.0 7.1]).
MAX_LENGTH = 4096
MAX_TOKENS = 200

#: The keywords: upper case only.
KEYWORDS: frozenset[str] = frozenset(
    {"AND", "OR", "NOT", "LIKE", "IN", "IS", "NULL", "ESCAPE", "TRUE", "FALSE", "UTC"}
)
#: Words no regular identifier may be, in any case (lower-cased here).
RESERVED: frozenset[str] = frozenset({
    "and", "or", "not", "like", "in", "is", "null", "escape", "true", "false", "exists",
    "nan", "inf", "lower", "upper", "left", "right", "substring", "utc", "date",
})
#: Section prefixes and what they qualify: the header, the properties, or the
#: application properties (`a.` / `application_properties.`).
SECTIONS: dict[str, str] = {
    "header": "header", "h": "header", "properties": "properties", "p": "properties",
    "application_properties": "application", "a": "application",
}

_WHITESPACE = " \t\f\n\r"
_OPERATORS = (
    ("<>", "<>"), ("!=", "<>"), (">=", ">="), ("<=", "<="), ("=", "="), (">", ">"),
    ("<", "<"), ("+", "+"), ("-", "-"), ("*", "*"), ("/", "/"), ("%", "%"), ("(", "("),
    (")", ")"), (",", ","),
)
_INT = re.compile(r"[0-9]+")
_FLOAT = re.compile(r"[0-9]+\.[0-9]+(?:E[+-]?[0-9]+)?")
_BINARY = re.compile(r"0x(?:[0-9A-F]{2})+")
_REGULAR = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*")
_SECTION = re.compile(r"[a-zA-Z][a-zA-Z_-]*\.[a-zA-Z][a-zA-Z0-9_]*")


@dataclass(frozen=True, slots=True)
class Token:
    #: A keyword, an operator, or INT FLOAT STRING BINARY BOOL IDENT FIELD.
    kind: str
    value: object
    start: int
    end: int


def _quoted_end(text: str, start: int, close: str, reopen: str | None) -> int:
    """The end of the longest quoted token at `start` (-1: none): `close` doubled stands
    for itself, and for delimited names `reopen` doubled too, while a single `reopen`
    stops the token."""
    i, n, last = start + 1, len(text), -1
    while i < n:
        ch = text[i]
        if ch == close:
            last = i + 1
            if i + 1 < n and text[i + 1] == close:
                i += 2
                continue
            break
        if reopen is not None and ch == reopen:
            if i + 1 < n and text[i + 1] == reopen:
                i += 2
                continue
            break
        i += 1
    return last


def tokenize(text: str) -> list[Token]:
    """The tokens of `text`; FilterSyntaxError at the first character no rule reads,
    FilterLimitError past RabbitMQ's length or token limits."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise FilterSyntaxError("the expression is not UTF-8 text", text, error.start) from None
    if len(text) > MAX_LENGTH:
        raise FilterLimitError(
            f"the expression is longer than RabbitMQ's {MAX_LENGTH} characters", text,
            MAX_LENGTH,
        )
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            i += 1
            continue
        token = _one(text, i, ch)
        tokens.append(token)
        if len(tokens) > MAX_TOKENS:
            raise FilterLimitError(
                f"the expression has more than RabbitMQ's {MAX_TOKENS} tokens", text,
                token.start,
            )
        i = token.end
    return tokens


def _one(text: str, i: int, ch: str) -> Token:
    if ch == "'" or ch == '"':
        end = _quoted_end(text, i, ch, None)
        if end < 0:
            raise FilterSyntaxError("unterminated string", text, i, ("a closing quote",))
        value = text[i + 1 : end - 1].replace(ch + ch, ch)
        return Token("STRING", value, i, end)
    if ch == "[":
        end = _quoted_end(text, i, "]", "[")
        if end < 0:
            raise FilterSyntaxError("unterminated delimited identifier", text, i, ("]",))
        raw = text[i + 1 : end - 1]
        for k, c in enumerate(raw):
            if ord(c) < 32 or ord(c) == 127:
                raise FilterSyntaxError(
                    "a control character in a delimited identifier", text, i + 1 + k
                )
        return Token("IDENT", raw.replace("[[", "[").replace("]]", "]"), i, end)
    if "0" <= ch <= "9":
        return _number(text, i)
    if ("a" <= ch <= "z") or ("A" <= ch <= "Z"):
        return _word(text, i)
    for spelling, kind in _OPERATORS:
        if text.startswith(spelling, i):
            return Token(kind, None, i, i + len(spelling))
    raise FilterSyntaxError(f"unexpected character {ch!r}", text, i)


def _number(text: str, i: int) -> Token:
    best = Token("INT", None, i, _INT.match(text, i).end())  # type: ignore[union-attr]
    found = _FLOAT.match(text, i)
    if found and found.end() > best.end:
        value = float(found.group())
        if math.isinf(value):
            # Erlang's list_to_float refuses it: RabbitMQ's lexer fails.
            raise FilterSyntaxError("a number beyond the double range", text, i)
        return Token("FLOAT", value, i, found.end())
    found = _BINARY.match(text, i)
    if found and found.end() > best.end:
        return Token("BINARY", bytes.fromhex(found.group()[2:]), i, found.end())
    return Token("INT", int(text[i : best.end]), i, best.end)


def _word(text: str, i: int) -> Token:
    regular = _REGULAR.match(text, i)
    assert regular is not None
    section = _SECTION.match(text, i)
    if section and section.end() > regular.end():
        word = section.group()
        prefix, _, name = word.partition(".")
        where = SECTIONS.get(prefix)
        if where == "application":
            return Token("IDENT", name, i, section.end())
        if (where == "header" and name in HEADER_FIELDS) or (
            where == "properties" and name in PROPERTIES_FIELDS
        ):
            return Token("FIELD", name, i, section.end())
        raise FilterSyntaxError(f"unsupported field name {word!r}", text, i)
    word = regular.group()
    end = regular.end()
    if word in KEYWORDS:
        if word in ("TRUE", "FALSE"):
            return Token("BOOL", word == "TRUE", i, end)
        return Token(word, None, i, end)
    if word.lower() in RESERVED:
        raise FilterSyntaxError(
            f"{word!r} is reserved (keywords are upper case)", text, i
        )
    return Token("IDENT", word, i, end)


#: The fields RabbitMQ 4.2 reads (their one home is `msgfilter.message`).
HEADER_FIELDS: frozenset[str] = AMQP_HEADER_FIELDS
PROPERTIES_FIELDS: frozenset[str] = AMQP_PROPERTIES_FIELDS
