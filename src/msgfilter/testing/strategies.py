"""Hypothesis strategies: selectors, near-miss selectors, messages, tags and topic names.

Valid selectors are built from typed pieces (condition, number, string, boolean, any
value), so every one passes the `jms` dialect's static rules by construction: NOT only
before conditions (J17), no condition in an ordering or BETWEEN (J18), conditions where
one is required (J20), no string or boolean literal in an ordering or BETWEEN (J27), no
NULL in a comparison (J28), an identifier left of IN (J34), a one-character escape (J35),
and 9223372036854775808 only after a unary minus (J10). Simple choices come first in
every list, so failing examples shrink to short, readable selectors.

    from hypothesis import given
    from msgfilter.testing import reference_evaluate, selector_cases

    @given(selector_cases())
    def test_broker_agrees(case):
        text, messages = case
        for message in messages:
            assert my_broker(text, message) == reference_evaluate(text, message)
"""

from __future__ import annotations

import enum
import math
import os
import re
import string
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from .. import dialects
from ..errors import FilterError
from ..semantics.model import ValueModel
from .reference import (
    KEYWORDS,
    LONG_MAX,
    LONG_MIN,
    reference_filter,
    tokenize,
    walk,
)

__all__ = [
    "DEFAULT_IDENTIFIERS",
    "EXAMPLES_VARIABLE",
    "PROFILE_VARIABLE",
    "VALUE_KINDS",
    "expressions",
    "identifiers",
    "invalid_selectors",
    "messages",
    "property_settings",
    "selector_cases",
    "selectors",
    "tag_expressions",
    "topic_names",
    "topic_patterns",
]

#: The names `selectors()` and `messages()` share when not told otherwise.
DEFAULT_IDENTIFIERS: tuple[str, ...] = ("a", "b", "s", "JMSPriority", "über")

#: Kinds of message value `messages()` can produce (J21), plus NULL and odd objects.
VALUE_KINDS: tuple[str, ...] = ("long", "double", "string", "boolean", "null", "odd")

# Names worth trying: headers (J15), keyword look-alikes (J6), non-ASCII letters (J13),
# and names of the generated evaluator's own variables (none of which may leak, J40).
_NOTABLE_NAMES = (
    "a", "b", "x", "JMSPriority", "JMSType", "JMSDeliveryMode", "JMSTimestamp",
    "JMSCorrelationID", "JMSMessageID", "JMSRedelivered", "JMSXDeliveryCount",
    "jmspriority", "JMSDeliveryTime", "andy", "ISNULL", "NULLOR", "countIN", "xpath",
    "XQUERY", "$x", "_id", "über", "日本", "ın", "ＡＮＤ", "Ⅻ", "a\u0301", "m", "v0", "K0",
    "t1", "_s0", "type", "None", "__import__", "_cond", "__builtins__",
)

_LONG_EDGES = (
    LONG_MIN, LONG_MIN + 1, LONG_MAX, LONG_MAX - 1, 2**31 - 1, -(2**31), 2**31, 2**32,
    2**53, 2**53 + 1, -(2**53) - 1,
)
_DOUBLE_EDGES = (
    0.0, -0.0, math.nan, math.inf, -math.inf, 1.5, 0.1, 5e-324, 1.7976931348623157e308,
    2.0**53, 1e23,
)

# Grammar levels (J16), loosest first: an operand below the level a position needs is
# parenthesised when printed.
OR, AND, NOT, EQUALITY, RELATIONAL, ADDITIVE, MULTIPLICATIVE, UNARY, PRIMARY = range(1, 10)


class _Enum(enum.IntEnum):
    ONE = 1


class _Str(str):
    """A `str` subclass: not a Python `str` by exact class, so of no selector type."""


class _Float(float):
    """A `float` subclass, as numpy's float64 is."""


#: Values of no selector type (J21): unlike everything, NULL in arithmetic (J32).
ODD_VALUES: tuple[object, ...] = (
    b"x", bytearray(b"1"), [1], ("a",), {"k": 1}, object(), Decimal("1"), 1j, frozenset(),
    _Enum.ONE, _Str("x"), _Float(1.5),
)


# --------------------------------------------------------------------------------------
# Settings profiles
# --------------------------------------------------------------------------------------

#: The environment variable naming the Hypothesis profile `property_settings` starts from.
PROFILE_VARIABLE = "MSGFILTER_HYPOTHESIS_PROFILE"
#: The environment variable that, when set, overrides the profile's number of examples.
EXAMPLES_VARIABLE = "MSGFILTER_HYPOTHESIS_EXAMPLES"

