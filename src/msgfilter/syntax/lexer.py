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


# The fast path: one match per token (with the blanks before it), all ASCII token forms,
# in `_SCAN`'s order. An identifier must be followed by the end, a blank or printable
# ASCII: anything else may continue a Java identifier (non-ASCII letters, the ignorable
# controls), which `re` cannot tell, so the match fails and the careful loop takes over.
# Possessive quantifiers: no backtracking into a literal, whatever the text holds.
_FAST = re.compile(
    r"""[ \t\n\r\f]*+(?:
      ([A-Za-z_$][A-Za-z0-9_$]*+)(?![^ -~\t\n\r\f])
    | ([0-9]++\.[0-9]*+(?:[eE][+-]?[0-9]++)?|\.[0-9]++(?:[eE][+-]?[0-9]++)?
       |[0-9]++[eE][+-]?[0-9]++)
    | (0[xX][0-9a-fA-F]++)
    | ([0-9]++[lL]?)
    | ('[^']*+(?:''[^']*+)*+')
    | ("[^"]*+(?:""[^"]*+)*+")
    | (<>|<=|>=|[=<>+\-*/%(),])
    )""",
    re.VERBOSE,
)
_BLANK = re.compile(r"[ \t\n\r\f]*+\Z")
_IDENT, _APPROX, _HEX, _EXACT, _STRING, _QUOTED, _OP = range(1, 8)
#: Token kinds of literals: what a text of the same shape may hold different values of.
LITERAL_KINDS = frozenset({"STRING", "EXACT", "APPROX"})


class Lexed:
    """A text's tokens as parallel lists (cheaper than lark Tokens on the hot path), with
    the texts of its identifiers and of its literals in order (what `msgfilter.shapes`
    keys and fills templates by)."""

    __slots__ = ("ends", "idents", "kinds", "lits", "starts", "texts")

    def __init__(
        self, kinds: list[str], texts: list[str], starts: list[int], ends: list[int],
        idents: list[str], lits: list[str],
    ) -> None:
        self.kinds, self.texts, self.starts, self.ends = kinds, texts, starts, ends
        self.idents, self.lits = idents, lits

    @classmethod
    def of(cls, tokens: list[Token]) -> Lexed:
        """The same lists for tokens of the careful loop."""
        kinds = [t.type for t in tokens]
        texts = [str(t) for t in tokens]
        return cls(
            kinds, texts, [t.start_pos or 0 for t in tokens], [t.end_pos or 0 for t in tokens],
            [t for k, t in zip(kinds, texts, strict=True) if k == "IDENT"],
            [t for k, t in zip(kinds, texts, strict=True) if k in LITERAL_KINDS],
        )

    def tokens(self) -> list[Token]:
        return [
            Token(kind, text, start_pos=start, end_pos=end)
            for kind, text, start, end in zip(
                self.kinds, self.texts, self.starts, self.ends, strict=True
            )
        ]


_keyword_tables: dict[Grammar, dict[str, str]] = {}


def _keyword_kinds(dialect: Grammar) -> dict[str, str]:
    table = _keyword_tables.get(dialect)
    if table is None:
        table = {k: (not_kind(dialect) if k == "NOT" else k) for k in dialect.keywords}
        _keyword_tables[dialect] = table  # a few grammars only: no bound needed
    return table


def scan(text: str, dialect: Grammar, limits: Limits) -> Lexed | None:
    """The tokens of `text` on the fast path, or None where the careful loop
    (`tokenize`) must decide: comments, non-ASCII identifiers, hyphenated names, and
    every error (that loop raises it, at the same place, with the same words)."""
    if dialect.hyphenated_identifiers or (
        dialect.comments and ("--" in text or "/*" in text)
    ):
        return None
    kinds: list[str] = []
    texts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    idents: list[str] = []
    lits: list[str] = []
    keywords = _keyword_kinds(dialect)
    match = _FAST.match
    pos, end, depth = 0, len(text), 0
    while pos < end:
        found = match(text, pos)
        if found is None:
            if _BLANK.match(text, pos) is not None:
                break
            return None
        group = found.lastindex
        start, stop = found.start(group), found.end()
        value = found.group(group)
        if group == _IDENT:
            kind = keywords.get(value.upper(), "IDENT")
            if kind == "IDENT":
                idents.append(value)
        elif group == _STRING:
            kind = "STRING"
            lits.append(value)
        elif group == _OP:
            kind = _OPERATORS[value]
            if kind == "LPAR":
                depth += 1
                if depth > limits.max_depth:
                    return None
            elif kind == "RPAR":
                depth -= 1
            elif (kind in ("STAR", "SLASH") and not dialect.arithmetic) or (
                kind == "PERCENT" and not dialect.modulo
            ):
                return None
        elif group == _EXACT:
            kind = "EXACT"
            try:
                _check_exact(value, text, start, dialect)
            except FilterSyntaxError:
                return None
            lits.append(value)
        elif group == _APPROX:
            kind = "APPROX"
            lits.append(value)
        elif group == _HEX:
            if not dialect.hex_octal or int(value, 16) > dialect.max_radix_exact:
                return None
            kind = "EXACT"
            lits.append(value)
        else:  # a quoted identifier
            if not dialect.quoted_identifiers:
                return None
            kind = "IDENT"
            idents.append(value)
        kinds.append(kind)
        texts.append(value)
        starts.append(start)
        ends.append(stop)
        pos = stop
    return Lexed(kinds, texts, starts, ends, idents, lits)


def tokenize(text: str, dialect: Grammar, limits: Limits) -> list[Token]:
    """The tokens of `text`; raises FilterSyntaxError at the first character that is not
    part of a token, FilterLimitError when parentheses nest deeper than the limit."""
    lexed = scan(text, dialect, limits)
    if lexed is not None:
        return lexed.tokens()
    return _tokenize(text, dialect, limits)


def _tokenize(text: str, dialect: Grammar, limits: Limits) -> list[Token]:
    """The careful loop: a character at a time where `scan` cannot decide."""
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
