"""The cluster look-up's two paths, the generic loop and the generated function of each
group, answer what the naive loop answers; the generated source holds no text of the
user's (identifiers named like its own variables change nothing)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import msgfilter
from index_generators import sql_messages, sql_selectors
from msgfilter import Filter, SubscriptionIndex
from msgfilter.index import clusters

DIALECTS = ("jms", "activemq", "rocketmq")


def _index(texts: list[str], dialect: str) -> tuple[SubscriptionIndex, dict[Hashable, Filter]]:
    idx = SubscriptionIndex(dialect=dialect)
    subs: dict[Hashable, Filter] = {}
    for i, text in enumerate(texts):
        try:
            subs[i] = msgfilter.compile(text, dialect)
        except msgfilter.FilterError:
            continue
        idx.add_filter(i, subs[i])
    return idx, subs


def _naive(subs: dict[Hashable, Filter], message: Any) -> frozenset[Hashable]:
    return frozenset(k for k, f in subs.items() if f.matches(message))


@pytest.mark.parametrize("dialect", DIALECTS)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_generated_groups_answer_as_the_naive_loop(dialect: str, data: st.DataObject) -> None:
    texts = data.draw(st.lists(sql_selectors(dialect), min_size=1, max_size=12))
    msgs = data.draw(st.lists(sql_messages(dialect), min_size=1, max_size=6))
    for generate_after in (10**9, 1):  # the generic loop, then generated at first use
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(clusters, "GENERATE_AFTER", generate_after)
            idx, subs = _index(texts, dialect)
            for message in msgs:
                assert idx.match(message) == _naive(subs, message), (message, texts)


def test_a_group_is_generated_after_it_served_messages_and_again_after_a_change() -> None:
    idx = SubscriptionIndex()
    idx.add("a", "tenant = 't1' AND type = 'x'")
    idx.add("b", "tenant = 't2' AND price > 5")
    message = {"tenant": "t1", "type": "x", "price": 7}
    lookup = next(iter(idx._stores.values())).lookup  # the look-up under test
    for _ in range(clusters.GENERATE_AFTER - 1):
        assert idx.match(message) == {"a"}
    assert "tenant" not in lookup.generated
    assert idx.match(message) == {"a"}
    assert "tenant" in lookup.generated
    idx.add("c", "tenant LIKE 't1%'")
    assert "tenant" not in lookup.generated  # a new signature in the group
    for _ in range(clusters.GENERATE_AFTER):
        assert idx.match(message) == {"a", "c"}
    assert "tenant" in lookup.generated
    assert idx.match({"tenant": "t2", "price": 5.5}) == {"b"}
    idx.remove("a")
    assert idx.match(message) == {"c"}
    idx.remove("c")
    assert idx.match(message) == frozenset()
    assert "tenant" not in lookup.generated


def test_identifiers_named_like_the_generated_code_are_constants() -> None:
    names = ["values", "get", "v", "k0", "b", "numbers", "decided", "c0", "x0", "m0"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(clusters, "GENERATE_AFTER", 1)
        idx = SubscriptionIndex()
        for i, name in enumerate(names):
            other = names[(i + 1) % len(names)]
            idx.add(name, f"{name} = 'x' AND {other} LIKE 'ab%' OR "
                          f"{name} = 'y' AND level > {i}")
        for i, name in enumerate(names):
            other = names[(i + 1) % len(names)]
            assert name in idx.match({name: "x", other: "abc"})
            assert name not in idx.match({name: "x", other: "xbc"})
            assert name in idx.match({name: "y", "level": i + 1})
            assert name not in idx.match({name: "y", "level": i})


def test_a_shared_identifier_does_not_gather_every_cluster_in_its_group() -> None:
    # Every signature shares `region`, each beside an attribute of its own: past
    # SPREAD_FROM clusters, new ones go to the group of their own attribute, so a
    # message visits the clusters of the attributes it carries, not all of them.
    idx = SubscriptionIndex()
    subs = {}
    for i in range(4 * clusters.SPREAD_FROM):
        text = (f"region = 'r{i % 2}' AND a{i} IS NOT NULL" if i % 3 else
                f"region = 'r{i % 2}' AND a{i} > {i}")
        subs[i] = msgfilter.compile(text)
        idx.add_filter(i, subs[i])
    lookup = next(iter(idx._stores.values())).lookup  # the look-up under test
    assert len(lookup.groups["region"]) == clusters.SPREAD_FROM
    assert sum(len(group) for group in lookup.groups.values()) == 4 * clusters.SPREAD_FROM
    for message in ({"region": "r0", "a20": 1, "a21": 100, "a40": "x"},
                    {"region": "r1", "a3": 3, "a33": 40, "a63": 64}, {"a1": 1}):
        for _ in range(clusters.GENERATE_AFTER + 1):  # generic, then generated
            assert idx.match(message) == _naive(subs, message)