# "msgfilter-ci" keeps a CI run bounded; "msgfilter-fuzz" is for long runs
# (benchmarks/fuzz.py). No deadline: a first compile builds the parser, and machines vary.
settings.register_profile(
    "msgfilter-ci",
    max_examples=100,
    # A CI run must not fail on a case that the previous run never drew: fixed seeds here,
    # random exploration in the fuzz profile.
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.data_too_large),
)
settings.register_profile(
    "msgfilter-fuzz", settings.get_profile("msgfilter-ci"), max_examples=5_000,
    derandomize=False,
)


def property_settings(share: float = 1.0) -> settings:
    """Settings for a property test: the profile named by `$MSGFILTER_HYPOTHESIS_PROFILE`
    (default `msgfilter-ci`: 100 examples, no deadline) or as many examples as
    `$MSGFILTER_HYPOTHESIS_EXAMPLES` says, times `share` for properties that are costly
    per example."""
    base = settings.get_profile(os.environ.get(PROFILE_VARIABLE, "msgfilter-ci"))
    examples = int(os.environ.get(EXAMPLES_VARIABLE, base.max_examples))
    return settings(base, max_examples=max(1, round(examples * share)))


# --------------------------------------------------------------------------------------
# Identifiers
# --------------------------------------------------------------------------------------


def _is_identifier(name: str) -> bool:
    """Whether `name` lexes as one identifier of the jms dialect."""
    try:
        tokens = tokenize(name)
    except FilterError:
        return False
    return len(tokens) == 2 and tokens[0].kind == "IDENT" and tokens[0].text == name


_IDENTIFIER_START = st.characters(categories=("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"))
_IDENTIFIER_PART = st.one_of(
    st.sampled_from("abcXYZ019_$"),
    st.characters(categories=("Lu", "Ll", "Lo", "Nl", "Sc", "Pc", "Nd", "Mn", "Mc", "Cf")),
    st.sampled_from("\x00\x07\x0e\x1b\x7f\x85\x9f"),  # controls Java ignores in names
)


def identifiers() -> st.SearchStrategy[str]:
    """Names that are identifiers of the jms dialect (J13): ASCII and Unicode letters,
    `$` and `_`, header names, keyword look-alikes, never a keyword."""
    generated = st.builds(
        lambda first, rest: first + rest,
        _IDENTIFIER_START,
        st.text(_IDENTIFIER_PART, max_size=6),
    )
    return st.one_of(st.sampled_from(_NOTABLE_NAMES), generated).filter(_is_identifier)


Names = Sequence[str] | st.SearchStrategy[str] | None


def _checked_names(names: Names) -> Names:
    """`names` itself, once a list of them is known to hold only identifiers."""
    if names is None or isinstance(names, st.SearchStrategy):
        return names
    pool = tuple(names)
    if not pool:
        raise ValueError("identifiers must name at least one identifier")
    for name in pool:
        if not _is_identifier(name):
            raise ValueError(f"{name!r} is not an identifier of the jms dialect")
    return pool


def _name_pool(draw: st.DrawFn, names: Names) -> tuple[str, ...]:
    if names is None:
        return DEFAULT_IDENTIFIERS
    if isinstance(names, st.SearchStrategy):
        return tuple(draw(st.lists(names, min_size=1, max_size=4, unique=True)))
    return tuple(names)


# --------------------------------------------------------------------------------------
# Valid selectors
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Expr:
    """A generated piece of selector: its tokens and the grammar level of its top."""

    tokens: tuple[str, ...]
    level: int


def _at(expr: _Expr, level: int) -> tuple[str, ...]:
    """`expr`'s tokens for a position that needs `level`, parenthesised if looser."""
    return ("(", *expr.tokens, ")") if expr.level < level else expr.tokens


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_STRING_ALPHABET = st.one_of(
    st.sampled_from("ax %_'\\\n\t\"\x00"),
    st.characters(codec="utf-8"),  # every code point but the lone surrogates
)
_ESCAPES = ("\\", "!", "#", "%", "_", "x", "€", "😀", "'", "\t")


