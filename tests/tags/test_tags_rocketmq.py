"""RocketMQ tag expressions: parsing (spec/brokers.md A.1), the broker's code check, the
client's re-check, bulk masks, equality, pickling, and `compile` integration."""

from __future__ import annotations

import copy
import pickle
import sys

import numpy as np
import pyarrow as pa
import pytest

import msgfilter
from msgfilter import FilterError, FilterLimitError, FilterSyntaxError, Limits, Message
from msgfilter.tags import RocketMQTagFilter, parse_tag_expression, tag_code, unparse_tags


def rmq(text: str) -> RocketMQTagFilter:
    f = msgfilter.compile(text, dialect="rocketmq-tag")
    assert isinstance(f, RocketMQTagFilter)
    return f


# --- parsing: every edge case of FilterAPI.buildSubscriptionData --------------------------

@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("", None),  # empty: subscribe-all
        ("*", None),  # exactly SUB_ALL
        (" * ", ("*",)),  # not trimmed before the "*" test: one literal tag "*"
        ("*||", ("*",)),
        ("* || A", ("*", "A")),
        ("TagA", ("TagA",)),
        ("TAGA || TAGB", ("TAGA", "TAGB")),
        ("  TagA  ||TagB ", ("TagA", "TagB")),
        ("A||", ("A",)),  # trailing empty piece dropped
        ("||A", ("A",)),  # leading empty piece kept by split, dropped as empty
        ("A||||B", ("A", "B")),
        ("a|b", ("a|b",)),  # a lone "|" is not a separator
        ("|", ("|",)),
        ("|||", ("|",)),  # "||" then "|"
        ("a|||b", ("a", "|b")),  # leftmost "||" first, like Java's split
        ("A || B || A", ("A", "B")),  # first appearance, no repeats
        ("B || A", ("B", "A")),
        ("\x00A\x1f || \tB\n", ("A", "B")),  # Java trim: every char <= U+0020
        ("\xa0A", ("\xa0A",)),  # U+00A0 is not trimmed by Java
        ("tagA || TagA", ("tagA", "TagA")),  # case-sensitive
        (" ", ()),  # blank: no tag, not subscribe-all
        ("\t\n", ()),
        ("|| ||", ()),
        (" ||", ()),
    ],
)
def test_parse(text: str, tags: tuple[str, ...] | None) -> None:
    assert parse_tag_expression(text) == tags
    f = rmq(text)
    assert f.subscribe_all is (tags is None)
    assert f.ordered_tags == (tags or ())
    assert f.tags == frozenset(tags or ())
    assert f.tag_codes == frozenset(tag_code(t) for t in tags or ())


@pytest.mark.parametrize("text", ["||", "||||", "||||||"])
def test_only_separators_is_a_syntax_error(text: str) -> None:
    with pytest.raises(FilterSyntaxError) as err:
        rmq(text)
    assert err.value.offset == 0
    assert err.value.expected
    assert "||" in str(err.value)


def test_syntax_errors_are_not_cached() -> None:
    before = msgfilter.cache_info().currsize
    with pytest.raises(FilterSyntaxError):
        rmq("||")
    assert msgfilter.cache_info().currsize == before


def test_tag_count_limit_points_at_the_excess_tag() -> None:
    limits = Limits(max_in_items=2)
    with pytest.raises(FilterLimitError) as err:
        msgfilter.compile("a || b ||  c", dialect="rocketmq-tag", limits=limits)
    assert err.value.offset == 11
    # Repeats are not new tags.
    f = msgfilter.compile("a || b || a", dialect="rocketmq-tag", limits=limits)
    assert f.tags == {"a", "b"}  # type: ignore[attr-defined]


def test_length_limit() -> None:
    with pytest.raises(FilterLimitError):
        msgfilter.compile("A" * 11, dialect="rocketmq-tag", limits=Limits(max_length=10))


def test_non_text_is_a_filter_error() -> None:
    with pytest.raises(FilterError):
        RocketMQTagFilter(b"TagA")  # type: ignore[arg-type]


# --- the client's re-check: matches() ----------------------------------------------------

@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ({"TAGS": "TagA"}, True),
        ({"TAGS": "TagB", "other": 1}, True),
        ({"TAGS": "TagC"}, False),
        ({"TAGS": "taga"}, False),  # case-sensitive
        ({"TAGS": " TagA"}, False),  # the message's tag is not trimmed
        ({"TAGS": ""}, False),
        ({"TAGS": None}, False),
        ({}, False),  # untagged
        ({"TAGS": 2598919}, False),  # odd data: never raises
        ({"TAGS": ["TagA"]}, False),
        ({"TAGS": {"TagA": 1}}, False),
        (Message(tags="TagA"), True),
        (Message(properties={"TAGS": "TagB"}), True),
        (Message(tags="TagC"), False),
        (Message(), False),
        (None, False),
        ("TagA", False),
        (42, False),
    ],
)
def test_matches_is_the_exact_client_check(message: object, expected: bool) -> None:
    f = rmq("TagA || TagB")
    assert f.matches(message) is expected
    assert f.evaluate(message) is expected


