"""The parser's own LALR loop over lark's tables (`syntax.parser._Tables.drive`) builds
what lark's parse builds from the same tokens — the same tree with the same spans, the
same build error — and refuses exactly the token lists lark refuses, for valid and
near-miss selectors of every SQL dialect."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from msgfilter import FilterError, dialects
from msgfilter.limits import DEFAULT_LIMITS, Limits
from msgfilter.syntax import nodes as n
from msgfilter.syntax import parser
from msgfilter.syntax.builder import BuildError
from msgfilter.syntax.lexer import tokenize
from msgfilter.testing import invalid_selectors, property_settings, selectors
from shape_texts import CASES

SQL = ("jms", "rocketmq", "activemq", "artemis", "qpid")


def _spans(tree: Any) -> list[tuple[str, Any, int]]:
    out: list[tuple[str, Any, int]] = []
    stack = [] if tree is None else [tree]
    while stack:
        node = stack.pop()
        out.append((type(node).__name__, node.span, node.depth))
        stack.extend(n.children(node))
    return out


def _outcome(run: Any) -> Any:
    try:
        tree = run()
    except BuildError as error:
        return ("build", error.message, error.offset, error.kind)
    except Exception as error:  # lark's UnexpectedToken: the driver must refuse too
        return ("refused", type(error).__name__)
    if tree is parser._REFUSED:
        return ("refused", "UnexpectedToken")
    return ("tree", tree, _spans(tree))


def _same_as_lark(text: str, dialect: str, limits: Limits = DEFAULT_LIMITS) -> None:
    grammar = dialects.get(dialect).grammar
    assert grammar is not None
    try:
        tokens = tokenize(text, grammar, limits)
    except FilterError:
        return  # the lexer refuses it: no parser sees it
    if not tokens:
        return
    tables = parser._parser(grammar, limits)
    lark = _outcome(lambda: tables.lark.parse(tokens))
    driven = _outcome(lambda: tables.drive(tokens))
    assert driven == lark, (dialect, text)


@property_settings(share=0.5)
@given(selectors("jms"), st.sampled_from(SQL))
def test_valid_selectors_parse_as_lark_parses_them(text: str, dialect: str) -> None:
    _same_as_lark(text, dialect)


@property_settings(share=0.5)
@given(invalid_selectors("jms"), st.sampled_from(SQL))
def test_near_misses_are_refused_where_lark_refuses_them(text: str, dialect: str) -> None:
    _same_as_lark(text, dialect)


def test_every_dialects_known_shapes_parse_as_lark_parses_them() -> None:
    for dialect, text in CASES:
        for prefix in ("convert_string_expressions:", "hyphenated_props:"):
            text = text.removeprefix(prefix)
        _same_as_lark(text, dialect)


def test_limits_the_builder_reads_fail_alike() -> None:
    deep = "(" * 12 + "a = 1" + ")" * 12
    _same_as_lark(deep, "jms", Limits(max_depth=5))
    _same_as_lark("a IN ('x', 'y', 'z')", "jms", Limits(max_in_items=2))
    _same_as_lark(" AND ".join(f"p{i} = {i}" for i in range(12)), "jms", Limits(max_depth=4))