class _Selectors:
    """Draws one valid selector, typed piece by typed piece."""

    def __init__(self, draw: st.DrawFn, names: tuple[str, ...]) -> None:
        self.draw = draw
        self.names = names

    def pick(self, count: int) -> int:
        return self.draw(st.integers(0, count - 1))

    def maybe(self) -> bool:
        return self.draw(st.booleans())

    def one(self, depth: int, leaves: list[Callable[[int], _Expr]],
            branches: list[Callable[[int], _Expr]]) -> _Expr:
        # Leaves first, so that shrinking turns branches into leaves; branches twice, so
        # that trees grow bushy enough to combine rules.
        choices = leaves + branches * 2 if depth > 0 else leaves
        return choices[self.pick(len(choices))](max(depth - 1, 0))

    # -- conditions -------------------------------------------------------------------

    def condition(self, depth: int) -> _Expr:
        # Comparisons are listed thrice: there are six of them and they carry most rules.
        expr = self.one(
            depth,
            [self.bare_identifier, self.comparison, self.truth_literal, self.comparison,
             self.is_null, self.like, self.comparison, self.in_list, self.between],
            [self.not_, self.and_, self.or_],
        )
        return self.decorate(expr, allow_plus=True) if depth > 0 else expr

    def decorate(self, expr: _Expr, allow_plus: bool = False) -> _Expr:
        """Redundant parentheses (and for a condition, unary plus: J19, J20)."""
        choice = self.pick(4 if allow_plus else 3)
        if choice == 1:
            return _Expr(("(", *expr.tokens, ")"), PRIMARY)
        if choice == 3:
            return _Expr(("+", "(", *expr.tokens, ")"), UNARY)
        return expr

    def identifier(self) -> str:
        return self.names[self.pick(len(self.names))]

    def bare_identifier(self, depth: int) -> _Expr:
        name = self.identifier()
        shape = self.pick(3)
        if shape == 1:
            return _Expr(("(", name, ")"), PRIMARY)
        if shape == 2:
            return _Expr(("+", name), UNARY)
        return _Expr((name,), PRIMARY)

    def truth_literal(self, depth: int) -> _Expr:
        return _Expr((("TRUE", "FALSE", "NULL")[self.pick(3)],), PRIMARY)

    def not_(self, depth: int) -> _Expr:
        return _Expr(("NOT", *_at(self.condition(depth), NOT)), NOT)

    def and_(self, depth: int) -> _Expr:
        return self.junction("AND", AND, depth)

    def or_(self, depth: int) -> _Expr:
        return self.junction("OR", OR, depth)

    def junction(self, word: str, level: int, depth: int) -> _Expr:
        tokens = list(_at(self.condition(depth), level))
        for _ in range(1 + self.pick(3)):
            tokens += [word, *_at(self.condition(depth), level + 1)]
        return _Expr(tuple(tokens), level)

    def comparison(self, depth: int) -> _Expr:
        op = ("=", "<>", "<", ">", "<=", ">=")[self.pick(6)]
        if op in ("=", "<>"):
            left, right = self.equatable_pair(depth)
            level = EQUALITY
        else:
            left, right = self.orderable(depth), self.orderable(depth)
            level = RELATIONAL
        return _Expr((*_at(left, level), op, *_at(right, level + 1)), level)

    def equatable_pair(self, depth: int) -> tuple[_Expr, _Expr]:
        """Operands of `=` / `<>`: anything but NULL (J28), mostly of like types."""
        kind = self.pick(5)
        if kind == 0:
            return self.number(depth), self.number(depth)
        if kind == 1:
            return self.string(depth), self.string(depth)
        if kind == 2:
            return self.boolean(depth), self.boolean(depth)
        return self.anything(depth), self.anything(depth)

    def orderable(self, depth: int) -> _Expr:
        """An operand of `<` ... `>=` or BETWEEN: no condition (J18), no string or
        boolean literal (J27), no NULL (J28); identifiers and expressions are fine."""
        kind = self.pick(4)
        if kind == 1:
            return _Expr((self.identifier(),), PRIMARY)
        if kind == 2 and depth > 0:
            return self.concatenation(depth - 1)
        if kind == 3:
            return self.ill_typed(depth)
        return self.number(depth)

    def between(self, depth: int) -> _Expr:
        operand, low, high = (self.orderable(depth) for _ in range(3))
        words = ("NOT", "BETWEEN") if self.maybe() else ("BETWEEN",)
        return _Expr(
            (*_at(operand, RELATIONAL), *words, *_at(low, ADDITIVE), "AND",
             *_at(high, ADDITIVE)),
            RELATIONAL,
        )

    def in_list(self, depth: int) -> _Expr:
        operand = self.bare_identifier(depth)  # J34: an identifier, maybe (x) or +x
        items: list[str] = []
        for _ in range(1 + self.pick(4)):
            items += [",", _quote(self.draw(st.text(_STRING_ALPHABET, max_size=4)))]
        words = ("NOT", "IN") if self.maybe() else ("IN",)
        return _Expr((*_at(operand, RELATIONAL), *words, "(", *items[1:], ")"), RELATIONAL)

    def like(self, depth: int) -> _Expr:
        kind = self.pick(3)
        operand = (
            _Expr((self.identifier(),), PRIMARY) if kind == 0
            else self.string(depth) if kind == 1
            else self.anything(depth)
        )
        escape = _ESCAPES[self.pick(len(_ESCAPES))] if self.maybe() else None
        pattern = self.like_pattern(escape)
        words = ("NOT", "LIKE") if self.maybe() else ("LIKE",)
        tail = ("ESCAPE", _quote(escape)) if escape is not None else ()
        return _Expr((*_at(operand, RELATIONAL), *words, _quote(pattern), *tail), RELATIONAL)

    def like_pattern(self, escape: str | None) -> str:
        parts: list[str] = []
        for _ in range(self.pick(5)):
            kind = self.pick(5)
            if kind == 1:
                parts.append("%")
            elif kind == 2:
                parts.append("_")
            elif kind == 3 and escape is not None:
                # An escaped wildcard or escape character, or a dangling escape (J36).
                parts.append(escape + ("%", "_", escape, "a", "")[self.pick(5)])
            else:
                parts.append(self.draw(st.text(_STRING_ALPHABET, min_size=1, max_size=3)))
        return "".join(parts)

    def is_null(self, depth: int) -> _Expr:
        kind = self.pick(4)
        operand = (
            _Expr((self.identifier(),), PRIMARY) if kind == 0
            else _Expr(("NULL",), PRIMARY) if kind == 1
            else self.condition(depth) if kind == 2
            else self.anything(depth)
        )
        words = ("IS", "NOT", "NULL") if self.maybe() else ("IS", "NULL")
        return _Expr((*_at(operand, EQUALITY), *words), EQUALITY)

    # -- values -----------------------------------------------------------------------

    def anything(self, depth: int) -> _Expr:
        kind = self.pick(5)
        if kind == 0:
            return self.number(depth)
        if kind == 1:
            return self.string(depth)
        if kind == 2:
            return self.boolean(depth)
        if kind == 3:
            return self.ill_typed(depth)
        return _Expr((self.identifier(),), PRIMARY)

    def number(self, depth: int) -> _Expr:
        return self.one(
            depth,
            [lambda d: _Expr((self.identifier(),), PRIMARY), self.exact, self.approximate,
             self.long_min],
            [self.negation, self.arithmetic, lambda d: self.decorate(self.number(d))],
        )

    def negation(self, depth: int) -> _Expr:
        sign = "-" if self.pick(3) else "+"
        return _Expr((sign, *_at(self.number(depth), UNARY)), UNARY)

    def arithmetic(self, depth: int) -> _Expr:
        op = ("+", "-", "*", "/")[self.pick(4)]
        level = ADDITIVE if op in "+-" else MULTIPLICATIVE
        left, right = self.number(depth), self.number(depth)
        return _Expr((*_at(left, level), op, *_at(right, level + 1)), level)

    def string(self, depth: int) -> _Expr:
        return self.one(
            depth,
            [lambda d: _Expr((self.identifier(),), PRIMARY), self.string_literal],
            [self.concatenation],
        )

    def string_literal(self, depth: int) -> _Expr:
        return _Expr((_quote(self.draw(st.text(_STRING_ALPHABET, max_size=6))),), PRIMARY)

    def concatenation(self, depth: int) -> _Expr:
        """J31: a string on the left of `+` appends the right operand's text."""
        left = self.string(depth)
        right = self.anything(depth)
        return _Expr((*_at(left, ADDITIVE), "+", *_at(right, MULTIPLICATIVE)), ADDITIVE)

    def boolean(self, depth: int) -> _Expr:
        kind = self.pick(3)
        if kind == 2:
            condition = self.condition(depth)  # a condition as a value (J18) ...
            if [t for t in condition.tokens if t not in "(+)"] != ["NULL"]:
                return condition  # ... unless it is NULL, which = and <> refuse (J28)
        if kind:
            return _Expr((("TRUE", "FALSE")[self.pick(2)],), PRIMARY)
        return _Expr((self.identifier(),), PRIMARY)

    def ill_typed(self, depth: int) -> _Expr:
        """Valid text whose value is NULL at run time (J19, J29, J32)."""
        forms = (
            ("NULL", "+", "1"), ("-", "'x'"), ("-", "TRUE"), ("TRUE", "+", "1"),
            ("'a'", "*", "2"), ("1", "+", "'a'"), ("1", "/", "0"), ("-", "NULL"),
        )
        tokens = forms[self.pick(len(forms))]
        return _Expr(tokens, UNARY if len(tokens) == 2 else ADDITIVE)

    # -- literals ---------------------------------------------------------------------

    def exact(self, depth: int) -> _Expr:
        value = self.draw(
            st.one_of(st.integers(0, 10), st.sampled_from([e for e in _LONG_EDGES if e > 0]),
                      st.integers(0, LONG_MAX))
        )
        form = self.pick(4)
        if form == 1 and value > 0:
            text = str(value) + ("L", "l")[self.pick(2)]
        elif form == 2:
            text = "0" + format(value, "o")  # octal (J9); 0 is `00`
        elif form == 3:
            digits = format(value, "x")
            digits = (digits, digits.upper())[self.pick(2)]
            text = ("0x", "0X")[self.pick(2)] + "0" * self.pick(2) + digits
        else:
            text = str(value)
        return _Expr((text,), PRIMARY)

    def long_min(self, depth: int) -> _Expr:
        """J10: 9223372036854775808 is allowed only after a unary minus."""
        forms = (
            ("-", "9223372036854775808"), ("-", "9223372036854775808L"),
            ("-", "(", "9223372036854775808", ")"), ("-", "+", "9223372036854775808"),
        )
        return _Expr(forms[self.pick(len(forms))], UNARY)

    def approximate(self, depth: int) -> _Expr:
        """J11: `1.5`, `.5`, `5.`, `1e3`, `2.5E-2` and their combinations."""
        special = ("1e400", "1e-400", "1.7976931348623157E308", "4.9e-324", "09.5")
        if self.pick(8) == 7:
            return _Expr((special[self.pick(len(special))],), PRIMARY)
        whole = self.draw(st.from_regex(r"[0-9]{1,4}", fullmatch=True))
        fraction = self.draw(st.from_regex(r"[0-9]{1,4}", fullmatch=True))
        exponent = ("e", "E")[self.pick(2)] + ("", "+", "-")[self.pick(3)] + str(self.pick(40))
        shape = self.pick(7)
        text = (
            f"{whole}.{fraction}", f".{fraction}", f"{whole}.", f"{whole}{exponent}",
            f"{whole}.{fraction}{exponent}", f".{fraction}{exponent}", f"{whole}.{exponent}",
        )[shape]
        return _Expr((text,), PRIMARY)