def test_subscribe_all_matches_everything() -> None:
    for text in ("", "*"):
        f = rmq(text)
        for message in ({"TAGS": "x"}, {}, {"TAGS": None}, {"TAGS": ["x"]}, Message(), None, 7):
            assert f.matches(message) is True
            assert f.evaluate(message) is True
        for code in (0, 42, -(2**31), 2**40, None):
            assert f.matches_code(code) is True
        assert f.matches_tag(None) is True
        assert f.tags == frozenset()
        assert f.tag_codes == frozenset()


def test_literal_star_tag_is_not_subscribe_all() -> None:
    f = rmq(" * ")
    assert f.tag_codes == {42}
    assert f.matches({"TAGS": "*"}) is True
    assert f.matches({"TAGS": "TagA"}) is False
    assert f.matches({}) is False
    assert f.matches_code(42) is True
    assert f.matches_code(2598919) is False


def test_blank_expression_subscribes_to_nothing() -> None:
    f = rmq(" ")
    assert not f.subscribe_all
    for message in ({"TAGS": "x"}, {"TAGS": " "}, {}, Message(tags="x")):
        assert f.matches(message) is False
    assert f.matches_code(0) is False
    assert f.matches_code(42) is False
    # The broker still admits a code it could not read.
    assert f.matches_code(None) is True


def test_matches_tag() -> None:
    f = rmq("TagA || TagB")
    assert f.matches_tag("TagA") is True
    assert f.matches_tag("TagC") is False
    assert f.matches_tag(None) is False
    assert f.matches_tag(["TagA"]) is False  # type: ignore[arg-type]


# --- the broker's consume-queue check: matches_code() ------------------------------------

def test_matches_code() -> None:
    f = rmq("TagA || TagB")
    assert f.tag_codes == {2598919, 2598920}
    assert f.matches_code(2598919) is True
    assert f.matches_code(2598920) is True
    assert f.matches_code(2567175) is False  # TAGA
    assert f.matches_code(0) is False  # untagged
    assert f.matches_code(None) is True  # ext read failed: the broker admits it
    assert None not in f.tag_codes


def test_collision_passes_the_broker_but_not_the_client() -> None:
    f = rmq("Aa")
    assert tag_code("BB") == tag_code("Aa")
    assert f.matches_code(tag_code("BB")) is True
    assert f.matches({"TAGS": "BB"}) is False
    assert f.matches({"TAGS": "Aa"}) is True


def test_a_tag_with_code_zero_lets_untagged_messages_past_the_broker_only() -> None:
    f = rmq("f5a5a608")
    assert f.matches_code(tag_code(None)) is True
    assert f.matches({}) is False
    assert f.matches({"TAGS": "f5a5a608"}) is True


# --- bulk: matches_codes() --------------------------------------------------------------

CODES = [2598919, 2567175, 0, 2598920, -5, 2598919]
EXPECTED = [True, False, False, True, False, True]


@pytest.mark.parametrize(
    "codes",
    [
        CODES,
        tuple(CODES),
        iter(CODES),
        np.array(CODES, dtype=np.int64),
        np.array(CODES, dtype=np.int32),
        pa.array(CODES, type=pa.int32()),
        pa.array(CODES, type=pa.int64()),
        pa.chunked_array([CODES[:2], CODES[2:]], type=pa.int64()),
    ],
    ids=["list", "tuple", "iterator", "np-int64", "np-int32", "pa-int32", "pa-int64", "chunked"],
)
def test_matches_codes(codes: object) -> None:
    mask = rmq("TagA || TagB").matches_codes(codes)
    assert isinstance(mask, np.ndarray)
    assert mask.dtype == np.bool_
    assert mask.tolist() == EXPECTED


def test_matches_codes_admits_missing_codes() -> None:
    f = rmq("TagA")
    assert f.matches_codes([2598919, None, 1]).tolist() == [True, True, False]
    arrow = pa.array([None, 2598919, 7, None], type=pa.int32())
    assert f.matches_codes(arrow).tolist() == [True, True, False, True]
    chunked = pa.chunked_array([[2598919, None], [None, 3]], type=pa.int64())
    assert f.matches_codes(chunked).tolist() == [True, True, True, False]
    assert f.matches_codes(pa.nulls(2)).tolist() == [True, True]
    assert rmq(" ").matches_codes(pa.array([None, 0], type=pa.int64())).tolist() == [True, False]


def test_matches_codes_subscribe_all_and_empty() -> None:
    f = rmq("*")
    assert f.matches_codes(np.array([1, 2, 3])).tolist() == [True] * 3
    assert f.matches_codes(pa.array([1, None])).tolist() == [True, True]
    assert rmq("TagA").matches_codes([]).tolist() == []
    assert rmq(" ").matches_codes(np.array(CODES)).tolist() == [False] * len(CODES)


