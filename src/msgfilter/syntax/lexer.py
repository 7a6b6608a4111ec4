"""Selector text -> tokens, by the lexical rules of the dialect (J3-J14).

Hand-written rather than lark's own lexer because identifiers are Java identifiers
(Unicode categories, which `re` cannot express) and keywords are ASCII-only and
case-insensitive; the grammar (selector.lark) only ever sees these token types.
"""

from __future__ import annotations

import re
import unicodedata

from lark import Token

from ..errors import FilterLimitError, FilterSyntaxError
from ..limits import Limits
from .grammar import Grammar

# Alternation order matters: approximate literals before exact ones so that `1.5` and
# `1e3` are one token, hex before decimal so that `0x1F` is one.
_SCAN = re.compile(
    r"""
      (?P<ws>[ \t\n\r\f]+)
    | (?P<ident>[A-Za-z_$][A-Za-z0-9_$]*)
    | (?P<approx>[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?
                 |[0-9]+[eE][+-]?[0-9]+)
    | (?P<hex>0[xX][0-9a-fA-F]+)
    | (?P<exact>[0-9]+[lL]?)
    | (?P<string>'[^']*(?:''[^']*)*')
    | (?P<quoted>"[^"]*(?:""[^"]*)*")
    | (?P<op><>|<=|>=|[=<>+\-*/%(),])
    """,
    re.VERBOSE,
)

_OPERATORS = {
    "=": "EQ", "<>": "NE", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE",
    "+": "PLUS", "-": "MINUS", "*": "STAR", "/": "SLASH", "%": "PERCENT",
    "(": "LPAR", ")": "RPAR", ",": "COMMA",
}

_START_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"})
_PART_CATEGORIES = _START_CATEGORIES | {"Nd", "Mn", "Mc", "Cf"}
_ASCII_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_ASCII_PART = _ASCII_START | frozenset("0123456789")
# Character.isIdentifierIgnorable: controls that Java lets stand inside an identifier.
_IGNORABLE = frozenset(chr(c) for c in [*range(0x00, 0x09), *range(0x0E, 0x1C), *range(0x7F, 0xA0)])


def _is_start(ch: str, unicode: bool) -> bool:
    if ch in _ASCII_START:
        return True
    return unicode and not ch.isascii() and unicodedata.category(ch) in _START_CATEGORIES


def _is_part(ch: str, unicode: bool) -> bool:
    if ch in _ASCII_PART:
        return True
    if not unicode:
        return False
    return ch in _IGNORABLE or (not ch.isascii() and unicodedata.category(ch) in _PART_CATEGORIES)


