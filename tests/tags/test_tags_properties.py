"""Hypothesis properties of the tag filters, each against an independent reference."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from msgfilter import FilterLimitError, FilterSyntaxError
from msgfilter.tags import (
    PulsarTagFilter,
    RocketMQTagFilter,
    parse_pulsar_tags,
    parse_tag_expression,
    tag_code,
)

# Any character Python can hold, lone surrogates included (Java strings may hold them too).
any_char = st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr))
any_text = st.text(any_char, max_size=30)


def java_hash_reference(s: str) -> int:
    """Java's documented formula s[0]*31^(n-1) + ... + s[n-1] over UTF-16 code units,
    summed with exact integers and reduced to a signed 32-bit int once at the end."""
    data = s.encode("utf-16-le", "surrogatepass")
    units = [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]
    n = len(units)
    total: int = sum(unit * 31 ** (n - 1 - i) for i, unit in enumerate(units)) % 2**32
    return total - 2**32 if total >= 2**31 else total


@given(st.one_of(any_text, st.text(any_char, min_size=60, max_size=300), st.text(max_size=200)))
def test_tag_code_is_javas_hash(s: str) -> None:
    assert tag_code(s) == java_hash_reference(s)
    assert -(2**31) <= tag_code(s) < 2**31


def java_split(text: str) -> list[str]:
    """`text.split("\\\\|\\\\|")` as java.util.regex.Pattern.split(input, 0) does it."""
    pieces, start = [], 0
    for match in re.finditer(r"\|\|", text):
        pieces.append(text[start : match.start()])
        start = match.end()
    if not pieces:
        return [text]
    pieces.append(text[start:])
    while pieces and pieces[-1] == "":
        pieces.pop()
    return pieces


def build_subscription_reference(text: str) -> tuple[str, ...] | None:
    """FilterAPI.buildSubscriptionData, step by step (None: subscribe-all)."""
    if text == "" or text == "*":
        return None
    pieces = java_split(text)
    if not pieces:
        raise ValueError("subString split error")
    out: list[str] = []
    for piece in pieces:
        trimmed = re.sub(r"^[\x00-\x20]+|[\x00-\x20]+$", "", piece)
        if trimmed and trimmed not in out:
            out.append(trimmed)
    return tuple(out)


expression_text = st.lists(
    st.sampled_from(["|", "||", " ", "\t", "*", "A", "b", "\xa0", "\x00"])
).map("".join)


@given(expression_text)
def test_parse_is_build_subscription_data(text: str) -> None:
    try:
        expected = build_subscription_reference(text)
    except ValueError:
        try:
            parse_tag_expression(text)
        except FilterSyntaxError:
            return
        raise AssertionError(f"{text!r} should be a syntax error") from None
    assert parse_tag_expression(text) == expected


tag = st.text(any_char, min_size=1, max_size=8).map(lambda s: s.strip("".join(map(chr, range(33)))))
tags = st.lists(tag.filter(lambda t: t != "" and "||" not in t), max_size=6)


@given(tags)
def test_rocketmq_unparse_round_trips(tag_list: list[str]) -> None:
    f = RocketMQTagFilter(" || ".join(tag_list) if tag_list else " ")
    again = RocketMQTagFilter(f.unparse())
    assert again == f
    assert again.ordered_tags == f.ordered_tags


@given(tags, st.one_of(st.none(), tag, st.integers()))
def test_matches_implies_matches_code(tag_list: list[str], message_tag: object) -> None:
    f = RocketMQTagFilter(" || ".join(tag_list) or "*")
    message = {} if message_tag is None else {"TAGS": message_tag}
    if f.matches(message):
        code = tag_code(message_tag) if isinstance(message_tag, str) else 0
        assert f.matches_code(code)
    assert f.matches(message) == (f.subscribe_all or message_tag in f.tags)


@given(
    st.lists(st.text(max_size=4), max_size=90),
    st.lists(st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)), max_size=50),
)
def test_matches_codes_agrees_with_matches_code(
    tag_list: list[str], codes: list[int | None]
) -> None:
    f = RocketMQTagFilter(" || ".join(tag_list))
    # Mix in codes that do match, so that both answers occur.
    codes = codes + [tag_code(t) for t in tag_list]
    expected = [f.matches_code(c) for c in codes]
    assert f.matches_codes(codes).tolist() == expected
    ints = [0 if c is None else c for c in codes]
    expected_ints = [f.matches_code(c) for c in ints]
    assert f.matches_codes(np.array(ints, dtype=np.int64)).tolist() == expected_ints
    assert f.matches_codes(np.array(ints, dtype=np.int32)).tolist() == expected_ints


# --- Pulsar ------------------------------------------------------------------------------

values = st.lists(st.text(any_char, max_size=6), max_size=5)
properties = st.dictionaries(
    st.one_of(st.sampled_from(["tag", "tag1", "tag2", "Tag1", "mytag", "x"]), st.text(max_size=4)),
    st.one_of(st.text(max_size=3), st.sampled_from(["a", "b", "eu"]), st.integers(), st.none()),
    max_size=6,
)


def pulsar_reference(any_v: list[str], all_v: list[str], props: dict[str, object]) -> bool:
    """The proposal's rule, written from its description rather than from our code."""
    have = {v for k, v in props.items() if k.startswith("tag") and isinstance(v, str)}
    any_ok = not any_v or any(v in have for v in any_v)
    return any_ok and all(v in have for v in all_v)


@given(values, values, properties)
def test_pulsar_matches_the_reference(
    any_v: list[str], all_v: list[str], props: dict[str, object]
) -> None:
    f = PulsarTagFilter(any_tags=any_v, all_tags=all_v)
    assert f.matches(props) is pulsar_reference(any_v, all_v, props)


@given(values, values)
def test_pulsar_text_round_trips(any_v: list[str], all_v: list[str]) -> None:
    f = PulsarTagFilter(any_tags=any_v, all_tags=all_v)
    again = msgfilter.compile(f.unparse(), dialect="pulsar-tag")
    assert again == f
    assert isinstance(again, PulsarTagFilter)
    assert again.ordered_any_tags == tuple(dict.fromkeys(any_v))
    assert again.ordered_all_tags == tuple(dict.fromkeys(all_v))


pulsar_text = st.lists(
    st.one_of(st.sampled_from(["anytag", "ALLTAG", ":", ",", ";", "'", " ", "a", "é"]), any_char)
).map("".join)


@given(pulsar_text)
def test_pulsar_parse_fails_only_with_filter_errors(text: str) -> None:
    try:
        any_v, all_v = parse_pulsar_tags(text)
    except (FilterSyntaxError, FilterLimitError) as err:
        assert 0 <= err.offset <= len(text)
        return
    f = PulsarTagFilter(any_tags=any_v, all_tags=all_v)
    assert parse_pulsar_tags(f.unparse()) == (any_v, all_v)