# -- printing ----------------------------------------------------------------------------

_SEPARATORS = (" ", "\t", "\n", "\r", "\f", "\r\n", "  ", "")


def _abuts(left: str, right: str) -> bool:
    """Whether `left` and `right` written without a space still lex as those two tokens
    (J4: `1AND` does; `1L` + `IKE` or `<` + `>` do not)."""
    try:
        tokens = tokenize(left + right)
    except FilterError:
        return False
    return [t.text for t in tokens[:-1]] == [left, right]


def _keyword_case(draw: st.DrawFn, tokens: Sequence[str]) -> list[str]:
    style = draw(st.sampled_from(("upper", "lower", "title", "mixed")))
    out = []
    for token in tokens:
        if token in KEYWORDS:
            chosen = style if style != "mixed" else draw(
                st.sampled_from(("upper", "lower", "title", "alternate"))
            )
            token = {
                "upper": token,
                "lower": token.lower(),
                "title": token.title(),
                "alternate": "".join(
                    c.lower() if i % 2 else c for i, c in enumerate(token)
                ),
            }[chosen]
        out.append(token)
    return out


def _render(draw: st.DrawFn, tokens: Sequence[str]) -> str:
    """Join tokens with single spaces, or with varied whitespace (J3) and none where
    tokens do not run together (J4), keywords in varied case (J6)."""
    words = _keyword_case(draw, tokens)
    style = draw(st.sampled_from(("single", "varied", "compact")))
    if style == "single":
        return " ".join(words)
    pieces = [draw(st.sampled_from(_SEPARATORS)) if style == "varied" else ""]
    for i, word in enumerate(words):
        if i:
            gap = draw(st.sampled_from(_SEPARATORS)) if style == "varied" else ""
            if not gap and not _abuts(words[i - 1], word):
                gap = " "
            pieces.append(gap)
        pieces.append(word)
    if style == "varied":
        pieces.append(draw(st.sampled_from(_SEPARATORS)))
    return "".join(pieces)


