"""SubscriptionIndex: the type rules of each value model (each with a case a too-narrow
key would lose), sharing, bad input, explain()."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

import msgfilter
from msgfilter import FilterError, Message, SubscriptionIndex
from msgfilter.jtypes import Double, Int, Long


def naive(idx: SubscriptionIndex, message: Any) -> frozenset[Hashable]:
    return frozenset(k for k, f in idx.items() if f.matches(message))


def agree(idx: SubscriptionIndex, message: Any) -> frozenset[Hashable]:
    got = idx.match(message)
    assert got == naive(idx, message)
    return got


def index(dialect: str, *texts: str) -> SubscriptionIndex:
    idx = SubscriptionIndex(dialect=dialect)
    for i, text in enumerate(texts):
        idx.add(i, text)
    return idx


# -- jms ------------------------------------------------------------------------------------


def test_jms_numbers_promote_long_to_double() -> None:
    idx = index("jms", "a = 5", "a = 5.0", "a = 9007199254740992.0", "a = 9007199254740992")
    assert agree(idx, {"a": 5}) == {0, 1}
    assert agree(idx, {"a": 5.0}) == {0, 1}
    # J25: the long is widened with to_double, so 2**53+1 equals the double 2.0**53...
    assert agree(idx, {"a": 2**53 + 1}) == {2}
    # ... but two longs compare exactly.
    assert agree(idx, {"a": 2**53}) == {2, 3}
    assert agree(idx, {"a": float(2**53)}) == {2, 3}


def test_jms_booleans_and_strings_are_not_numbers() -> None:
    idx = index("jms", "a = 1", "a = TRUE", "a = '1'", "a", "a = FALSE")
    assert agree(idx, {"a": True}) == {1, 3}
    assert agree(idx, {"a": 1}) == {0}
    assert agree(idx, {"a": "1"}) == {2}
    assert agree(idx, {"a": False}) == {4}
    assert agree(idx, {"a": 0}) == frozenset()


def test_jms_zero_signs_and_nan() -> None:
    idx = index("jms", "a = 0", "a = -0.0", "a = 0.0", "a >= 0", "a <> 0")
    assert agree(idx, {"a": -0.0}) == {0, 1, 2, 3}
    assert agree(idx, {"a": 0}) == {0, 1, 2, 3}
    assert agree(idx, {"a": float("nan")}) == {4}
    assert agree(idx, {"a": float("inf")}) == {3, 4}


def test_jms_ranges_in_double_space() -> None:
    idx = index(
        "jms", "a > 9007199254740992", "a >= 9007199254740993", "a BETWEEN 1 AND 2",
        "a < -1.5", "a BETWEEN 2 AND 1", "2 < a",
    )
    assert agree(idx, {"a": 2**53 + 1}) == {0, 1, 5}
    assert agree(idx, {"a": float(2**53 + 2)}) == {0, 1, 5}
    assert agree(idx, {"a": 1}) == {2}
    assert agree(idx, {"a": 2.0}) == {2}
    assert agree(idx, {"a": -2}) == {3}
    assert agree(idx, {"a": "3"}) == frozenset()
    assert agree(idx, {"a": True}) == frozenset()


def test_jms_like_prefix_and_in() -> None:
    idx = index(
        "jms", "a LIKE 'ab%'", "a LIKE 'a_c%'", "a LIKE '\U0001F600%'",
        "a LIKE 'x!%%' ESCAPE '!'", "a IN ('ab', 'x')", "a NOT IN ('ab')",
    )
    assert agree(idx, {"a": "abc"}) == {0, 1, 5}
    assert agree(idx, {"a": "ab"}) == {0, 4}
    assert agree(idx, {"a": "\U0001F600!"}) == {2, 5}
    assert agree(idx, {"a": "x%y"}) == {3, 5}
    assert agree(idx, {"a": "x"}) == {4, 5}
    assert agree(idx, {"a": 5}) == {5}


def test_jms_or_not_and_unkeyable() -> None:
    idx = index(
        "jms", "a = 'x' OR b = 2", "NOT (a = 'x')", "a = b", "a = 'x' OR b <> 2",
        "a = 'x' AND b = 2", "a IS NOT NULL AND a <> 'y'", "a IS NULL",
    )
    assert agree(idx, {"a": "x", "b": 2}) == {0, 3, 4, 5}
    assert agree(idx, {"b": 2}) == {0, 6}
    assert agree(idx, {"a": "y", "b": 3}) == {1, 3}
    assert agree(idx, {"a": 3, "b": 3}) == {1, 2, 3}  # 3 <> 'y' is FALSE
    text = idx.explain()
    # `a = b`, `b <> 2` are TRUE only with their identifiers present.
    assert "jms: present a (1 filters; verified: comparison of two expressions: 1)" in text
    assert "jms: eq a | present b (1 filters; verified: <>: 1)" in text
    # `a <> 'y'` (a string other than 'y') and `NOT (a = 'x')` (any value but the
    # string 'x') the index decides alone.
    assert "jms: ne a (1 filters, 1 decided by the index)" in text
    assert "jms: not-eq a (1 filters, 1 decided by the index)" in text
    assert "always checked: 1 subscriptions\n         1  IsNull condition" in text


def test_jms_between_with_a_null_bound() -> None:
    # NOT BETWEEN is an OR: `c < a` is UNKNOWN with a NULL, `c > -2**63` TRUE.
    idx = index("jms", "c NOT BETWEEN a AND -9223372036854775808", "NOT (c BETWEEN a AND 5)",
                "c BETWEEN a AND 5")
    assert agree(idx, {"c": 0}) == {0}
    assert agree(idx, {"c": 6}) == {0, 1}
    assert agree(idx, {"c": 6, "a": 7}) == {0, 1}
    assert agree(idx, {"c": 3, "a": 1}) == {0, 2}


def test_jms_unkeyable_selectors_are_always_checked() -> None:
    idx = index("jms", "NOT (a = 'x' AND b = 2)", "a = 'x' OR b IS NULL", "NOT (a IS NULL)",
                "a + 1 > 2", "NOT (a IS NOT NULL)")
    assert agree(idx, {}) == {1, 4}
    assert agree(idx, {"a": 2}) == {0, 1, 2, 3}
    assert agree(idx, {"a": "x", "b": 2}) == {1, 2}
    text = idx.explain()
    # NOT of an AND is an OR of NOTs (De Morgan holds in three-valued logic): keyed by
    # the presence of `a` or `b`.
    assert "jms: present a | present b (1 filters; verified: <> in an OR, NOT: 1)" in text
    assert "always checked: 2 subscriptions" in text
    assert "NOT" in text and "OR with a branch that has no key" in text


# -- rocketmq -------------------------------------------------------------------------------


def test_rocketmq_converts_property_strings() -> None:
    idx = index("rocketmq", "a = 5", "a = 5.0", "a = 'five'", "a = TRUE", "a = FALSE",
                "a = 3000000000", "a IN ('5', '05')")
    assert agree(idx, {"a": "5"}) == {0, 1, 4, 6}
    assert agree(idx, {"a": "+5"}) == {0, 1, 4}
    assert agree(idx, {"a": "05"}) == {0, 1, 4, 6}
    assert agree(idx, {"a": "\u0665"}) == {0, 4}
    assert agree(idx, {"a": 5}) == {0, 1, 4, 6}
    assert agree(idx, {"a": "true"}) == {3}
    assert agree(idx, {"a": "3000000000"}) == {4, 5}


def test_rocketmq_conversion_errors_are_not_matches() -> None:
    idx = index("rocketmq", "a = 5 AND b = 'x'", "b = 'x'", "5 = a", "TRUE = a",
                "a STARTSWITH 'ab'", "a STARTSWITH ''")
    assert agree(idx, {"a": "abc", "b": "x"}) == {1, 4}
    assert agree(idx, {"a": "5", "b": "x"}) == {0, 1, 2}
    assert agree(idx, {"a": "true"}) == frozenset()


def test_rocketmq_negative_and_double_literals() -> None:
    idx = index("rocketmq", "a = -5", "a = -0.0", "a = 0.0")
    assert agree(idx, {"a": "-5"}) == {0}
    assert agree(idx, {"a": "-0.0"}) == {1}
    assert agree(idx, {"a": "0"}) == {2}


def test_rocketmq_evaluates_tags_in_sql() -> None:
    idx = index("rocketmq", "TAGS = 'TagA'", "TAGS IN ('TagA', 'TagB') AND a = 1")
    assert agree(idx, Message({"a": "1"}, tags="TagA")) == {0, 1}
    assert agree(idx, Message({"a": 1}, tags="TagB")) == {1}


# -- activemq -------------------------------------------------------------------------------


def test_activemq_java_types() -> None:
    idx = index("activemq", "a = 'x'", "a = 5", "a IN ('x', 'y')", "a > 4",
                "convert_string_expressions:a = 5")
    assert agree(idx, {"a": "x"}) == {0, 2}
    assert agree(idx, {"a": Int(5)}) == {1, 3, 4}
    assert agree(idx, {"a": Long(5)}) == {1, 3, 4}
    assert agree(idx, {"a": Double(5.0)}) == {1, 3, 4}
    assert agree(idx, {"a": "5"}) == {4}


# -- tags -----------------------------------------------------------------------------------


def test_rocketmq_tag_sets() -> None:
    idx = index("rocketmq-tag", "TagA || TagB", "*", "", "TagB", " ")
    assert agree(idx, Message(tags="TagB")) == {0, 1, 2, 3}
    assert agree(idx, {"TAGS": "TagA"}) == {0, 1, 2}
    assert agree(idx, {}) == {1, 2}
    assert agree(idx, {"TAGS": 5}) == {1, 2}


def test_pulsar_tags() -> None:
    idx = index("pulsar-tag", "anytag: a, b", "alltag: a, c", "anytag: a; alltag: c", "")
    assert agree(idx, {"tag1": "a", "tag2": "c"}) == {0, 1, 2, 3}
    assert agree(idx, {"tag1": "b"}) == {0, 3}
    assert agree(idx, {"tagz": "c", "other": "a"}) == {3}
    assert agree(idx, {"Tag1": "a"}) == {3}


# -- the container --------------------------------------------------------------------------


def test_mixed_dialects_share_and_replace() -> None:
    idx = SubscriptionIndex()
    idx.add("j", "a = 5")
    idx.add("r", "a = 5", dialect="rocketmq")
    idx.add("t", "TagA", dialect="rocketmq-tag")
    idx.add("j2", "a  =  5")          # the same filter: one entry, two keys
    assert len(idx) == 4 and "j2" in idx and "zz" not in idx and [] not in idx
    assert agree(idx, {"a": 5, "TAGS": "TagA"}) == {"j", "r", "t", "j2"}
    assert agree(idx, {"a": "5"}) == {"r"}
    assert "4 subscriptions, 3 distinct filters" in idx.explain()
    idx.add("j", "a = 6")             # re-adding replaces
    assert agree(idx, {"a": 5}) == {"r", "j2"}
    assert list(idx.keys()) == ["r", "t", "j2", "j"]
    idx.remove("j2")
    assert agree(idx, {"a": 5}) == {"r"}
    with pytest.raises(KeyError):
        idx.remove("j2")
    for key in list(idx.keys()):
        idx.remove(key)
    assert len(idx) == 0 and idx.match({"a": 5}) == frozenset()
    assert idx._stores == {} and not idx._tags and idx._entries == {} and not idx._everything


def test_add_filter_takes_compiled_filters() -> None:
    idx = SubscriptionIndex()
    idx.add_filter(("t", 1), msgfilter.compile("a = 'x'"))
    assert idx.match({"a": "x"}) == {("t", 1)}
    with pytest.raises(TypeError):
        idx.add_filter("k", "a = 'x'")  # type: ignore[arg-type]


def test_bad_selector_names_the_key_and_leaves_the_index() -> None:
    idx = SubscriptionIndex()
    idx.add("good", "a = 1")
    before = (list(idx.keys()), idx.explain())
    with pytest.raises(msgfilter.FilterSyntaxError, match="subscription 'bad'"):
        idx.add("bad", "a = ")
    with pytest.raises(msgfilter.FilterSyntaxError, match="subscription 'good'"):
        idx.add("good", "a = = 2")
    with pytest.raises(FilterError, match="subscription 'tags'"):
        idx.add("tags", "||", dialect="rocketmq-tag")
    with pytest.raises(TypeError):
        idx.add(["unhashable"], "a = 1")
    assert (list(idx.keys()), idx.explain()) == before
    assert idx.match({"a": 1}) == {"good"}


def test_unknown_dialect() -> None:
    with pytest.raises(FilterError, match="nosuch"):
        SubscriptionIndex(dialect="nosuch")
    idx = SubscriptionIndex()
    with pytest.raises(FilterError, match="nosuch"):
        idx.add("k", "a = 1", dialect="nosuch")
    assert len(idx) == 0


class _Exploding(dict):  # type: ignore[type-arg]
    def get(self, key: object, default: object = None) -> object:
        raise RuntimeError("boom")


class _Odd:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("no")

    __hash__ = None  # type: ignore[assignment]


@pytest.mark.parametrize("message", [
    None, 5, "text", [("a", 1)], {"a": _Odd()}, {"a": [1]}, {1: "a", "a": b"x"},
    {"a": 2**80}, {"a": float("nan")}, Message({"a": _Odd()}), {"a": "x" * 10_000},
])
@pytest.mark.parametrize("dialect", ["jms", "rocketmq", "activemq"])
def test_odd_messages_never_raise(message: Any, dialect: str) -> None:
    idx = index(dialect, "a = 'x'", "a = 5", "a IN ('x')", "a IS NOT NULL", "NOT (a = 1)")
    agree(idx, message)
    assert idx.match_many([message, message]) == [naive(idx, message)] * 2


def test_match_many_and_empty_index() -> None:
    idx = SubscriptionIndex()
    assert idx.match({"a": 1}) == frozenset()
    idx.add(1, "")  # the empty selector matches everything
    assert idx.match_many([{}, None]) == [frozenset({1}), frozenset({1})]
    assert "match every message: 1" in idx.explain()


def test_the_index_pickles_as_its_subscriptions() -> None:
    import pickle

    idx = SubscriptionIndex(dialect="rocketmq")
    idx.add("a", "a = 5")
    idx.add("t", "TagA || TagB", dialect="rocketmq-tag")
    idx.add("j", "x > 2 AND region = 'eu'", dialect="jms")
    back = pickle.loads(pickle.dumps(idx))
    assert back.dialect == "rocketmq"
    assert back.items() == idx.items()
    message = msgfilter.Message({"a": "05", "x": 3, "region": "eu"}, tags="TagB")
    assert back.match(message) == idx.match(message) == frozenset({"a", "t", "j"})


def test_a_pickle_carries_each_filter_once_and_keeps_the_order() -> None:
    import pickle

    from msgfilter.amqp import property_filter
    from msgfilter.limits import Limits

    idx = SubscriptionIndex()
    text = "colour = 'blue' AND weight > 12"
    for n in range(50):
        idx.add(("shared", n), text)
        idx.add(("own", n), f"colour = 'c{n}'")
    idx.add_filter("props", property_filter(application_properties={"colour": "blue"}))
    tight = msgfilter.compile("weight > 12", limits=Limits(max_depth=40))
    idx.add_filter("limits", tight)
    idx.add(("shared", 7), text)  # re-adding leaves the key where it was
    idx.remove(("own", 3))
    blob = pickle.dumps(idx)
    assert blob.count(text.encode()) == 1
    back = pickle.loads(blob)
    assert back.items() == idx.items()
    assert list(back.keys()) == list(idx.keys())
    assert back.filter_of("limits").limits == tight.limits
    assert back.filter_of("props") == idx.filter_of("props")
    blue = {"colour": "blue", "weight": 13}
    assert back.match(blue) == idx.match(blue)
    assert len(back.match(blue)) == 52


def test_add_filters_equals_add_filter_one_by_one() -> None:
    pairs = [(n, msgfilter.compile(f"v = {n % 7} OR w > {n % 5}")) for n in range(60)]
    one = SubscriptionIndex()
    for key, f in pairs:
        one.add_filter(key, f)
    many = SubscriptionIndex()
    many.add_filters(pairs)
    assert many.items() == one.items()
    for message in ({"v": 3}, {"w": 4}, {"v": 0, "w": 0}, {}):
        assert many.match(message) == one.match(message)
    with pytest.raises(TypeError):
        many.add_filters([("x", "v = 1")])  # type: ignore[list-item]
