"""Parse selector text into an AST, turning every failure into a FilterError."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from importlib.resources import files
from typing import Any, cast

from cachetools import LRUCache
from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.lexer import Lexer
from lark.parse_tree_builder import ExpandSingleChild
from lark.parsers.lalr_analysis import Shift

from ..errors import FilterLimitError, FilterSyntaxError, FilterTypeError
from ..limits import Limits
from . import nodes as n
from .builder import Builder, BuildError
from .grammar import Grammar
from .lexer import check_length, not_kind, tokenize

# What each token stands for, in the words an error message uses.
_WORDS = {
    "STRING": "a string literal", "EXACT": "a number", "APPROX": "a number",
    "IDENT": "an identifier", "TRUE": "TRUE", "FALSE": "FALSE", "NULL": "NULL",
    "NOT": "NOT", "TNOT": "NOT", "ENOT": "NOT", "AND": "AND", "OR": "OR", "BETWEEN": "BETWEEN",
    "LIKE": "LIKE", "IN": "IN", "IS": "IS", "ESCAPE": "ESCAPE", "CONTAINS": "CONTAINS",
    "STARTSWITH": "STARTSWITH", "ENDSWITH": "ENDSWITH", "EQ": "'='", "NE": "'<>'",
    "LT": "'<'", "LE": "'<='", "GT": "'>'", "GE": "'>='", "PLUS": "'+'", "MINUS": "'-'",
    "STAR": "'*'", "SLASH": "'/'", "PERCENT": "'%'", "LPAR": "'('", "RPAR": "')'",
    "COMMA": "','", "XPATH": "XPATH", "XQUERY": "XQUERY",
    "$END": "the end of the expression",
}
_ORDER = list(_WORDS)


class _PassThrough(Lexer):
    """Lark's view of our lexer: parse() is handed the token list itself."""

    def __init__(self, conf: Any) -> None:
        pass

    def lex(self, data: Any) -> Iterator[Token]:  # type: ignore[override]
        tokens: list[Token] = data
        return iter(tokens)


_GRAMMAR = files(__package__).joinpath("selector.lark").read_text(encoding="utf-8")

#: Parsers kept, most recently used. A parser is the LALR tables (about 27 ms to build)
#: with its Builder: one per grammar and per limit the builder reads. Few are ever live
#: (three SQL grammars, usually one Limits), and a caller cycling through many Limits
#: must not grow memory without bound.
PARSER_CACHE_SIZE = 16

_parsers: LRUCache[tuple[Grammar, int, int], _Tables] = LRUCache(maxsize=PARSER_CACHE_SIZE)
_lock = threading.Lock()  # guards _parsers (an LRU reorders itself on every read)
_build_lock = threading.Lock()  # one build at a time; lookups go on meanwhile


def _parser_key(grammar: Grammar, limits: Limits) -> tuple[Grammar, int, int]:
    """What the parser depends on: the grammar, and the limits the Builder reads while
    parsing (nesting depth, IN-list size). `max_length` is checked before parsing, so
    Limits differing only there share a parser."""
    return (grammar, limits.max_depth, limits.max_in_items)


class _Tables:
    """A lark LALR parser and its tables flattened for `drive`: per state, each terminal's
    action as (True, next state) or (False, (callback, size, rule name)), and the state
    each rule name leads to from each state. lark's own loop (`feed_token`) looks up
    `Rule` objects, whose hash and equality are Python code, at each reduction: a third
    of what parsing a selector cost. A `?rule` of one symbol keeps its value: no call."""

    __slots__ = ("actions", "end", "goto", "lark", "start")

    def __init__(self, lark: Lark) -> None:
        inner = lark.parser.parser.parser
        table, callbacks = inner.parse_table, inner.callbacks
        self.lark = lark
        self.start: int = table.start_states["start"]
        self.end: int = table.end_states["start"]
        self.actions: dict[int, dict[str, tuple[bool, Any]]] = {}
        self.goto: dict[int, dict[str, int]] = {}
        for state, row in table.states.items():
            actions, goto = self.actions.setdefault(state, {}), self.goto.setdefault(state, {})
            for name, (action, arg) in row.items():
                if action is Shift:
                    actions[name] = (True, arg)
                    goto[name] = arg
                else:
                    callback = callbacks[arg]
                    size = len(arg.expansion)
                    if size == 1 and isinstance(callback, ExpandSingleChild):
                        callback = None  # `?rule: one`: the value stays as it is
                    actions[name] = (False, (callback, size, arg.origin.name))

    def drive(self, tokens: list[Token]) -> Any:
        """What lark's parse returns for `tokens` (the same callbacks in the same order),
        or `_REFUSED` where a token has no action: lark's own parse then says why."""
        actions, goto, end = self.actions, self.goto, self.end
        states = [self.start]
        values: list[Any] = []
        for token in itertools.chain(tokens, (_END,)):
            kind = token.type
            while True:
                found = actions[states[-1]].get(kind)
                if found is None:
                    return _REFUSED
                if found[0]:
                    if kind == "$END":
                        return _REFUSED
                    states.append(found[1])
                    values.append(token)
                    break
                callback, size, origin = found[1]
                if callback is None:
                    states.pop()
                else:
                    if size:
                        children = values[-size:]
                        del states[-size:]
                        del values[-size:]
                    else:
                        children = []
                    values.append(callback(children))
                states.append(goto[states[-1]][origin])
                if kind == "$END" and states[-1] == end:
                    return values[-1]
        return _REFUSED  # pragma: no cover - the end token returns or refuses


