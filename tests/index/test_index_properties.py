"""The index answers what the naive loop over compiled filters answers, for generated
subscription sets and messages in every dialect."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from index_generators import (
    realistic_messages,
    realistic_selectors,
    sql_messages,
    sql_selectors,
)
from msgfilter import Filter, Message, SubscriptionIndex
from msgfilter.testing import messages, property_settings, selectors, tag_expressions

pytestmark = pytest.mark.filterwarnings("ignore")


def naive(subs: dict[Hashable, Filter], message: Any) -> frozenset[Hashable]:
    return frozenset(k for k, f in subs.items() if f.matches(message))


def build(texts: list[str], dialect: str) -> tuple[SubscriptionIndex, dict[Hashable, Filter]]:
    idx = SubscriptionIndex(dialect=dialect)
    subs: dict[Hashable, Filter] = {}
    for i, text in enumerate(texts):
        try:
            f = msgfilter.compile(text, dialect)
        except msgfilter.FilterError:
            continue
        idx.add(i, text)
        subs[i] = f
    return idx, subs


def check(idx: SubscriptionIndex, subs: dict[Hashable, Filter], msgs: list[Any]) -> None:
    for m in msgs:
        assert idx.match(m) == naive(subs, m), (m, idx.explain())
    assert idx.match_many(msgs) == [naive(subs, m) for m in msgs]


NAMES = ["a", "b", "c"]


@property_settings()
@given(
    st.lists(selectors("jms", identifiers=NAMES), min_size=1, max_size=10),
    st.lists(messages(NAMES), min_size=1, max_size=5),
)
def test_jms_generated_selectors(texts: list[str], msgs: list[dict[str, Any]]) -> None:
    idx, subs = build(texts, "jms")
    check(idx, subs, msgs)


@pytest.mark.parametrize("dialect", ["jms", "rocketmq", "activemq"])
@property_settings(2.0)
@given(data=st.data())
def test_sql_dialects_at_type_edges(dialect: str, data: st.DataObject) -> None:
    texts = data.draw(st.lists(sql_selectors(dialect), min_size=1, max_size=12))
    msgs = data.draw(st.lists(sql_messages(dialect), min_size=1, max_size=6))
    idx, subs = build(texts, dialect)
    check(idx, subs, msgs)
    # The same messages as Message objects (TAGS from the tag, headers win).
    wrapped = [Message({k: v for k, v in m.items() if k != "TAGS"},
                       tags=m.get("TAGS") if isinstance(m.get("TAGS"), str) else None)
               for m in msgs]
    check(idx, subs, wrapped)


@property_settings()
@given(
    st.lists(tag_expressions(), min_size=1, max_size=8),
    st.lists(st.one_of(st.none(), st.sampled_from(["TagA", "TagB", "tagc", "*", "", " TagA"])),
             min_size=1, max_size=5),
)
def test_rocketmq_tags(texts: list[str], tags: list[str | None]) -> None:
    idx, subs = build(texts, "rocketmq-tag")
    msgs: list[Any] = [Message(tags=t) for t in tags] + [{"TAGS": t} for t in tags]
    check(idx, subs, msgs)


_PULSAR_VALUES = ["a", "b", "eu", "x y"]


@property_settings()
@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from(_PULSAR_VALUES), max_size=3),
                  st.lists(st.sampled_from(_PULSAR_VALUES), max_size=2)),
        min_size=1, max_size=8,
    ),
    st.lists(st.dictionaries(st.sampled_from(["tag1", "tag2", "tagx", "other", "Tag3"]),
                             st.one_of(st.sampled_from(_PULSAR_VALUES), st.integers(0, 2))),
             min_size=1, max_size=5),
)
def test_pulsar_tags(specs: list[tuple[list[str], list[str]]], msgs: list[dict[str, Any]]) -> None:
    from msgfilter.tags import PulsarTagFilter

    idx = SubscriptionIndex(dialect="pulsar-tag")
    subs: dict[Hashable, Filter] = {}
    for i, (any_t, all_t) in enumerate(specs):
        f = PulsarTagFilter(any_tags=any_t, all_tags=all_t)
        idx.add_filter(i, f)
        subs[i] = f
    check(idx, subs, msgs)


@property_settings(0.5)
@given(st.data(), st.integers(0, 2**16))
def test_mixed_dialects_with_removals(data: st.DataObject, seed: int) -> None:
    import random

    rnd = random.Random(seed)
    idx = SubscriptionIndex()
    subs: dict[Hashable, Filter] = {}
    for _ in range(12):
        dialect = rnd.choice(["jms", "rocketmq", "activemq"])
        text = data.draw(sql_selectors(dialect))
        key = rnd.randrange(8)       # re-adding a key replaces it
        try:
            f = msgfilter.compile(text, dialect)
        except msgfilter.FilterError:
            continue
        idx.add(key, text, dialect=dialect)
        subs.pop(key, None)
        subs[key] = f
        if rnd.random() < 0.2:
            gone = rnd.choice(list(subs))
            idx.remove(gone)
            del subs[gone]
    assert set(idx.keys()) == set(subs)
    msgs = data.draw(st.lists(sql_messages("jms"), min_size=1, max_size=4))
    check(idx, subs, msgs)


def test_realistic_workload() -> None:
    texts = realistic_selectors(2_000)
    idx, subs = build(texts, "jms")
    msgs = realistic_messages(300, 2_000)
    counts = []
    for m in msgs:
        want = naive(subs, m)
        assert idx.match(m) == want
        counts.append(len(want))
    assert max(counts) > 0