def _check_dialect(dialect: str) -> None:
    # The strategies generate the JMS value model's grammar and typing rules.
    if dialects.get(dialect).model is not ValueModel.JMS:
        raise ValueError(f"only the jms dialect has selector strategies so far, not {dialect!r}")


@st.composite
def _selector_tokens(
    draw: st.DrawFn,
    max_depth: int,
    names: Names,
) -> tuple[str, ...]:
    pool = _name_pool(draw, names)
    # The full depth is only room to grow: each level picks a leaf first when shrinking.
    return _Selectors(draw, pool).condition(max_depth).tokens


def selectors(
    dialect: str = dialects.DEFAULT,
    *,
    max_depth: int = 3,
    identifiers: Names = None,
) -> st.SearchStrategy[str]:
    """Valid selector texts of `dialect` over its whole grammar.

    Every operator and literal form, case-varied keywords, varied whitespace, redundant
    parentheses. `max_depth` bounds how far conditions nest; `identifiers` is a list of
    names to use, or a strategy of names (each example draws a few and reuses them),
    default `DEFAULT_IDENTIFIERS`. Only the `jms` dialect is supported so far.
    """
    _check_dialect(dialect)
    if max_depth < 0:
        raise ValueError("max_depth must be at least 0")
    names = _checked_names(identifiers)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        return _render(draw, draw(_selector_tokens(max_depth, names)))

    return build()


_EXPRESSION_KINDS = ("any", "number", "string", "boolean")


