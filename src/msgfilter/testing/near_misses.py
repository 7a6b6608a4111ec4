"""Near-miss selectors: valid ones mutated so that the dialect refuses them."""

from __future__ import annotations

from hypothesis import strategies as st

from .. import dialects
from .selector_texts import check_dialect, render, selector_tokens
from .vocabulary import Names, checked_names, draw_from, draw_index, name_pool

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
    tokens = list(selector_tokens(draw, max_depth, name_pool(draw, names)))
    position = draw_index(draw, len(tokens))
    junk = draw_from(draw, _JUNK)
    kind = draw_index(draw, 10)
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
        tokens.insert(position, draw_from(draw, ("(", ")")))
    elif kind == 7:
        replaced = {"=": "==", "<>": "!=", "<=": "=<", ">=": "=>"}
        tokens = [replaced.get(t, t) for t in tokens]
    elif kind == 8:
        tokens = [_TYPOS.get(t, t) for t in tokens]
    else:
        text = " ".join(tokens)
        at = draw_index(draw, len(text) + 1)
        return text[:at] + draw(st.characters()) + text[at:]
    return render(draw, tokens)


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
    check_dialect(dialect)
    return _mutated(max_depth, checked_names(identifiers))
