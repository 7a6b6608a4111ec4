"""syntax/lexer.py: selector text -> tokens, by each dialect's grammar switches."""

from __future__ import annotations

import dataclasses

import pytest

from msgfilter import FilterLimitError, FilterSyntaxError, Limits
from msgfilter.dialects import get
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.syntax import nodes as n
from msgfilter.syntax.grammar import Grammar
from msgfilter.syntax.lexer import tokenize
from msgfilter.syntax.parser import parse
from msgfilter.syntax.unparse import unparse


def kinds(text: str, dialect: str = "jms") -> list[tuple[str, str]]:
    grammar = get(dialect).grammar
    assert grammar is not None
    return [(t.type, str(t)) for t in tokenize(text, grammar, DEFAULT_LIMITS)]


def test_keywords_are_case_insensitive_and_identifiers_are_not() -> None:
    assert kinds("a AnD b or NOT c") == [
        ("IDENT", "a"), ("AND", "AnD"), ("IDENT", "b"), ("OR", "or"), ("NOT", "NOT"),
        ("IDENT", "c"),
    ]


def test_not_is_the_tight_prefix_in_activemq_and_rocketmq() -> None:
    assert kinds("not a", "jms")[0] == ("NOT", "not")
    assert kinds("not a", "activemq")[0] == ("TNOT", "not")
    assert kinds("not a", "rocketmq")[0] == ("TNOT", "not")


def test_literal_forms() -> None:
    assert kinds("'it''s' 42 42L 0x1F 017 1.5 .5 5. 1e3 TRUE NULL") == [
        ("STRING", "'it''s'"), ("EXACT", "42"), ("EXACT", "42L"), ("EXACT", "0x1F"),
        ("EXACT", "017"), ("APPROX", "1.5"), ("APPROX", ".5"), ("APPROX", "5."),
        ("APPROX", "1e3"), ("TRUE", "TRUE"), ("NULL", "NULL"),
    ]


def test_unicode_identifiers_only_where_the_dialect_has_them() -> None:
    assert kinds("über = 1") == [("IDENT", "über"), ("EQ", "="), ("EXACT", "1")]
    with pytest.raises(FilterSyntaxError) as caught:
        kinds("über = 1", "rocketmq")
    assert caught.value.offset == 0


@pytest.mark.parametrize(
    ("text", "dialect", "expected"),
    [
        ("a /* x */ = 1", "rocketmq", ["IDENT", "EQ", "EXACT"]),
        ("a = 1 -- note\n", "rocketmq", ["IDENT", "EQ", "EXACT"]),
        # Without a line end `--` is two minus signs in RocketMQ and ActiveMQ alike.
        ("a = --1", "rocketmq", ["IDENT", "EQ", "MINUS", "MINUS", "EXACT"]),
        ("a = --1", "activemq", ["IDENT", "EQ", "MINUS", "MINUS", "EXACT"]),
        # The JMS dialect has no comments at all.
        ("a = --1", "jms", ["IDENT", "EQ", "MINUS", "MINUS", "EXACT"]),
    ],
)
def test_comments(text: str, dialect: str, expected: list[str]) -> None:
    assert [kind for kind, _ in kinds(text, dialect)] == expected


def test_jms_has_no_block_comments() -> None:
    assert [kind for kind, _ in kinds("a /* x */ = 1")] == [
        "IDENT", "SLASH", "STAR", "IDENT", "STAR", "SLASH", "EQ", "EXACT",
    ]


@pytest.mark.parametrize(
    ("text", "dialect", "offset", "words"),
    [
        ("a = 08", "jms", 4, "octal"),
        ("a = 0L", "jms", 4, "0 takes no L"),
        ("a = 9223372036854775809", "jms", 4, "out of range"),
        ("a = 0x1F", "rocketmq", 4, "hexadecimal"),
        ("a = 017", "rocketmq", 4, "may not start with 0"),
        ("a != 1", "jms", 2, "'!'"),
        ("a = 'open", "jms", 4, "unterminated string"),
        ("a = 2 * 3", "rocketmq", 6, "'*'"),
        ("a = 5 % 2", "jms", 6, "'%'"),
    ],
)
def test_lexical_errors(text: str, dialect: str, offset: int, words: str) -> None:
    with pytest.raises(FilterSyntaxError) as caught:
        kinds(text, dialect)
    assert caught.value.offset == offset
    assert words in str(caught.value)