_END = Token("$END", "")
_REFUSED: Any = object()


def _parser(grammar: Grammar, limits: Limits) -> _Tables:
    key = _parser_key(grammar, limits)
    with _lock:
        parser = _parsers.get(key)
    if parser is not None:
        return parser
    with _build_lock:
        with _lock:
            parser = _parsers.get(key)
        if parser is None:
            parser = _Tables(Lark(
                _GRAMMAR,
                parser="lalr",
                lexer=_PassThrough,
                transformer=Builder(grammar, limits),
            ))
            with _lock:
                _parsers[key] = parser
    return parser


def parser_cache_size() -> int:
    """How many parsers are cached now (at most `PARSER_CACHE_SIZE`)."""
    with _lock:
        return int(_parsers.currsize)


def parse(
    text: str, dialect: Grammar, limits: Limits, tokens: list[Token] | None = None
) -> n.Expr | None:
    """The AST of `text` (None for an empty selector); `tokens`: its tokens, where the
    caller has them already (its length checked)."""
    if tokens is None:
        check_length(text, limits)
        tokens = tokenize(text, dialect, limits)
    if not tokens:
        return None
    try:
        return _parse_tokens(tokens, text, dialect, limits)
    except FilterSyntaxError as error:
        dangling = _dangling_comment(tokens, text) if dialect.dangling_comment_ends else None
        if dangling is None or error.offset < dangling:
            raise
    # The error lies in or after a `--` with no line end: the text ends before it.
    kept = [t for t in tokens if (t.start_pos or 0) < dangling]
    if not kept:
        raise FilterSyntaxError("empty expression", text, dangling, ("an expression",))
    return _parse_tokens(kept, text, dialect, limits)


def _dangling_comment(tokens: list[Token], text: str) -> int | None:
    """Where the first `--` that no line break follows starts, if any."""
    for first, second in itertools.pairwise(tokens):
        if (
            first.type == second.type == "MINUS"
            and first.end_pos == second.start_pos
            and "\n" not in text[first.start_pos or 0:]
            and "\r" not in text[first.start_pos or 0:]
        ):
            return first.start_pos
    return None


def _parse_tokens(tokens: list[Token], text: str, dialect: Grammar, limits: Limits) -> n.Expr:
    tables = _parser(dialect, limits)
    try:
        tree = cast(n.Expr, tables.drive(tokens))
        if tree is _REFUSED:
            tree = cast(n.Expr, tables.lark.parse(tokens))
    except VisitError as error:
        cause = error.orig_exc
        if isinstance(cause, BuildError):
            raise _from_build(cause, text) from None
        raise
    except UnexpectedToken as error:
        raise _from_lark(error, text, dialect) from None
    except (UnexpectedCharacters, UnexpectedInput) as error:  # pragma: no cover - lexer is ours
        offset = getattr(error, "pos_in_stream", 0) or 0
        raise FilterSyntaxError("syntax error", text, offset) from None
    except BuildError as cause:
        raise _from_build(cause, text) from None
    return tree


def _from_build(cause: BuildError, text: str) -> Exception:
    kind = {"limit": FilterLimitError, "type": FilterTypeError}.get(cause.kind, FilterSyntaxError)
    return kind(cause.message, text, cause.offset)


def _possible(dialect: Grammar) -> frozenset[str]:
    """The token types the dialect's lexer can produce."""
    kinds = set(_WORDS) - {
        "NOT", "TNOT", "ENOT", "CONTAINS", "STARTSWITH", "ENDSWITH", "LIKE", "ESCAPE", "XPATH",
        "XQUERY",
    }
    kinds |= {k for k in dialect.keywords if k != "NOT"}
    kinds.add(not_kind(dialect))
    if not dialect.arithmetic:
        kinds -= {"STAR", "SLASH"}
    if not dialect.modulo:
        kinds.discard("PERCENT")
    return frozenset(kinds)


def _from_lark(error: UnexpectedToken, text: str, dialect: Grammar) -> FilterSyntaxError:
    token = error.token
    possible = _possible(dialect)
    acceptable: set[str] = set(error.expected)
    if error.interactive_parser is not None:
        # The parser state's exact set: the error state alone can miss tokens that are
        # only acceptable after a reduction (AND after `(a = 1`).
        acceptable = set(error.interactive_parser.accepts())  # type: ignore[no-untyped-call]
    expected = sorted({_WORDS[t] for t in acceptable if t in possible}, key=_rank)
    if token.type == "$END":
        message = "unexpected end of expression"
        if expected:
            message += f"; expected {_join(expected)}"
        return FilterSyntaxError(message, text, len(text), expected)
    shown = _WORDS.get(token.type, token.type).removeprefix("a ").removeprefix("an ")
    what = f"{shown} {str(token)!r}" if token.type in ("IDENT", "STRING", "EXACT", "APPROX") \
        else shown
    message = f"unexpected {what}"
    if expected:
        message += f"; expected {_join(expected)}"
    return FilterSyntaxError(message, text, token.start_pos or 0, expected)


def _rank(word: str) -> int:
    for i, key in enumerate(_ORDER):
        if _WORDS[key] == word:
            return i
    return len(_ORDER)


def _join(words: list[str]) -> str:
    if len(words) <= 2:
        return " or ".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]
