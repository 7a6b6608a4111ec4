"""Shrinking a (selector, message) case while it still shows the same disagreement.

Greedy and deterministic: the first smaller candidate that keeps the disagreement is
taken, and the search starts again from it. A selector shrinks by replacing a part of
it with one of that part's own operands, or a literal with a plainer one, cut from and
pasted into the text by the parse tree's spans, so the rest keeps its spelling (case,
whitespace, literal forms, which may be the very thing the broker reads otherwise). A
message shrinks by dropping a property, or making a value plainer (a shorter string,
zero).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from ..engine import compile
from ..errors import FilterError
from ..syntax import nodes as n

__all__ = ["shrink_case"]

Case = tuple[str, dict[str, object]]


def _tree(text: str, dialects: tuple[str, ...]) -> n.Expr | None:
    for dialect in dialects:
        try:
            return compile(text, dialect).tree  # type: ignore[attr-defined, no-any-return]
        except (FilterError, AttributeError):
            continue
    return None


def _plainer_literals(node: n.Expr) -> tuple[str, ...]:
    if isinstance(node, n.StringLit) and node.value:
        return ("''", "'a'")
    if isinstance(node, n.ExactLit | n.ApproxLit) and node.value != 0:
        return ("0", "1")
    return ()


def _parens(piece: str) -> tuple[int, int]:
    """Unclosed `(` and unopened `)` in `piece`, outside string literals."""
    opened = unopened = 0
    quoted = False
    for ch in piece:
        if ch == "'":
            quoted = not quoted  # '' inside a literal toggles twice
        elif not quoted and ch == "(":
            opened += 1
        elif not quoted and ch == ")":
            if opened:
                opened -= 1
            else:
                unopened += 1
    return opened, unopened


def _region(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """`span` widened over the parentheses a node's span leaves out (an operand in
    parentheses at either end of it), so that cutting it keeps the text balanced."""
    start, end = span
    opened, unopened = _parens(text[start:end])
    while opened and end < len(text):
        end += 1
        opened, unopened = _parens(text[start:end])
    while unopened and start > 0:
        start -= 1
        opened, unopened = _parens(text[start:end])
    return start, end


def _word(ch: str) -> bool:
    return ch.isalnum() or ch in "_$'."


def _glued(before: str, piece: str, after: str) -> str:
    """`piece` between `before` and `after`, with a space where tokens would run together
    (`BETWEEN` `0` `AND` must not become the identifier `BETWEEN0AND`)."""
    if before and piece and _word(before[-1]) and _word(piece[0]):
        piece = " " + piece
    if after and piece and _word(piece[-1]) and _word(after[0]):
        piece += " "
    return before + piece + after


def _selector_candidates(text: str, dialects: tuple[str, ...]) -> Iterator[str]:
    tree = _tree(text, dialects)
    if tree is None:
        return
    stack: list[n.Expr] = [tree]
    while stack:  # outermost parts first: they cut the most
        node = stack.pop(0)
        start, end = (0, len(text)) if node is tree else _region(text, node.span)
        pieces = [text[c.span[0]:c.span[1]] for c in n.children(node)]
        for piece in (*pieces, *_plainer_literals(node)):
            candidate = _glued(text[:start], piece, text[end:])
            if piece and candidate != text:
                yield candidate
        stack.extend(n.children(node))


def _plainer_values(value: object) -> Iterator[object]:
    if type(value) is str:
        if value:
            yield ""
        if len(value) > 1:
            yield value[: len(value) // 2]
            for i in range(len(value)):
                yield value[:i] + value[i + 1:]
    elif type(value) is int and value not in (0, 1):
        yield 0
        yield 1
        yield value // 2
    elif type(value) is float and value != 0.0:
        yield 0.0


def _message_candidates(message: Mapping[str, object]) -> Iterator[dict[str, object]]:
    for name in message:
        yield {k: v for k, v in message.items() if k != name}
    for name, value in message.items():
        for plainer in _plainer_values(value):
            yield {**message, name: plainer}


def shrink_case(
    case: Case,
    still_fails: Callable[[str, dict[str, object]], bool],
    *,
    dialects: tuple[str, ...] = ("jms",),
    budget: int = 200,
) -> tuple[Case, int]:
    """The smallest case found from `case` on which `still_fails` holds, and the number of
    candidates tried (at most `budget`). `dialects` parse the selector for its parts
    (the first that reads it)."""
    text, message = case
    tried = 0
    progress = True
    while progress and tried < budget:
        progress = False
        for candidate in _selector_candidates(text, dialects):
            tried += 1
            if still_fails(candidate, message):
                text, progress = candidate, True
                break
            if tried >= budget:
                break
        if progress:
            continue
        for smaller in _message_candidates(message):
            if tried >= budget:
                break
            tried += 1
            if still_fails(text, smaller):
                message, progress = smaller, True
                break
    return (text, message), tried
