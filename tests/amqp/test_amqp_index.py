"""The index keys amqp-sql and AMQP property filters (index/keys.py `_AmqpPlanner`,
clauses.py's property plan) and answers what the naive loop over the filters answers:
drawn texts and filters over AMQP messages, including headers that shadow application
property names, and `match_table` over tables with AMQP field columns."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
import msgfilter.arrow as ma
from msgfilter import Filter, FilterError, Message, SubscriptionIndex
from msgfilter.amqp import property_filter
from msgfilter.index.clauses import plan_clauses
from msgfilter.testing import amqp_messages, amqp_selectors, property_settings

from .test_arrow_amqp import COLUMNS, tables

pytestmark = pytest.mark.filterwarnings("ignore")

NAMES = ("a", "b", "s", "TAGS")
VALUES = st.one_of(
    st.none(), st.integers(-2, 2), st.sampled_from(
        [1.0, -0.0, 2.5, float("nan"), float("inf"), 2**63, 2**60 + 1, 10**400]),
    st.sampled_from(["", "a", "ab", "abc", "é", "a\nb"]),
    st.sampled_from([b"", b"a", b"ab", b"\xc3\xa9", b"\xff"]), st.booleans(),
)
LITERALS = ("1", "1.0", "0.0", "2.5", "9223372036854775808", "1.152921504606846976E18",
            "1152921504606846976", "'a'", "'ab'", "''", "'é'",
            "0x61", "0x6162", "0xC3A9", "TRUE", "FALSE", "NULL")
PATTERNS = ("a%", "ab%", "a_%", "a", "", "%b", "é%", "a!%%", "a%b")


def _keyable(name: str) -> st.SearchStrategy[str]:
    """Conditions the index keys, and a few beside them it does not."""
    lit = st.sampled_from(LITERALS)
    return st.one_of(
        st.tuples(st.sampled_from(["=", "<>", "<", ">=", ">", "<="]), lit).map(
            lambda p: f"{name} {p[0]} {p[1]}"),
        st.tuples(lit, st.sampled_from(["=", "<", ">="])).map(
            lambda p: f"{p[0]} {p[1]} {name}"),
        st.tuples(st.sampled_from(["", "NOT "]), st.lists(lit, min_size=1, max_size=3)).map(
            lambda p: f"{name} {p[0]}IN ({', '.join(p[1])})"),
        st.tuples(st.sampled_from(["", "NOT "]), st.sampled_from(PATTERNS)).map(
            lambda p: f"{name} {p[0]}LIKE '{p[1]}' ESCAPE '!'"),
        st.sampled_from([f"{name} IS NOT NULL", f"{name} IS NULL", name, f"NOT {name}",
                         f"h.priority = {name}", f"{name} * 1.0E308 > 1"]),
    )


def _selectors() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(NAMES).flatmap(
        lambda n: _keyable(f"[{n}]" if n == "TAGS" else n))
    leaf = st.one_of(leaf, st.sampled_from(["p.subject = 'a'", "h.priority > 4", "UTC() > 0"]))
    return st.recursive(leaf, lambda inner: st.tuples(
        inner, st.sampled_from(["AND", "OR"]), inner).map(lambda p: f"({' '.join(p)})"),
        max_leaves=4)


def _messages() -> st.SearchStrategy[Any]:
    values = st.fixed_dictionaries({}, optional={k: VALUES for k in NAMES})
    return st.one_of(
        values,
        # Headers (the AMQP fields) under application property names: the view a
        # header wins in is not what amqp-sql reads.
        st.builds(Message, values, values),
        st.builds(lambda p, h, tag: Message(p, h, tags=tag), values, st.fixed_dictionaries(
            {}, optional={"subject": st.sampled_from(["a", "ab"]), "priority": st.integers(
                0, 9)}), st.one_of(st.none(), st.just("a"))),
        amqp_messages(),
    )


_REFERENCES = st.one_of(
    st.none(), st.sampled_from(["a", "ab", "&p:a", "&p:", "&s:b", "&&p", "é", "&p:é"]),
    st.sampled_from([b"a", b"\xc3\xa9", 1, 1.0, 0, True, False, 2.5]),
)


def _property_filters() -> st.SearchStrategy[Filter]:
    apps = st.dictionaries(st.sampled_from(NAMES), _REFERENCES, min_size=1, max_size=3)
    props = st.one_of(st.none(), st.fixed_dictionaries(
        {"subject": st.sampled_from(["a", "&p:a", "&s:b"])}))
    return st.one_of(
        st.builds(lambda p, a: property_filter(p, a), props, apps),
        props.filter(bool).map(lambda p: property_filter(p)),
    )


def naive(subs: dict[Hashable, Filter], message: Any) -> frozenset[Hashable]:
    return frozenset(k for k, f in subs.items() if f.matches(message))


def _index(texts: list[str], extra: list[Filter]) -> tuple[SubscriptionIndex,
                                                              dict[Hashable, Filter]]:
    index = SubscriptionIndex("amqp-sql")
    subs: dict[Hashable, Filter] = {}
    for i, text in enumerate(texts):
        try:
            subs[f"s{i}"] = msgfilter.compile(text, "amqp-sql")
        except FilterError:
            continue
        index.add(f"s{i}", text)
    for j, f in enumerate(extra):
        subs[f"p{j}"] = f
        index.add_filter(f"p{j}", f)
    return index, subs


@property_settings(0.5)
@given(st.lists(_selectors(), min_size=1, max_size=10),
       st.lists(_property_filters(), max_size=4),
       st.lists(_messages(), min_size=1, max_size=6))
def test_index_equals_the_naive_loop(texts: list[str], extra: list[Filter],
                                     messages: list[Any]) -> None:
    index, subs = _index(texts, extra)
    for m in messages:
        assert index.match(m) == naive(subs, m), (m, index.explain())
    assert index.match_many(messages) == [naive(subs, m) for m in messages]


@property_settings(0.3)
@given(st.lists(amqp_selectors(2), min_size=1, max_size=6),
       st.lists(amqp_messages(), min_size=1, max_size=4))
def test_index_equals_the_naive_loop_on_drawn_grammar(texts: list[str],
                                                     messages: list[Any]) -> None:
    index, subs = _index(texts, [])
    for m in messages:
        assert index.match(m) == naive(subs, m), (m, index.explain())


@property_settings(0.1)
@given(st.lists(_selectors(), min_size=1, max_size=8),
       st.lists(_property_filters(), max_size=3), tables)
def test_match_table_equals_each_row_matched(texts: list[str], extra: list[Filter],
                                            columns: dict[str, list[object]]) -> None:
    index, subs = _index([t.replace("[TAGS]", "t") for t in texts], extra)
    table = pa.table({name: pa.array(columns[name], COLUMNS[name][0]) for name in COLUMNS})
    expected = [{"row": row, "key": key} for row, m in enumerate(ma.messages(table))
                for key in naive(subs, m)]
    found = index.match_table(table).to_pylist()
    assert sorted(found, key=repr) == sorted(expected, key=repr)


def test_what_the_index_keys() -> None:
    def plan(text: str) -> Any:
        return plan_clauses(msgfilter.compile(text, "amqp-sql"))

    # Equality and IN are exact: a str meets its UTF-8 binary, 1 meets 1.0, TRUE only TRUE.
    found = plan("a IN ('é', 1, TRUE, 0x41) AND b LIKE 'ab%'")
    (clause,) = found.clauses
    assert clause.exact and [a.keys for a in clause.atoms] == [
        (b"\xc3\xa9", 1, ("b", True), b"A"), (b"ab",)]
    index = SubscriptionIndex("amqp-sql")
    index.add("k", "a = 1")
    index.add("s", "s = 'é'")
    assert index.match({"a": 1.0}) == {"k"} and index.match({"a": True}) == frozenset()
    assert index.match({"s": "é".encode()}) == {"s"}
    # Orderings are wide inclusive ranges: 2**60 + 1 > 2.0**60 though its double is 2.0**60.
    index.add("r", "a > 1.152921504606846976E18")
    assert index.match({"a": 2**60 + 1}) == {"r"} and index.match({"a": 2**60}) == frozenset()
    assert not plan("a > 1.5").clauses[0].exact
    # A header of the same name is not the application property amqp-sql reads.
    assert index.match(Message({"a": 2}, {"a": 1})) == frozenset()
    assert index.match(Message({"a": 1}, {"a": 2})) == {"k"}
    # Fields, TAGS and an OR beside arithmetic (a float overflow fails the message).
    assert plan("p.subject = 'a'").everything
    assert plan("[TAGS] = 'a'").everything
    assert not any(c.exact for c in plan("a = 1 OR b * 2.0 = 1 AND c = 2").clauses)
    # Property filters: values and `&p:` keyed, `&s:` and fields left to the evaluator.
    exact = plan_clauses(property_filter(application_properties={"a": "&p:x", "b": 1}))
    assert exact.clauses[0].exact
    wide = plan_clauses(property_filter({"subject": "x"}, {"a": "&s:x"}))
    assert not wide.clauses[0].exact and wide.reason
    assert plan_clauses(property_filter({"subject": "x"})).everything
