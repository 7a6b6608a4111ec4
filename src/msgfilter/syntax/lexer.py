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


# The fast path: one match per token and the blanks before it (consumed by the match:
# `finditer` would try every alternative at each blank), all ASCII token forms.
# Alternatives sharing a first character keep `_SCAN`'s order (approximate, hex, exact).
# An identifier must be followed by the end, a blank or printable ASCII: anything else
# may continue a Java identifier (non-ASCII letters, the ignorable controls), which `re`
# cannot tell, so it falls to the last alternative and the careful loop takes over, as it
# does for every other character no token starts with. Possessive quantifiers: no
# backtracking into a literal, whatever the text holds.
_FAST = re.compile(
    r"""[ \t\n\r\f]*+
    (?:([A-Za-z_$][A-Za-z0-9_$]*+)(?![^ -~\t\n\r\f])
    | ('[^']*+(?:''[^']*+)*+')
    | (<>|<=|>=|[=<>+\-*/%(),])
    | ([0-9]++\.[0-9]*+(?:[eE][+-]?[0-9]++)?|\.[0-9]++(?:[eE][+-]?[0-9]++)?
       |[0-9]++[eE][+-]?[0-9]++)
    | (0[xX][0-9a-fA-F]++)
    | ([0-9]++[lL]?)
    | ("[^"]*+(?:""[^"]*+)*+")
    | ([^ \t\n\r\f]))
    """,
    re.VERBOSE,
)
#: Token kinds of literals: what a text of the same shape may hold different values of.
LITERAL_KINDS = frozenset({"STRING", "EXACT", "APPROX"})
# The code `scan` gives each literal kind: no identifier, keyword or operator spells one.
_LITERAL_CODES = {"'": "STRING", ".": "APPROX", "0": "EXACT"}
LITERAL_CODES = frozenset(_LITERAL_CODES)


class Lexed:
    """A text's tokens as `scan` reads them: cheaper than lark Tokens on the hot path.

    `codes` has one string per token: a keyword's upper-case text, an operator's text,
    an identifier's text as written, and for a literal `'` (string), `.` (approximate)
    or `0` (exact). No two kinds of token share a code, so the codes are the text's
    shape (`msgfilter.shapes`); `lits` are the literals' texts, in order."""

    __slots__ = ("_ends", "_kinds", "_matches", "_starts", "_texts", "codes", "keywords", "lits")

    def __init__(
        self, codes: list[str], lits: list[str], keywords: dict[str, str],
        matches: list[re.Match[str]] | None = None, tokens: list[Token] | None = None,
    ) -> None:
        self.codes, self.lits, self.keywords, self._matches = codes, lits, keywords, matches
        self._kinds: list[str] | None = None
        self._texts: list[str] | None = None
        self._starts: list[int] | None = None
        self._ends: list[int] | None = None
        if tokens is not None:
            self._kinds = [t.type for t in tokens]
            self._texts = [str(t) for t in tokens]
            self._starts = [t.start_pos or 0 for t in tokens]
            self._ends = [t.end_pos or 0 for t in tokens]

    @classmethod
    def of(cls, tokens: list[Token], dialect: Grammar) -> Lexed:
        """The same for tokens of the careful loop."""
        codes, lits = [], []
        for token in tokens:
            kind, text = token.type, str(token)
            if kind in LITERAL_KINDS:
                codes.append(next(c for c, k in _LITERAL_CODES.items() if k == kind))
                lits.append(text)
            elif kind == "IDENT" or kind in _OPERATOR_KINDS:
                codes.append(text)
            else:
                codes.append(text.upper())
        return cls(codes, lits, _keyword_kinds(dialect), tokens=tokens)

    @property
    def kinds(self) -> list[str]:
        if self._kinds is None:
            keywords = self.keywords
            self._kinds = [
                keywords.get(code) or _OPERATORS.get(code) or _LITERAL_CODES.get(code, "IDENT")
                for code in self.codes
            ]
        return self._kinds

    @property
    def texts(self) -> list[str]:
        if self._texts is None:
            self._texts = [m[m.lastindex or 0] for m in self._matches or ()]
        return self._texts

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [m.start(m.lastindex or 0) for m in self._matches or ()]
        return self._starts

    @property
    def ends(self) -> list[int]:
        if self._ends is None:
            self._ends = [m.end() for m in self._matches or ()]
        return self._ends

    def tokens(self) -> list[Token]:
        # Positional: lark's Token takes keywords through a slower path.
        return [
            Token(kind, text, start, None, None, None, None, end)
            for kind, text, start, end in zip(
                self.kinds, self.texts, self.starts, self.ends, strict=True
            )
        ]


_OPERATOR_KINDS = frozenset(_OPERATORS.values())
# Per grammar object (a few, owned by the registry): keyword text -> token kind, and the
# operator characters the grammar refuses. Keyed by identity: hashing a Grammar is slow.
_grammar_tables: dict[int, tuple[Grammar, dict[str, str], frozenset[str]]] = {}


def _keyword_kinds(dialect: Grammar) -> dict[str, str]:
    return _tables(dialect)[1]