def test_one_past_the_long_maximum_is_left_for_the_sign() -> None:
    # 9223372036854775808 is Long.MIN_VALUE after a unary minus: the checker decides.
    assert kinds("9223372036854775808") == [("EXACT", "9223372036854775808")]


def test_parentheses_depth_is_capped_while_lexing() -> None:
    with pytest.raises(FilterLimitError) as caught:
        tokenize("(" * 11 + "a", get("jms").grammar, Limits(max_depth=10))  # type: ignore[arg-type]
    assert caught.value.offset == 10


# -- quoted identifiers (Artemis's and Qpid's QUOTED_ID) --------------------------------


def _quoting() -> Grammar:
    grammar = get("activemq").grammar
    assert grammar is not None
    return dataclasses.replace(grammar, name="quoting", quoted_identifiers=True)


def test_a_quoted_identifier_is_one_ident_token_never_a_keyword() -> None:
    tokens = tokenize('"prop-1" = 1 AND "AND" IS NULL', _quoting(), DEFAULT_LIMITS)
    assert [(t.type, str(t)) for t in tokens] == [
        ("IDENT", '"prop-1"'), ("EQ", "="), ("EXACT", "1"), ("AND", "AND"),
        ("IDENT", '"AND"'), ("IS", "IS"), ("NULL", "NULL"),
    ]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('"property-with-hyphen" = 1', "property-with-hyphen"),
        ('"say ""hi""" = 1', 'say "hi"'),
        ('"" = 1', ""),
        ('"it\'s" = 1', "it's"),
        ('"NOT" = 1', "NOT"),
        ('"über 1" = 1', "über 1"),
    ],
)
def test_a_quoted_identifier_names_its_text_with_doubled_quotes_undone(
    text: str, name: str
) -> None:
    tree = parse(text, _quoting(), DEFAULT_LIMITS)
    assert isinstance(tree, n.Compare) and tree.left == n.Ident(name, span=tree.left.span)
    # Canonical text quotes the name where it cannot stand bare, and reads back the same.
    canonical = unparse(tree, _quoting())
    assert parse(canonical, _quoting(), DEFAULT_LIMITS) == tree


def test_a_plain_name_stays_bare_in_canonical_text() -> None:
    tree = parse('"abc" = 1', _quoting(), DEFAULT_LIMITS)
    assert tree is not None and unparse(tree, _quoting()) == "abc = 1"


def test_quoted_identifier_errors() -> None:
    with pytest.raises(FilterSyntaxError) as caught:
        tokenize('a = 1 OR "open = 2', _quoting(), DEFAULT_LIMITS)
    assert caught.value.offset == 9 and "unterminated quoted identifier" in str(caught.value)
    # Dialects without them see a stray character.
    with pytest.raises(FilterSyntaxError) as caught:
        kinds('"a" = 1', "activemq")
    assert caught.value.offset == 0 and "'\"'" in str(caught.value)
    with pytest.raises(FilterSyntaxError):
        parse('"f"(1) = 1', dataclasses.replace(_quoting(), functions=True), DEFAULT_LIMITS)


def test_hyphenated_identifiers_continue_with_minus_signs() -> None:
    grammar = dataclasses.replace(_quoting(), hyphenated_identifiers=True, quoted_identifiers=False)
    tokens = tokenize("a-b - 1 < x--y", grammar, DEFAULT_LIMITS)
    assert [(t.type, str(t)) for t in tokens] == [
        ("IDENT", "a-b"), ("MINUS", "-"), ("EXACT", "1"), ("LT", "<"), ("IDENT", "x--y"),
    ]
