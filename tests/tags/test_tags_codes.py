"""Tag hash codes (Java `String.hashCode`), Java trim, and reading a message's tag."""

from __future__ import annotations

import doctest

import pytest

import msgfilter.tags
import msgfilter.tags.codes
from msgfilter import Message
from msgfilter.tags import java_trim, message_tag, message_tag_code, tag_code


@pytest.mark.parametrize(
    ("tag", "code"),
    [
        # spec/brokers.md A.1, checked there against Java 17.
        ("TagA", 2598919),
        ("TagB", 2598920),
        ("TAGA", 2567175),
        ("*", 42),
        ("f5a5a608", 0),
        # Java's classic Integer.MIN_VALUE string: the result must come back signed.
        ("polygenelubricants", -(2**31)),
        # U+1F600 is the two UTF-16 units D83D DE00: 0xD83D * 31 + 0xDE00.
        ("\U0001f600", 0xD83D * 31 + 0xDE00),
        # A lone surrogate is one unit in Java too.
        ("\ud800", 0xD800),
        ("a", 97),
    ],
)
def test_tag_code_vectors(tag: str, code: int) -> None:
    assert tag_code(tag) == code


def test_untagged_codes_are_zero() -> None:
    assert tag_code(None) == 0
    assert tag_code("") == 0


def test_collision_pair_shares_a_code() -> None:
    # 'A'*31 + 'a' == 65*31 + 97 == 2112 == 'B'*31 + 'B' == 66*31 + 66.
    assert tag_code("Aa") == tag_code("BB") == 2112


def test_tag_code_rejects_non_strings() -> None:
    with pytest.raises(TypeError, match="string"):
        tag_code(42)  # type: ignore[arg-type]


def test_java_trim_strips_control_characters_but_not_unicode_spaces() -> None:
    assert java_trim("\x00\t\n A \x1f\x20") == "A"
    assert java_trim("\xa0A\u2003") == "\xa0A\u2003"
    assert java_trim("a b") == "a b"


@pytest.mark.parametrize(
    ("message", "tag"),
    [
        ({"TAGS": "TagA"}, "TagA"),
        ({"TAGS": ""}, ""),
        ({}, None),
        ({"TAGS": None}, None),
        ({"TAGS": 5}, None),
        ({"TAGS": ["TagA"]}, None),
        ({"tags": "TagA"}, None),
        (Message(tags="TagB"), "TagB"),
        (Message(properties={"TAGS": "TagC"}), "TagC"),
        (Message(), None),
        (None, None),
        ("TagA", None),
        (42, None),
    ],
)
def test_message_tag_never_raises(message: object, tag: str | None) -> None:
    assert message_tag(message) == tag


def test_message_tag_code() -> None:
    assert message_tag_code({"TAGS": "TagA"}) == 2598919
    assert message_tag_code(Message(tags="TAGA")) == 2567175
    assert message_tag_code({}) == 0
    assert message_tag_code({"TAGS": 2598919}) == 0


@pytest.mark.parametrize("module", [msgfilter.tags, msgfilter.tags.codes])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0
    assert result.failed == 0
