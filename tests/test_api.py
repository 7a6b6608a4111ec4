"""The public API: compile, Filter, Message, cache, pickling, round trips."""

from __future__ import annotations

import copy
import pickle
import threading

import pytest

import msgfilter
from msgfilter import Message

from conformance import load, message_of

VALID = [c for c in load("activemq-corpus-seed1.jsonl") if c["spec"] != "error"]


def test_compile_matches_evaluate() -> None:
    f = msgfilter.compile("color = 'red' AND weight > 2.5")
    assert f.matches({"color": "red", "weight": 3.0}) is True
    assert f.evaluate({"color": "red", "weight": 2.0}) is False
    assert f.evaluate({"color": "red"}) is None
    assert f.matches({"color": "red"}) is False
    assert f.text == "color = 'red' AND weight > 2.5"
    assert f.dialect == "jms"
    assert f.identifiers == frozenset({"color", "weight"})


def test_message_objects_merge_properties_headers_and_tags() -> None:
    f = msgfilter.compile("JMSPriority > 3 AND kind = 'order' AND TAGS = 'TagA'")
    message = Message(properties={"kind": "order"}, headers={"JMSPriority": 5}, tags="TagA")
    assert f.matches(message)
    assert not f.matches(Message(properties={"kind": "order"}, headers={"JMSPriority": 5}))
    # A header wins over a property of the same name.
    clash = Message(properties={"JMSPriority": 1, "kind": "order"}, headers={"JMSPriority": 9},
                    tags="TagA")
    assert f.matches(clash)
    assert Message(keys=["k1", "k2"]).view["KEYS"] == "k1 k2"


def test_messages_of_any_shape_never_raise() -> None:
    f = msgfilter.compile("a = 1 OR b LIKE 'x%' OR c + 1 > 2 OR d IN ('q')")
    for odd in (None, 42, "text", [1, 2], object(), {"a": object()}, {1: 2}):
        assert f.matches(odd) is False
        assert f.evaluate(odd) in (None, False)


def test_compile_is_cached_and_purge_empties_the_cache() -> None:
    msgfilter.purge()
    first = msgfilter.compile("a = 1")
    second = msgfilter.compile("a = 1")
    assert first is second
    info = msgfilter.cache_info()
    assert (info.hits, info.misses, info.currsize) == (1, 1, 1)
    msgfilter.purge()
    assert msgfilter.cache_info().currsize == 0
    third = msgfilter.compile("a = 1")
    assert third is not first and third == first


def test_filters_are_immutable_and_hashable() -> None:
    f = msgfilter.compile("a = 1")
    with pytest.raises(AttributeError):
        f.text = "b = 2"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del f.matches
    assert hash(f) == hash(msgfilter.compile("(a=1)"))
    assert f == msgfilter.compile("  ( a   =   1 )  ")
    assert f != msgfilter.compile("a = 2")
    assert f != msgfilter.compile("a = 1.0")
    assert len({f, msgfilter.compile("(a = 1)"), msgfilter.compile("a = 2")}) == 2
    assert copy.deepcopy(f) is f


def test_pickle_rebuilds_through_the_cache() -> None:
    f = msgfilter.compile("a BETWEEN 1 AND 5 OR s LIKE 'x\\_%' ESCAPE '\\'")
    g = pickle.loads(pickle.dumps(f))
    assert g is f
    msgfilter.purge()
    h = pickle.loads(pickle.dumps(f))
    assert h == f and h is not f
    assert h.matches({"s": "x_y"})
    limited = msgfilter.compile("a = 1", limits=msgfilter.Limits(max_depth=10))
    assert pickle.loads(pickle.dumps(limited)).limits.max_depth == 10


@pytest.mark.parametrize("case", VALID[:1500], ids=lambda c: str(c["id"]))
def test_unparse_round_trips(case: dict[str, object]) -> None:
    f = msgfilter.compile(str(case["selector"]))
    text = str(f)
    again = msgfilter.compile(text)
    assert again == f
    assert str(again) == text
    message = message_of(case)  # type: ignore[arg-type]
    assert again.evaluate(message) == f.evaluate(message)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("a=1 and (b<2 or c is null)", "a = 1 AND (b < 2 OR c IS NULL)"),
        ("not a = b", "NOT a = b"),
        ("a = (NOT b)", "a = (NOT b)"),
        ("(a = 1) = TRUE", "a = 1 = TRUE"),
        ("a = (b = c)", "a = (b = c)"),
        ("a - (b - c) > 0", "a - (b - c) > 0"),
        ("- -1 = +x", "1 = x"),
        ("a - -5 < 0", "a - -5 < 0"),
        ("-(-a) > 0", "- -a > 0"),
        ("-(9223372036854775808) < 0", "-9223372036854775808 < 0"),
        ("1e400 > x", "1E309 > x"),
        ("s = 'it''s'", "s = 'it''s'"),
        ("x not in ('a','b')", "x NOT IN ('a', 'b')"),
        ("(a AND b) AND (c OR d)", "a AND b AND (c OR d)"),
    ],
)
def test_canonical_text(text: str, canonical: str) -> None:
    assert msgfilter.compile(text).unparse() == canonical
    assert msgfilter.compile(canonical) == msgfilter.compile(text)


def test_threads_share_filters_while_the_cache_is_purged() -> None:
    texts = [f"a = {i} OR s LIKE '%{i}%'" for i in range(50)]
    expected = {t: msgfilter.compile(t).evaluate({"a": 7, "s": "x17"}) for t in texts}
    failures: list[str] = []

    def work() -> None:
        for _ in range(20):
            for text in texts:
                if msgfilter.compile(text).evaluate({"a": 7, "s": "x17"}) != expected[text]:
                    failures.append(text)

    def purge() -> None:
        for _ in range(200):
            msgfilter.purge()

    threads = [threading.Thread(target=work) for _ in range(8)] + [threading.Thread(target=purge)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_negative_zero_literals_are_distinct() -> None:
    assert msgfilter.compile("a = 0.0") != msgfilter.compile("a = -0.0")
    assert msgfilter.compile("'x' + 0.0 = 'x' + -0.0").evaluate({}) is False