def expressions(
    dialect: str = dialects.DEFAULT,
    *,
    kind: str = "any",
    max_depth: int = 3,
    identifiers: Names = None,
) -> st.SearchStrategy[str]:
    """Value expressions (operands, not whole selectors) of `dialect`: `number`
    (literals of every form, arithmetic, unary signs), `string` (literals,
    concatenation), `boolean` (TRUE, FALSE, conditions as values) or `any` of those and
    expressions whose value is NULL by the type rules (J32). Parenthesised, one fits
    wherever an operand does, as in `'' + (X) = t`, which shows X's exact value (J31)."""
    _check_dialect(dialect)
    if kind not in _EXPRESSION_KINDS:
        raise ValueError(f"kind must be one of {', '.join(_EXPRESSION_KINDS)}, not {kind!r}")
    if max_depth < 0:
        raise ValueError("max_depth must be at least 0")
    names = _checked_names(identifiers)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        pieces = _Selectors(draw, _name_pool(draw, names))
        make = {"any": pieces.anything, "number": pieces.number, "string": pieces.string,
                "boolean": pieces.boolean}[kind]
        return _render(draw, make(max_depth).tokens)

    return build()


# --------------------------------------------------------------------------------------
# Near misses
# --------------------------------------------------------------------------------------

_JUNK = (
    "!=", "==", "!", "&&", "||", '"x"', "#", "@", ";", "[", "]", "{", "}", "%", ":", "?",
    "`", "\\", ".", "..", "'", "'open", "1.2.3", "08", "0x", "0L", "010L", "0x1FL",
    "1.5f", "1e", "9223372036854775808", "0x8000000000000000", "1_000", "0b1", "\u00a0",
    "\u2003", "\v", "/*", "*/", "--", "NOT", "AND", "OR", "IS", "NULL", "IN", "LIKE",
    "ESCAPE", "BETWEEN", "()", ",", "XPATH", "REGEX(", "''", "(", ")", "=", "<", "+",
)
_TYPOS = {"AND": "ANDD", "OR": "ORR", "NOT": "NOTT", "LIKE": "LIK", "BETWEEN": "BETWEN",
          "ESCAPE": "ESCAP", "NULL": "NUL", "IS": "ISS", "IN": "INN"}


@st.composite
def _mutated(
    draw: st.DrawFn, max_depth: int, names: Names
) -> str:
    tokens = list(draw(_selector_tokens(max_depth, names)))
    position = draw(st.integers(0, len(tokens) - 1))
    junk = draw(st.sampled_from(_JUNK))
    kind = draw(st.integers(0, 9))
    if kind == 0:
        del tokens[position]
    elif kind == 1:
        tokens.insert(position, tokens[position])
    elif kind == 2 and len(tokens) > 1:
        at = min(position, len(tokens) - 2)
        tokens[at], tokens[at + 1] = tokens[at + 1], tokens[at]
    elif kind == 3:
        tokens = tokens[:position]
    elif kind == 4:
        tokens.insert(position, junk)
    elif kind == 5:
        tokens[position] = junk
    elif kind == 6:
        tokens.insert(position, draw(st.sampled_from(("(", ")"))))
    elif kind == 7:
        replaced = {"=": "==", "<>": "!=", "<=": "=<", ">=": "=>"}
        tokens = [replaced.get(t, t) for t in tokens]
    elif kind == 8:
        tokens = [_TYPOS.get(t, t) for t in tokens]
    else:
        text = " ".join(tokens)
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(st.characters()) + text[at:]
    return _render(draw, tokens)


def invalid_selectors(
    dialect: str = dialects.DEFAULT,
    *,
    max_depth: int = 2,
    identifiers: Names = None,
) -> st.SearchStrategy[str]:
    """Near-miss selector texts for error paths: valid selectors with a token dropped,
    doubled, swapped or replaced by junk (`!=`, `==`, `"x"`, `08`, `0L`, `1.5f`, an
    unclosed string...), cut short, with unbalanced parentheses or a stray character.

    A mutation can land on valid text (dropping a redundant parenthesis pair's half
    cannot, but doubling a NOT can): a test must accept either a `FilterError` or a
    working filter.
    """
    _check_dialect(dialect)
    return _mutated(max_depth, _checked_names(identifiers))


# --------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------


def _value_strategy(kind: str, surrogates: bool) -> st.SearchStrategy[object]:
    if kind == "long":
        return st.one_of(
            st.integers(-3, 12), st.sampled_from(_LONG_EDGES), st.integers(LONG_MIN, LONG_MAX)
        )
    if kind == "double":
        return st.one_of(st.sampled_from(_DOUBLE_EDGES), st.floats())
    if kind == "string":
        alphabet = st.characters() if surrogates else _STRING_ALPHABET
        return st.one_of(
            st.sampled_from(("", "a", "A", "PERSISTENT", "%", "it's", "😀", "\uffff", "\ue000",
                             "\n")),
            st.text(alphabet, max_size=8),
        )
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "odd":
        return st.sampled_from(ODD_VALUES)
    raise ValueError(f"unknown value kind {kind!r}; known: {', '.join(VALUE_KINDS)}")


