"""The strategies of msgfilter.testing: valid selectors are valid, every part of the
grammar and every kind of value turns up, failures shrink to readable cases."""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

import msgfilter
from msgfilter import FilterError, FilterPositionError
from msgfilter.testing import (
    ACTIVEMQ_HEADER_DEFAULTS,
    DEFAULT_IDENTIFIERS,
    expressions,
    identifiers,
    invalid_selectors,
    messages,
    oracle_answer,
    oracle_case,
    oracle_view,
    property_settings,
    reference_filter,
    selector_cases,
    selectors,
    tag_expressions,
    topic_names,
    topic_patterns,
)
from msgfilter.testing.reference import LONG_MAX, LONG_MIN, tokenize

# Searches for an example showing a feature: the first one found will do (no shrinking).
# Derandomized, so that a search for a rare feature gives the same answer every run.
SEARCH = settings(
    max_examples=5000, deadline=None, database=None, phases=(Phase.generate,),
    derandomize=True, suppress_health_check=(HealthCheck.too_slow, HealthCheck.data_too_large),
)
SHRUNK = settings(SEARCH, phases=(Phase.generate, Phase.shrink))


@property_settings()
@given(selectors(identifiers=identifiers(), max_depth=4))
def test_compile_accepts_every_generated_selector(text: str) -> None:
    f = msgfilter.compile(text)
    assert f.text == text
    assert reference_filter(text).identifiers == f.identifiers


@pytest.mark.parametrize("kind", ["any", "number", "string", "boolean"])
def test_expressions_are_operands(kind: str) -> None:
    @property_settings(0.3)
    @given(expressions(kind=kind, identifiers=identifiers()))
    def run(expression: str) -> None:
        # An operand anywhere: of IS NULL, and of `=` with a parenthesised value.
        msgfilter.compile(f"({expression}) IS NULL")
        msgfilter.compile(f"'' + ({expression}) = t")

    run()
    with pytest.raises(ValueError):
        expressions(kind="condition")


@property_settings(0.5)
@given(selectors())
def test_default_selectors_use_the_default_names(text: str) -> None:
    assert reference_filter(text).identifiers <= set(DEFAULT_IDENTIFIERS)


def tokens(text: str) -> list[str]:
    return [t.text for t in tokenize(text)[:-1]]


def words(text: str) -> set[str]:
    return {t.upper() for t in tokens(text)}


def approximate(form: str) -> Callable[[str], bool]:
    return lambda text: any(re.fullmatch(form, t) for t in tokens(text))