def _describe(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"{ch!r} (U+{ord(ch):04X}{' ' + name if name else ''})"


def tokenize(text: str, dialect: Grammar, limits: Limits) -> list[Token]:
    """The tokens of `text`; raises FilterSyntaxError at the first character that is not
    part of a token, FilterLimitError when parentheses nest deeper than the limit."""
    tokens: list[Token] = []
    pos, end, depth = 0, len(text), 0
    scan = _SCAN.match
    unicode, keywords = dialect.unicode_identifiers, dialect.keywords
    while pos < end:
        ch = text[pos]
        if dialect.comments and ch in "-/":
            skipped = _skip_comment(text, pos, dialect.line_comment_needs_eol)
            if skipped != pos:
                pos = skipped
                continue
        found = scan(text, pos)
        if (found is not None and found.lastgroup == "ident") or (
            found is None and _is_start(ch, unicode)
        ):
            # Identifiers start on the fast ASCII path and continue char by char only when
            # a non-ASCII Java identifier character follows.
            stop = found.end() if found is not None else pos + 1
            while unicode and stop < end and _is_part(text[stop], unicode):
                stop += 1
            while dialect.hyphenated_identifiers and stop < end and (
                text[stop] == "-" or text[stop] in _ASCII_PART
            ):
                stop += 1
            word = text[pos:stop]
            upper = word.upper() if word.isascii() else ""
            if upper in keywords:
                kind = not_kind(dialect) if upper == "NOT" else upper
            else:
                kind = "IDENT"
            tokens.append(Token(kind, word, start_pos=pos, end_pos=stop))
            pos = stop
            continue
        if found is None:
            if ch == "'":
                raise FilterSyntaxError("unterminated string literal", text, pos)
            if ch == '"' and dialect.quoted_identifiers:
                raise FilterSyntaxError("unterminated quoted identifier", text, pos)
            raise FilterSyntaxError(
                f"unexpected character {_describe(ch)}", text, pos, _expected_anything()
            )
        group, value, stop = found.lastgroup, found.group(), found.end()
        if group == "op":
            kind = _OPERATORS[value]
            if kind == "LPAR":
                depth += 1
                if depth > limits.max_depth:
                    raise FilterLimitError(
                        f"parentheses nest deeper than {limits.max_depth}", text, pos
                    )
            elif kind == "RPAR":
                depth -= 1
            if (kind in ("STAR", "SLASH") and not dialect.arithmetic) or (
                kind == "PERCENT" and not dialect.modulo
            ):
                raise FilterSyntaxError(
                    f"unexpected character {_describe(ch)}", text, pos, _expected_anything()
                )
        elif group == "exact":
            kind = "EXACT"
            _check_exact(value, text, pos, dialect)
        elif group == "hex":
            if not dialect.hex_octal:
                raise FilterSyntaxError("hexadecimal literals are not supported", text, pos)
            kind = "EXACT"
            if int(value, 16) > dialect.max_radix_exact:
                raise FilterSyntaxError("number out of range (larger than a long)", text, pos)
        elif group == "approx":
            kind = "APPROX"
        elif group == "string":
            kind = "STRING"
        elif group == "quoted":
            if not dialect.quoted_identifiers:
                raise FilterSyntaxError(
                    f"unexpected character {_describe(ch)}", text, pos, _expected_anything()
                )
            # Still an IDENT token, its text quoted: the builder decodes it, and no plain
            # identifier starts with `"`. Never a keyword: `"AND"` names a property.
            kind = "IDENT"
        else:  # whitespace
            pos = stop
            continue
        tokens.append(Token(kind, value, start_pos=pos, end_pos=stop))
        pos = stop
    return tokens


_MAX_DIGITS = 1000


def _check_exact(value: str, text: str, pos: int, dialect: Grammar) -> None:
    digits = value.rstrip("lL")
    suffixed = digits != value
    if len(digits) > 1 and digits[0] == "0":
        if not dialect.hex_octal:
            raise FilterSyntaxError("a number may not start with 0", text, pos)
        if suffixed:
            raise FilterSyntaxError("an octal literal takes no L suffix", text, pos)
        if any(d in "89" for d in digits):
            raise FilterSyntaxError(f"malformed octal literal {value!r}", text, pos)
        if int(digits, 8) > dialect.max_radix_exact:
            raise FilterSyntaxError("number out of range (larger than a long)", text, pos)
        return
    if digits == "0" and suffixed:
        raise FilterSyntaxError("0 takes no L suffix", text, pos)
    # Length first: int() of thousands of digits is slow, and refused past 4300 digits.
    if len(digits) > _MAX_DIGITS or (
        dialect.max_exact is not None and len(digits) > len(str(dialect.max_exact + 1))
    ):
        raise FilterSyntaxError("number out of range (larger than a long)", text, pos)
    # One more than the maximum is let through: it is Long.MIN_VALUE after a unary minus,
    # and the checker refuses it anywhere else (J10).
    if dialect.max_exact is not None and int(digits) > dialect.max_exact + 1:
        raise FilterSyntaxError("number out of range (larger than a long)", text, pos)


def _skip_comment(text: str, pos: int, needs_eol: bool) -> int:
    if text.startswith("--", pos):
        ends = [i for i in (text.find("\n", pos), text.find("\r", pos)) if i >= 0]
        if not ends:
            # ActiveMQ: without a line break `--` is two minus signs.
            return pos if needs_eol else len(text)
        end = min(ends)
        return end + 2 if text.startswith("\r\n", end) else end + 1
    if text.startswith("/*", pos):
        close = text.find("*/", pos + 2)
        if close < 0:
            raise FilterSyntaxError("unterminated comment", text, pos)
        return close + 2
    return pos


def _expected_anything() -> tuple[str, ...]:
    return ("an identifier", "a literal", "an operator", "a parenthesis")


def check_length(text: str, limits: Limits) -> None:
    if len(text) > limits.max_length:
        raise FilterLimitError(
            f"expression longer than {limits.max_length} characters", text, limits.max_length
        )


def not_kind(dialect: Grammar) -> str:
    """The token NOT is in the dialect: SQL92's loose NOT, the tight unary TNOT, or ENOT,
    the unary NOT over an equality (Qpid)."""
    if not dialect.tight_not:
        return "NOT"
    return "ENOT" if dialect.not_over_equality else "TNOT"