@st.composite
def _messages(
    draw: st.DrawFn,
    names: Names,
    types: Collection[str] | Mapping[str, str],
    missing: bool,
    surrogates: bool,
    extra_values: Sequence[object] = (),
) -> dict[str, object]:
    pool = _name_pool(draw, names)
    message: dict[str, object] = {}
    for name in pool:
        if missing and draw(st.booleans()):
            continue  # absent: NULL (J15)
        if isinstance(types, Mapping):
            kind = types.get(name, "null")
        else:
            kind = draw(st.sampled_from(sorted(types, key=VALUE_KINDS.index)))
        kinds = {kind} if isinstance(types, Mapping) else set(types)
        # Values of the selector's literals, or of other names of this message (so that
        # `a = b` meets equal values, NaN included), make its branches go every way.
        candidates = [
            v for v in (*extra_values, *message.values()) if _kind_of(v) in kinds
        ]
        use_candidate = draw(st.booleans())
        if candidates and use_candidate:
            message[name] = draw(st.sampled_from(candidates))
        else:
            message[name] = draw(_value_strategy(kind, surrogates))
    return message


def _kind_of(value: object) -> str:
    cls = type(value)
    return {int: "long", float: "double", str: "string", bool: "boolean"}.get(cls, "odd")


def messages(
    identifiers: Names = None,
    types: Collection[str] | Mapping[str, str] = VALUE_KINDS,
    *,
    missing: bool = True,
    surrogates: bool = False,
) -> st.SearchStrategy[dict[str, object]]:
    """Property mappings over `identifiers` (default `DEFAULT_IDENTIFIERS`).

    `types` is either the kinds of value to mix (`VALUE_KINDS`: `long` — including the
    64-bit bounds —, `double` — NaN, ±Infinity, -0.0 —, `string` — empty, non-BMP,
    newlines —, `boolean`, `null`, `odd` — bytes, a list, an `object()` and other
    values of no selector type), or a mapping from each name to one kind, as a typed
    table column needs. With `missing`, names are often absent. `surrogates` lets
    strings hold lone surrogates (Java strings can; Arrow and UTF-8 cannot).
    """
    kinds = types.values() if isinstance(types, Mapping) else types
    for kind in kinds:
        if kind not in VALUE_KINDS:
            raise ValueError(f"unknown value kind {kind!r}; known: {', '.join(VALUE_KINDS)}")
    return _messages(_checked_names(identifiers), types, missing, surrogates)


@st.composite
def _cases(
    draw: st.DrawFn,
    dialect: str,
    max_depth: int,
    names: Names,
    types: Collection[str] | Mapping[str, str],
    max_messages: int,
) -> tuple[str, list[dict[str, object]]]:
    pool = _name_pool(draw, names)
    text = draw(selectors(dialect, max_depth=max_depth, identifiers=pool))
    values = _interesting_values(text)
    found = draw(
        st.lists(_messages(pool, types, True, False, values), min_size=1, max_size=max_messages)
    )
    return text, found


def _interesting_values(text: str) -> list[object]:
    """Values a message could hold to make `text` TRUE somewhere: its literals (and
    their neighbours), IN items, and strings its LIKE patterns match."""
    tree = reference_filter(text).tree
    if tree is None:
        return []
    values: list[object] = [0, 0.0]
    for node in walk(tree):
        if node.kind == "literal":
            values += _neighbours(node.value)
        elif node.kind == "in":
            for item in node.items:
                values += _neighbours(item)
        elif node.kind == "like":
            values += _neighbours(_a_match(node.pattern, node.escape))
    return values


def _neighbours(value: object) -> list[object]:
    """`value` and values just beside it: the other numeric type, one more or less, the
    other letter case, one character more or less."""
    if type(value) is int:
        # Java longs only: -LONG_MIN is beyond them (and a Python int there is no long).
        found: list[object] = [value, float(value), value + 0.5]
        found += [v for v in (-value, value - 1, value + 1) if LONG_MIN <= v <= LONG_MAX]
        return found
    if type(value) is float:
        found = [value, -value, value / 2]
        if math.isfinite(value) and abs(value) < 2**63:
            found.append(int(value))
        return found
    if type(value) is str:
        return [value, value.swapcase(), value + "x", value[:-1]]
    return [] if value is None else [value]


def _a_match(pattern: str, escape: str | None) -> str:
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape and i + 1 < len(pattern) and pattern[i + 1] in ("%", "_", escape):
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append("" if ch == "%" else "z" if ch == "_" else ch)
        i += 1
    return "".join(out)