# What a run of selectors() must be able to show: (label, predicate over the text).
FEATURES: list[tuple[str, Callable[[str], bool]]] = [
    *[(f"keyword {w}", lambda text, w=w: w in words(text))
      for w in ("NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE", "NULL", "TRUE",
                "FALSE")],
    *[(f"operator {o}", lambda text, o=o: o in tokens(text))
      for o in ("=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "(", ")", ",")],
    ("decimal", approximate(r"[1-9][0-9]+")),
    ("L suffix", approximate(r"[1-9][0-9]*[lL]")),
    ("octal", approximate(r"0[0-7]+")),
    ("hex", approximate(r"0[xX][0-9a-fA-F]+")),
    ("1.5", approximate(r"[0-9]+\.[0-9]+")),
    (".5", approximate(r"\.[0-9]+")),
    ("5.", approximate(r"[0-9]+\.")),
    ("1e3", approximate(r"[0-9]+[eE][0-9]+")),
    ("2.5E-2", approximate(r"[0-9]+\.[0-9]+[eE]-[0-9]+")),
    ("long min", lambda text: "9223372036854775808" in text),
    ("doubled quote", lambda text: any("''" in t[1:-1] for t in tokens(text) if t[0] == "'")),
    ("line break in a string", lambda text: any("\n" in t for t in tokens(text) if t[0] == "'")),
    ("non-BMP in a string", lambda text: any(ord(c) > 0xFFFF for c in text)),
    ("header name", lambda text: "JMSPriority" in tokens(text)),
    ("IS NOT NULL", lambda text: " ".join(tokens(text)).upper().count("IS NOT NULL") > 0),
    ("NOT LIKE ESCAPE", lambda text: "NOT LIKE" in " ".join(tokens(text)).upper()
     and "ESCAPE" in words(text)),
    ("NOT IN", lambda text: "NOT IN" in " ".join(tokens(text)).upper()),
    ("NOT BETWEEN", lambda text: "NOT BETWEEN" in " ".join(tokens(text)).upper()),
    ("lower-case keyword", lambda text: bool({"and", "or", "not", "null"} & set(tokens(text)))),
    ("mixed-case keyword", lambda text: any(t.upper() in {"AND", "NULL", "BETWEEN"}
                                            and t not in {"AND", "NULL", "BETWEEN"}
                                            and t.lower() != t for t in tokens(text))),
    ("tab", lambda text: "\t" in "".join(c for c in text if c in " \t") and _outside(text, "\t")),
    ("carriage return", lambda text: _outside(text, "\r")),
    ("line feed", lambda text: _outside(text, "\n")),
    ("form feed", lambda text: _outside(text, "\f")),
    ("no space between tokens", lambda text: " " not in text and len(tokens(text)) > 2),
    ("redundant parentheses", lambda text: text.strip().startswith("(")),
    ("string concatenation", lambda text: re.search(r"'\s*\+", text) is not None),
]


def _outside(text: str, ch: str) -> bool:
    """`ch` appears between tokens (whitespace), not only inside string literals."""
    stripped = re.sub(r"'(?:[^']|'')*'", "", text)
    return ch in stripped


@pytest.mark.parametrize(("label", "predicate"), FEATURES, ids=[f[0] for f in FEATURES])
def test_selectors_cover_the_grammar(label: str, predicate: Callable[[str], bool]) -> None:
    found = find(selectors(max_depth=3), predicate, settings=SEARCH)
    assert predicate(found)
    msgfilter.compile(found)


def test_selectors_shrink_to_short_cases() -> None:
    # Shrinking goes to simple choices: a BETWEEN case ends up as `a BETWEEN a AND a`.
    found = find(selectors(), lambda text: "BETWEEN" in words(text), settings=SHRUNK)
    assert found == "a BETWEEN a AND a"
    found = find(selectors(), lambda text: "ESCAPE" in words(text), settings=SHRUNK)
    assert len(found) <= 30  # e.g. `a AND a LIKE '' ESCAPE '\'`


def test_selectors_refuse_bad_arguments() -> None:
    with pytest.raises(ValueError):
        selectors("rocketmq")
    with pytest.raises(ValueError):
        selectors(identifiers=["AND"])
    with pytest.raises(ValueError):
        selectors(identifiers=[])
    with pytest.raises(ValueError):
        selectors(max_depth=-1)
    with pytest.raises(ValueError):
        messages(identifiers=["a b"])
    with pytest.raises(ValueError):
        messages(types=["long", "decimal"])


@property_settings()
@given(invalid_selectors())
def test_invalid_selectors_are_mostly_invalid_and_fail_cleanly(text: str) -> None:
    try:
        msgfilter.compile(text)
    except FilterPositionError as error:
        assert 0 <= error.offset <= len(text)


def test_invalid_selectors_include_the_classic_mistakes() -> None:
    # One search for all five: the derandomized search draws the same texts in the same
    # order as a search per marker would, so each marker is found at the same text, and
    # the run stops at the rarest one instead of drawing the common ones' texts again.
    # The mistakes are made the same way whatever the selector's depth: the shallowest
    # selectors are the cheapest to draw (the search takes some thousand).
    markers = ("!=", "==", '"x"', "08", "1.5f")
    found: dict[str, str] = {}

    def holds_all(text: str) -> bool:
        # As a word of its own: `08` inside `108` or a string literal is no mistake.
        words = text.split()
        for marker in markers:
            if marker not in found and marker in words:
                found[marker] = text
        return len(found) == len(markers)

    with contextlib.suppress(NoSuchExample):  # the assertion below names what is missing
        find(invalid_selectors(max_depth=0), holds_all, settings=SEARCH)
    assert set(found) == set(markers), f"never drawn: {set(markers) - set(found)}"
    for text in found.values():
        with pytest.raises(FilterError):
            msgfilter.compile(text)


def _rejected(text: str) -> bool:
    try:
        msgfilter.compile(text)
    except FilterError:
        return True
    return False


def test_invalid_selectors_are_sometimes_valid_after_all() -> None:
    assert not _rejected(find(invalid_selectors(), lambda t: not _rejected(t), settings=SEARCH))


VALUE_CHECKS: list[tuple[str, Callable[[Any], bool]]] = [
    ("missing name", lambda m: len(m) < len(DEFAULT_IDENTIFIERS)),
    ("None", lambda m: any(v is None for v in m.values())),
    ("NaN", lambda m: any(type(v) is float and math.isnan(v) for v in m.values())),
    ("infinity", lambda m: any(type(v) is float and math.isinf(v) for v in m.values())),
    ("-0.0", lambda m: any(type(v) is float and v == 0 and math.copysign(1, v) < 0
                           for v in m.values())),
    ("long max", lambda m: LONG_MAX in m.values()),
    ("long min", lambda m: LONG_MIN in m.values()),
    ("non-BMP", lambda m: any(type(v) is str and any(ord(c) > 0xFFFF for c in v)
                              for v in m.values())),
    ("empty string", lambda m: "" in m.values()),
    ("boolean", lambda m: any(type(v) is bool for v in m.values())),
    ("bytes", lambda m: any(type(v) is bytes for v in m.values())),
    ("list", lambda m: any(type(v) is list for v in m.values())),
    ("object", lambda m: any(type(v) is object for v in m.values())),
]


@pytest.mark.parametrize(("label", "predicate"), VALUE_CHECKS, ids=[v[0] for v in VALUE_CHECKS])
def test_messages_hold_every_kind_of_value(label: str, predicate: Callable[[Any], bool]) -> None:
    assert predicate(find(messages(), predicate, settings=SEARCH))


@property_settings()
@given(messages(types={"a": "long", "s": "string", "d": "double"}, identifiers=["a", "s", "d"]))
def test_messages_with_a_column_schema(message: dict[str, object]) -> None:
    for name, kind in (("a", int), ("s", str), ("d", float)):
        assert message.get(name) is None or type(message[name]) is kind


@property_settings()
@given(messages(identifiers=identifiers(), types=["string"], surrogates=True, missing=False))
def test_messages_over_generated_names(message: dict[str, object]) -> None:
    assert message
    assert all(type(v) is str for v in message.values())


@property_settings(0.5)
@given(selector_cases())
def test_cases_share_names_between_selector_and_messages(
    case: tuple[str, list[dict[str, object]]],
) -> None:
    text, found = case
    names = reference_filter(text).identifiers
    assert 1 <= len(found) <= 4
    assert all(set(m) <= set(DEFAULT_IDENTIFIERS) for m in found)
    assert names <= set(DEFAULT_IDENTIFIERS)


@pytest.mark.parametrize("wanted", [True, False, None])
def test_cases_reach_every_answer(wanted: bool | None) -> None:
    def reaches(case: tuple[str, list[dict[str, object]]]) -> bool:
        text, found = case
        return "AND" in words(text) and any(
            reference_filter(text).evaluate(m) is wanted for m in found
        )

    assert reaches(find(selector_cases(), reaches, settings=SEARCH))


def rocketmq_tags(text: str) -> set[str] | None:
    """A.1 of brokers.md: the tags a subscription names, or None for all of them."""
    if text in ("", "*"):
        return None
    pieces = text.split("||")
    while pieces and pieces[-1] == "":  # Java's split drops trailing empty strings
        pieces.pop()
    return {p.strip() for p in pieces if p.strip()}


@property_settings()
@given(tag_expressions())
def test_tag_expressions_name_at_least_one_tag(text: str) -> None:
    tags = rocketmq_tags(text)
    assert tags is None or tags or text.strip() == ""
    try:
        f = msgfilter.compile(text, "rocketmq-tag")
    except ImportError:
        pytest.skip("the rocketmq-tag dialect is not available yet")
    for tag in tags or ():
        assert f.matches({"TAGS": tag})


@property_settings()
@given(topic_names())
def test_topic_names_are_complete_pulsar_names(name: str) -> None:
    assert re.fullmatch(r"(non-)?persistent://[^/]+/[^/]+/[^/]+", name)
    names = pytest.importorskip("msgfilter.topics.names")
    parsed = names.parse_topic_name(name)
    assert parsed.name == name
    assert (parsed.partition is not None) == ("-partition-" in name)


@property_settings()
@given(topic_patterns(), st.lists(topic_names(), max_size=5))
def test_topic_patterns_compile(pattern: str, found: list[str]) -> None:
    assert re.compile(pattern.split("://", 1)[1])
    module = pytest.importorskip("msgfilter.topics.pattern")
    compiled = module.TopicsPattern.compile(pattern)
    matching = compiled.filter(found)
    assert [n for n in found if n in matching] == matching


def test_oracle_lines() -> None:
    case = oracle_case(7, "a > 1", {
        "a": 2, "d": math.nan, "i": -math.inf, "b": True, "s": "x", "JMSPriority": 4,
        "n": None, "o": b"x", "big": 2**64,
    })
    assert case == {
        "id": 7, "selector": "a > 1",
        "properties": {
            "a": {"type": "long", "value": 2}, "d": {"type": "double", "value": "NaN"},
            "i": {"type": "double", "value": "-Infinity"},
            "b": {"type": "boolean", "value": True}, "s": {"type": "string", "value": "x"},
        },
        "headers": {"JMSPriority": 4},
    }
    with pytest.raises(ValueError):
        oracle_case(1, "x", {"JMSPriority": "high"})
    with pytest.raises(ValueError):
        oracle_case(1, "x", {"JMSMessageID": "m-1"})  # ActiveMQ would rewrite it
    view = oracle_view({"a": 1, "o": b"x", "JMSPriority": 7, "JMSType": None})
    assert view == {**ACTIVEMQ_HEADER_DEFAULTS, "a": 1, "JMSPriority": 7}
    assert oracle_answer({"id": 1, "result": False, "value": None}) is None
    assert oracle_answer({"id": 1, "result": False, "value": "error"}) == "error"
    assert oracle_answer({"id": 1, "result": True, "value": True}) is True
    assert oracle_answer({"id": 1, "error": "x", "phase": "parse"}) == "error"