def _tables(dialect: Grammar) -> tuple[Grammar, dict[str, str], frozenset[str]]:
    found = _grammar_tables.get(id(dialect))
    if found is None or found[0] is not dialect:
        keywords = {k: (not_kind(dialect) if k == "NOT" else k) for k in dialect.keywords}
        refused = frozenset(
            ("" if dialect.arithmetic else "*/") + ("" if dialect.modulo else "%")
        )
        found = (dialect, keywords, refused)
        if len(_grammar_tables) > 64:  # grammars made on the fly (Artemis's prefixes)
            _grammar_tables.clear()
        _grammar_tables[id(dialect)] = found
    return found


def scan(text: str, dialect: Grammar, limits: Limits) -> Lexed | None:
    """The tokens of `text` on the fast path, or None where the careful loop
    (`tokenize`) must decide: comments, non-ASCII identifiers, hyphenated names, and
    every error (that loop raises it, at the same place, with the same words)."""
    if dialect.hyphenated_identifiers or (
        dialect.comments and ("--" in text or "/*" in text)
    ):
        return None
    _, keywords, refused = _tables(dialect)
    codes: list[str] = []
    lits: list[str] = []
    matches = list(_FAST.finditer(text))
    append, literal = codes.append, lits.append
    for found in matches:
        group = found.lastindex
        if group == 1:
            value = found[1]
            upper = value.upper()
            append(upper if upper in keywords else value)
        elif group == 2:
            append("'")
            literal(found[2])
        elif group == 3:
            value = found[3]
            if value in refused:
                return None
            append(value)
        elif group == 4:
            append(".")
            literal(found[4])
        elif group == 6:
            value = found[6]
            # Up to 18 plain digits never break a rule of `_check_exact`: skip the call.
            if len(value) > 18 or value[0] == "0" or not value.isdigit():
                try:
                    _check_exact(value, text, 0, dialect)  # an error: the careful loop says it
                except FilterSyntaxError:
                    return None
            append("0")
            literal(value)
        elif group == 5:
            value = found[5]
            if not dialect.hex_octal or int(value, 16) > dialect.max_radix_exact:
                return None
            append("0")
            literal(value)
        elif group == 7 and dialect.quoted_identifiers:
            append(found[7])
        else:
            return None
    if text.count("(") > limits.max_depth and not _shallow(codes, limits.max_depth):
        return None
    return Lexed(codes, lits, keywords, matches)


# `_FAST`'s literal alternatives in its order (string, approximate, hex and exact), found
# by one C-level split. A number right after a character that continues an identifier is
# part of that identifier, as `_FAST` reads it: the look-behind keeps it out. The leading
# look-ahead lets the engine skip every other position at once (2.5 times as fast).
_LITERALS = re.compile(
    r"""(?=['0-9.])
    (?:('[^']*+(?:''[^']*+)*+')
    | (?<![A-Za-z0-9_$])
      (?:([0-9]++\.[0-9]*+(?:[eE][+-]?[0-9]++)?|\.[0-9]++(?:[eE][+-]?[0-9]++)?
          |[0-9]++[eE][+-]?[0-9]++)
      | (0[xX][0-9a-fA-F]++|[0-9]++[lL]?)))
    """,
    re.VERBOSE,
)


def split_literals(text: str, dialect: Grammar) -> tuple[tuple[str, ...], list[str]] | None:
    """`text` as the pieces between its literals, each literal's code ahead of the piece
    after it (`'`, `.`, `0`, as `Lexed.codes`), and the literals' texts; None where
    `scan` may not read it the same way whatever the literal values (comments, quoted
    identifiers, an exact literal `scan` checks further: hex, octal, long, 19 digits).

    Two texts with equal pieces are one shape if `scan` reads one of them into tokens
    that start where these literals do (`literals_agree`): the lexer's reading of the
    text between literals does not depend on their values, and at a literal it tries
    the alternatives this split tries, in the same order."""
    if '"' in text or (dialect.comments and ("--" in text or "/*" in text)):
        return None
    parts = _LITERALS.split(text)
    lits: list[str] = []
    pieces = [parts[0]]
    append, literal = pieces.append, lits.append
    for at in range(1, len(parts), 4):
        string, approx, exact = parts[at], parts[at + 1], parts[at + 2]
        if string is not None:
            append("'")
            literal(string)
        elif approx is not None:
            append(".")
            literal(approx)
        else:
            if len(exact) > 18 or exact[0] == "0" or not exact.isdigit():
                return None
            append("0")
            literal(exact)
        append(parts[at + 3])
    return tuple(pieces), lits


def literals_agree(pieces: tuple[str, ...], lexed: Lexed) -> bool:
    """`scan` read the literals `split_literals` found, where it found them."""
    starts, codes = lexed.starts, lexed.codes
    found = [i for i, code in enumerate(codes) if code in LITERAL_CODES]
    if len(found) * 2 + 1 != len(pieces):
        return False
    at = len(pieces[0])
    for number, token in enumerate(found):
        code, lit = pieces[2 * number + 1], lexed.lits[number]
        if codes[token] != code or starts[token] != at or lexed.ends[token] != at + len(lit):
            return False
        at += len(lit) + len(pieces[2 * number + 2])
    return True


def _shallow(codes: list[str], limit: int) -> bool:
    depth = 0
    for code in codes:
        if code == "(":
            depth += 1
            if depth > limit:
                return False
        elif code == ")":
            depth -= 1
    return True


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
