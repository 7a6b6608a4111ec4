"""semantics/like.py: LIKE patterns (J35, J36) as linear-time matchers."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from msgfilter.semantics.like import compile_like, like_shape, parse_like
from msgfilter.testing import property_settings


def test_segments_split_at_percent_and_keep_underscore_as_a_hole() -> None:
    assert parse_like("a_%b%", None).segments == (("a", None), ("b",), ())


def test_escape_makes_wildcards_and_itself_literal_and_nothing_else() -> None:
    assert parse_like("a!_b!%c!!d!x", "!").segments == (tuple("a_b%c!d!x"),)


@pytest.mark.parametrize(
    ("pattern", "escape", "shape"),
    [
        ("abc", None, ("equals", "abc")),
        ("abc%", None, ("prefix", "abc")),
        ("%abc", None, ("suffix", "abc")),
        ("%abc%", None, ("contains", "abc")),
        ("%%", None, ("any", "")),
        ("a%b", None, ("general", "")),
        ("a_c", None, ("general", "")),
        ("a!%%", "!", ("prefix", "a%")),
    ],
)
def test_shapes_decided_by_plain_string_operations(
    pattern: str, escape: str | None, shape: tuple[str, str]
) -> None:
    assert like_shape(pattern, escape) == shape


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("ord\\_%", "ord_17", True),
        ("_", "😀", True),  # one code point, not one UTF-16 unit
        ("a%a%a%b", "a" * 1000, False),
        ("%a_c%", "xxabcxx", True),
        ("", "", True),
        ("", "x", False),
        ("a\nb", "a\nb", True),
        ("a_b", "a\nb", True),
    ],
)
def test_matches(pattern: str, text: str, expected: bool) -> None:
    escape = "\\" if "\\" in pattern else None
    assert compile_like(pattern, escape)(text) is expected


def test_long_adversarial_input_is_linear() -> None:
    # A backtracking matcher takes exponential time here; this one is a few finds.
    assert compile_like("%a%a%a%a%a%a%a%b")("a" * 100_000) is False


def _as_regex(pattern: str) -> str:
    return "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)


@property_settings()
@given(st.text(alphabet="ab_%", max_size=8), st.text(alphabet="ab", max_size=10))
def test_agrees_with_a_regular_expression(pattern: str, text: str) -> None:
    expected = re.fullmatch(_as_regex(pattern), text, re.DOTALL) is not None
    assert compile_like(pattern)(text) is expected
