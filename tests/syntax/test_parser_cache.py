"""The parser cache: bounded, keyed by what changes the parser, shared by equal grammars."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import msgfilter
from msgfilter import dialects
from msgfilter.limits import Limits
from msgfilter.syntax import parser
from msgfilter.syntax.grammar import Grammar

JMS = dialects.get("jms").grammar
assert JMS is not None


def test_many_limits_do_not_grow_the_cache_beyond_its_bound() -> None:
    for depth in range(10, 10 + parser.PARSER_CACHE_SIZE + 4):
        limits = Limits(max_depth=depth)
        assert parser.parse("a = 1 AND (b > 2)", JMS, limits) is not None
        assert parser.parser_cache_size() <= parser.PARSER_CACHE_SIZE
    assert parser.parser_cache_size() == parser.PARSER_CACHE_SIZE
    # An evicted parser is rebuilt and still applies its own limits (the builder's).
    with pytest.raises(msgfilter.FilterLimitError, match="nests deeper than 10"):
        parser.parse("NOT " * 12 + "a", JMS, Limits(max_depth=10))
    assert parser.parse("NOT " * 12 + "a", JMS, Limits(max_depth=20)) is not None


def test_equal_grammars_share_a_parser() -> None:
    twin = Grammar(**{f.name: getattr(JMS, f.name) for f in dataclasses.fields(Grammar)})
    assert twin == JMS and twin is not JMS
    limits = Limits()
    assert parser._parser(twin, limits) is parser._parser(JMS, limits)
    # Only the limits the builder reads pick the parser: the text length is checked first.
    assert parser._parser(JMS, Limits(max_length=10)) is parser._parser(JMS, limits)
    assert parser._parser(JMS, Limits(max_in_items=3)) is not parser._parser(JMS, limits)


def test_other_dialects_get_their_own_parser() -> None:
    rocketmq = dialects.get("rocketmq").grammar
    assert rocketmq is not None
    assert parser._parser(rocketmq, Limits()) is not parser._parser(JMS, Limits())


def test_the_key_covers_every_limit_the_builder_reads() -> None:
    # The cache key names max_depth and max_in_items; a builder that read another limit
    # would be served a parser built for different limits.
    source = Path(parser.__file__).with_name("builder.py").read_text(encoding="utf-8")
    read: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            owner = node.value
            if (isinstance(owner, ast.Attribute) and owner.attr == "limits") or (
                isinstance(owner, ast.Name) and owner.id == "limits"
            ):
                read.add(node.attr)
    assert read <= {"max_depth", "max_in_items"}
    key = parser._parser_key(JMS, Limits(max_depth=7, max_in_items=9, max_length=11))
    assert key == (JMS, 7, 9)
