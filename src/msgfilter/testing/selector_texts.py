"""Valid selectors and expressions, built from typed pieces so that every one passes the
`jms` dialect's static rules (see `msgfilter.testing.strategies`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from .. import dialects
from ..errors import FilterError
from ..semantics.model import ValueModel
from .reference import (
    KEYWORDS,
    LONG_MAX,
    tokenize,
)
from .vocabulary import BOOLEANS, LONG_EDGES, Names, checked_names, draw_index, name_pool

# Grammar levels (J16), loosest first: an operand below the level a position needs is
# parenthesised when printed.
OR, AND, NOT, EQUALITY, RELATIONAL, ADDITIVE, MULTIPLICATIVE, UNARY, PRIMARY = range(1, 10)


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


STRING_ALPHABET = st.one_of(
    st.sampled_from("ax %_'\\\n\t\"\x00"),
    # Every code point but the lone surrogates (the set `codec="utf-8"` names, without
    # the 15 s Hypothesis spends deriving that set from the codec in a fresh checkout).
    st.characters(exclude_categories=["Cs"]),
)
_ESCAPES = ("\\", "!", "#", "%", "_", "x", "€", "😀", "'", "\t")

# Every strategy a draw uses is made once, here: a strategy made during a draw is made
# and validated again on each draw, which was most of the time a case took.
_IN_ITEMS = st.text(STRING_ALPHABET, max_size=4)
_PATTERN_TEXTS = st.text(STRING_ALPHABET, min_size=1, max_size=3)
_STRING_LITERALS = st.text(STRING_ALPHABET, max_size=6)
_EXACT_VALUES = st.one_of(
    st.integers(0, 10), st.sampled_from([e for e in LONG_EDGES if e > 0]),
    st.integers(0, LONG_MAX),
)
_DIGITS = st.text("0123456789", min_size=1, max_size=4)


class _Selectors:
    """Draws one valid selector, typed piece by typed piece."""

    def __init__(self, draw: st.DrawFn, names: tuple[str, ...]) -> None:
        self.draw = draw
        self.names = names

    def pick(self, count: int) -> int:
        return draw_index(self.draw, count)

    def maybe(self) -> bool:
        return self.draw(BOOLEANS)

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
            items += [",", _quote(self.draw(_IN_ITEMS))]
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
                parts.append(self.draw(_PATTERN_TEXTS))
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
        return _Expr((_quote(self.draw(_STRING_LITERALS)),), PRIMARY)

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
        value = self.draw(_EXACT_VALUES)
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
        whole = self.draw(_DIGITS)
        fraction = self.draw(_DIGITS)
        exponent = ("e", "E")[self.pick(2)] + ("", "+", "-")[self.pick(3)] + str(self.pick(40))
        shape = self.pick(7)
        text = (
            f"{whole}.{fraction}", f".{fraction}", f"{whole}.", f"{whole}{exponent}",
            f"{whole}.{fraction}{exponent}", f".{fraction}{exponent}", f"{whole}.{exponent}",
        )[shape]
        return _Expr((text,), PRIMARY)


# -- printing ----------------------------------------------------------------------------

_SEPARATORS = (" ", "\t", "\n", "\r", "\f", "\r\n", "  ", "")
_SEPARATOR = st.sampled_from(_SEPARATORS)
_KEYWORD_STYLE = st.sampled_from(("upper", "lower", "title", "mixed"))
_TOKEN_STYLE = st.sampled_from(("upper", "lower", "title", "alternate"))
_SPACING = st.sampled_from(("single", "varied", "compact"))


@functools.lru_cache(maxsize=4096)
def _abuts(left: str, right: str) -> bool:
    """Whether `left` and `right` written without a space still lex as those two tokens
    (J4: `1AND` does; `1L` + `IKE` or `<` + `>` do not)."""
    try:
        tokens = tokenize(left + right)
    except FilterError:
        return False
    return [t.text for t in tokens[:-1]] == [left, right]


def _keyword_case(draw: st.DrawFn, tokens: Sequence[str]) -> list[str]:
    style = draw(_KEYWORD_STYLE)
    out = []
    for token in tokens:
        if token in KEYWORDS:
            chosen = style if style != "mixed" else draw(_TOKEN_STYLE)
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


def render(draw: st.DrawFn, tokens: Sequence[str]) -> str:
    """Join tokens with single spaces, or with varied whitespace (J3) and none where
    tokens do not run together (J4), keywords in varied case (J6)."""
    words = _keyword_case(draw, tokens)
    style = draw(_SPACING)
    if style == "single":
        return " ".join(words)
    pieces = [draw(_SEPARATOR) if style == "varied" else ""]
    for i, word in enumerate(words):
        if i:
            gap = draw(_SEPARATOR) if style == "varied" else ""
            if not gap and not _abuts(words[i - 1], word):
                gap = " "
            pieces.append(gap)
        pieces.append(word)
    if style == "varied":
        pieces.append(draw(_SEPARATOR))
    return "".join(pieces)


def check_dialect(dialect: str) -> None:
    # The strategies generate the JMS value model's grammar and typing rules.
    if dialects.get(dialect).model is not ValueModel.JMS:
        raise ValueError(f"only the jms dialect has selector strategies so far, not {dialect!r}")


# The strategies below (and `selector_cases`, `invalid_selectors`) call these functions
# with their own `draw` rather than drawing a strategy made for the occasion: making a
# composite strategy reads its function's source, each time.

def selector_tokens(draw: st.DrawFn, max_depth: int, pool: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens of one valid selector over the names of `pool`."""
    # The full depth is only room to grow: each level picks a leaf first when shrinking.
    return _Selectors(draw, pool).condition(max_depth).tokens


def selector_text(draw: st.DrawFn, max_depth: int, pool: tuple[str, ...]) -> str:
    """One valid selector over the names of `pool`, rendered."""
    return render(draw, selector_tokens(draw, max_depth, pool))


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
    check_dialect(dialect)
    if max_depth < 0:
        raise ValueError("max_depth must be at least 0")
    names = checked_names(identifiers)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        return selector_text(draw, max_depth, name_pool(draw, names))

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
    check_dialect(dialect)
    if kind not in _EXPRESSION_KINDS:
        raise ValueError(f"kind must be one of {', '.join(_EXPRESSION_KINDS)}, not {kind!r}")
    if max_depth < 0:
        raise ValueError("max_depth must be at least 0")
    names = checked_names(identifiers)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        pieces = _Selectors(draw, name_pool(draw, names))
        make = {"any": pieces.anything, "number": pieces.number, "string": pieces.string,
                "boolean": pieces.boolean}[kind]
        return render(draw, make(max_depth).tokens)

    return build()