@pytest.mark.parametrize("with_pyarrow", [True, False])
def test_matches_codes_many_tags_uses_the_same_rule(
    with_pyarrow: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not with_pyarrow:
        # Past 64 codes the mask comes from pyarrow when it can be imported: hide it.
        monkeypatch.setitem(sys.modules, "pyarrow", None)
        monkeypatch.setitem(sys.modules, "pyarrow.compute", None)
    tags = [f"T{i}" for i in range(80)]
    f = rmq(" || ".join(tags))
    codes = np.array([tag_code(t) for t in tags] + [0, 1, 2, tag_code("other")], dtype=np.int64)
    expected = [True] * 80 + [False] * 4
    assert f.matches_codes(codes).tolist() == expected
    assert f.matches_codes(codes.astype(np.int32)).tolist() == expected
    assert f.matches_codes([*codes.tolist(), None]).tolist() == [*expected, True]
    assert f.matches_codes(codes.reshape(4, 21)).tolist() == np.reshape(expected, (4, 21)).tolist()
    wide = np.array([tag_code("T1") + 2**32, tag_code("T1"), 2**64 - 1], dtype=np.uint64)
    assert f.matches_codes(wide).tolist() == [False, True, False]
    assert f.matches_codes(np.array([tag_code("T2"), 0.5])).tolist() == [True, False]


def test_matches_codes_odd_inputs_agree_with_matches_code() -> None:
    f = rmq("TagA || TagB")
    # Out of int32: not the code, even though the low 32 bits are.
    wide = np.array([2598919 + 2**32, 2598919, 2**63 + 5], dtype=np.uint64)
    assert f.matches_codes(wide).tolist() == [False, True, False]
    assert f.matches_codes(np.array([2598919.0, 0.5, np.nan])).tolist() == [True, False, False]
    assert f.matches_codes(np.array([1, 2], dtype=np.uint8)).tolist() == [False, False]
    assert f.matches_codes(["TagA", 2598920]).tolist() == [False, True]
    assert f.matches_codes(pa.array(["TagA", None])).tolist() == [False, True]
    for code in (2598919 + 2**32, 0.5, "TagA"):
        assert f.matches_code(code) is False  # type: ignore[arg-type]


# --- unparse, equality, hashing, pickling, the cache ---------------------------------------

@pytest.mark.parametrize(
    "text",
    ["", "*", " * ", "*||", " ", "|| ||", "A", "A || B", "B||A", "a|||b", "| || a|", "* || x"],
)
def test_unparse_round_trips(text: str) -> None:
    f = rmq(text)
    again = rmq(f.unparse())
    assert again == f
    assert again.ordered_tags == f.ordered_tags
    assert str(f) == f.unparse()


def test_unparse_canonical_forms() -> None:
    assert rmq("").unparse() == "*"
    assert rmq("  B|| A ||B").unparse() == "B || A"
    assert rmq(" * ").unparse() == "* ||"
    assert rmq("|| ||").unparse() == " "
    assert unparse_tags(None) == "*"


def test_equality_is_the_tag_set() -> None:
    assert rmq("A || B") == rmq("B||A") == rmq(" B || A || B ")
    assert hash(rmq("A || B")) == hash(rmq("B||A"))
    assert rmq("") == rmq("*")
    assert rmq(" ") == rmq("|| ||")
    assert rmq(" * ") != rmq("*")
    assert rmq(" ") != rmq("*")
    assert rmq("A") != rmq("A || B")
    assert rmq("A") != rmq("a")
    assert rmq("A") != msgfilter.compile("anytag: A", dialect="pulsar-tag")
    assert len({rmq("A||B"), rmq("B||A"), rmq("A")}) == 2


def test_compile_uses_the_cache() -> None:
    f = rmq("Cached1 || Cached2")
    assert rmq("Cached1 || Cached2") is f
    assert f.dialect == "rocketmq-tag"
    assert f.identifiers == frozenset({"TAGS"})
    assert f.text == "Cached1 || Cached2"


def test_pickle_and_copy() -> None:
    f = rmq("TagA || TagB")
    again = pickle.loads(pickle.dumps(f))
    assert again == f
    assert again.matches({"TAGS": "TagB"}) is True
    assert copy.deepcopy(f) is f
    limited = msgfilter.compile("A||B", dialect="rocketmq-tag", limits=Limits(max_in_items=5))
    back = pickle.loads(pickle.dumps(limited))
    assert back == limited
    assert back.limits == Limits(max_in_items=5)


def test_immutable() -> None:
    f = rmq("TagA")
    with pytest.raises(AttributeError):
        f.tags = frozenset({"x"})
    with pytest.raises(AttributeError):
        del f.matches_code


def test_explain() -> None:
    text = rmq("TagA || Aa || BB").explain()
    assert "subscribe-all: no" in text
    assert "'TagA'  2598919" in text
    assert "2112" in text
    assert "share a code" in text
    assert "subscribe-all: yes" in rmq("*").explain()
    assert "tags: none" in rmq(" ").explain()
    assert "untagged" in rmq("f5a5a608").explain()