def selector_cases(
    dialect: str = dialects.DEFAULT,
    *,
    max_depth: int = 3,
    identifiers: Names = None,
    types: Collection[str] | Mapping[str, str] = VALUE_KINDS,
    max_messages: int = 4,
) -> st.SearchStrategy[tuple[str, list[dict[str, object]]]]:
    """A selector and a few messages over the same names, whose values are often the
    selector's own literals, IN items and LIKE matches, so that every branch of the
    selector gets to be TRUE, FALSE and UNKNOWN."""
    _check_dialect(dialect)
    messages(identifiers, types)  # checks the arguments
    return _cases(dialect, max_depth, _checked_names(identifiers), types, max_messages)


# --------------------------------------------------------------------------------------
# Tags and topics
# --------------------------------------------------------------------------------------

_TAG = st.text(
    st.one_of(st.sampled_from(string.ascii_letters + string.digits + "_-.*|"),
              st.sampled_from("äß日😀 ")),
    min_size=1,
    max_size=8,
).filter(lambda t: "||" not in t and t.strip() != "" and not t.startswith("|")
         and not t.endswith("|"))


@st.composite
def _tag_expression(draw: st.DrawFn) -> str:
    form = draw(st.integers(0, 3))
    if form == 1:
        return draw(st.sampled_from(("*", "", " * ", "TagA", " TagA ")))
    tags = draw(st.lists(_TAG, min_size=1, max_size=4))
    pieces = []
    for i, tag in enumerate(tags):
        if i:
            pieces.append(draw(st.sampled_from((" || ", "||", " ||", "|| ", "\t||\t"))))
        pieces.append(tag)
    text = "".join(pieces)
    if form == 2:
        text = draw(st.sampled_from(("||", " || "))) + text  # leading empty piece
    elif form == 3:
        text += draw(st.sampled_from(("||", " ||")))  # trailing empty piece
    return text


def tag_expressions() -> st.SearchStrategy[str]:
    """RocketMQ tag subscription expressions (brokers.md A.1): `*`, the empty string,
    `A`, `A || B || C` with assorted spacing, leading or trailing `||`; each has at
    least one tag, so the broker accepts it (`||` alone is its one parse error)."""
    return _tag_expression()


_ENTITY = st.one_of(
    st.sampled_from(("public", "default", "tenant", "ns", "my-tenant", "a.b", "x=y")),
    st.from_regex(r"[a-z][-=:.a-z0-9_]{0,7}", fullmatch=True),
)
_LOCAL = st.one_of(
    st.sampled_from(("topic", "orders", "t1", "my-topic", "a.b.c", "__change_events")),
    st.from_regex(r"[A-Za-z0-9_][-A-Za-z0-9_.]{0,11}", fullmatch=True),
)


@st.composite
def _topic_name(draw: st.DrawFn, domains: Sequence[str], partitions: bool) -> str:
    domain = draw(st.sampled_from(domains))
    name = f"{domain}://{draw(_ENTITY)}/{draw(_ENTITY)}/{draw(_LOCAL)}"
    if partitions and draw(st.booleans()):
        name += f"-partition-{draw(st.integers(0, 99))}"
    return name


def topic_names(
    domains: Sequence[str] = ("persistent", "non-persistent"), *, partitions: bool = True
) -> st.SearchStrategy[str]:
    """Complete Pulsar topic names `domain://tenant/namespace/local`, with a
    `-partition-N` suffix when `partitions` (brokers.md B.3)."""
    return _topic_name(tuple(domains), partitions)


@st.composite
def _topic_pattern(draw: st.DrawFn, domains: Sequence[str]) -> str:
    domain = draw(st.sampled_from(domains))
    tenant, namespace = draw(_ENTITY), draw(_ENTITY)
    prefix = draw(st.from_regex(r"[a-z0-9_-]{0,4}", fullmatch=True))
    alternatives = draw(st.lists(_LOCAL, min_size=2, max_size=3, unique=True))
    alternation = "(" + "|".join(map(re.escape, alternatives)) + ")"
    tail = draw(st.sampled_from((".*", ".+", "", "[a-z0-9_-]*", "-[0-9]+", alternation)))
    anchor = draw(st.sampled_from(("", "^")))
    return f"{anchor}{domain}://{re.escape(tenant)}/{re.escape(namespace)}/{re.escape(prefix)}{tail}"


def topic_patterns(
    domains: Sequence[str] = ("persistent", "non-persistent"),
) -> st.SearchStrategy[str]:
    """Topic regexes as Pulsar clients send them (brokers.md B.3):
    `persistent://tenant/ns/prefix.*` and kin, with escaped tenant, namespace and
    prefix, alternations, classes and an optional `^`."""
    return _topic_pattern(tuple(domains))
