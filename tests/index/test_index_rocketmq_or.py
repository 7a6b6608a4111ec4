"""RocketMQ ORs decided by the index: a hit on an exact branch is decided unless a
comparison the broker meets on its way there may throw for the message (`throws`), as
RocketMQ's own filter answers (tests/data/rocketmq/logic-seed5.jsonl, apache/rocketmq
8fc57f1468d182eea11c01e089c0250d647dc5f3) and the naive loop over compiled filters does."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from msgfilter import Filter, SubscriptionIndex
from msgfilter.index.bounds import AS_DOUBLE, AS_INT, AS_LONG, PRESENCE
from msgfilter.index.clauses import plan_clauses
from msgfilter.index.throws import guard
from msgfilter.testing import property_settings

from conformance import rocketmq_sample

pytestmark = pytest.mark.filterwarnings("ignore")


def _guard(text: str) -> frozenset[str] | None:
    tree = msgfilter.compile(text, "rocketmq").tree  # type: ignore[attr-defined]
    return guard(tree)


@pytest.mark.parametrize(("text", "names"), [
    # The last branch is met only when the others were not TRUE: its own conversions
    # do not guard the others' hits.
    ("score = 5 OR customer = 7", {AS_INT + "score"}),
    ("a = 1 OR b = 2.5 OR c = 2147483648", {AS_INT + "a", AS_DOUBLE + "b"}),
    ("a = -2147483648 OR b = 'x'", {AS_LONG + "a"}),
    ("5 < a OR b = 'x'", {AS_INT + "a"}),
    ("a BETWEEN 1 AND 2.5 OR b = 'x'", {AS_INT + "a", AS_DOUBLE + "a"}),
    # Two strings ordered are read as doubles; a Boolean first is cast to String: any
    # present value may throw.
    ("(c = 'y' AND b > c) OR a = 'x'", {PRESENCE + "b", PRESENCE + "c"}),
    ("TRUE = a OR b = 'x'", {PRESENCE + "a"}),
    # Strings, IN, STARTSWITH, IS NULL and Boolean literals second convert nothing.
    ("a = 'x' OR b IN ('1', '2') OR c STARTSWITH 'p' OR d IS NULL OR e = 5",
     set()),
    ("a = TRUE OR b = 5", set()),
    ("a OR TRUE OR NULL OR b = 5", set()),  # a bare property is FALSE for a string
    # AND of ORs: each OR's earlier branches.
    ("(a = 1 OR b = 'x') AND (c = 'y' OR d = 2)", {AS_INT + "a"}),
    ("NOT (a = 1) OR b = 'x'", {AS_INT + "a"}),
])
def test_guard_names_what_may_throw_before_a_hit(text: str, names: set[str]) -> None:
    assert _guard(text) == frozenset(names)


def test_a_comparison_of_literals_guards_nothing_it_may_always_throw() -> None:
    text = "(b = 'y' AND 5 = 'a') OR c = 'x'"
    assert _guard(text) is None
    plan = plan_clauses(msgfilter.compile(text, "rocketmq"))
    assert not any(c.exact for c in plan.clauses) and not plan.guards
    assert "may always throw" in plan.reason


def test_plan_keeps_exact_branches_with_their_guards() -> None:
    plan = plan_clauses(msgfilter.compile("score = 5 OR customer = 7", "rocketmq"))
    assert all(c.exact for c in plan.clauses)
    assert plan.guards == {AS_INT + "score"}
    plain = plan_clauses(msgfilter.compile("a = 'x' OR b = 5", "rocketmq"))
    assert all(c.exact for c in plain.clauses) and not plain.guards


# -- the index against the broker's answers -------------------------------------------------


def _index(texts: list[str]) -> tuple[SubscriptionIndex, dict[Hashable, Filter]]:
    idx = SubscriptionIndex("rocketmq")
    subs: dict[Hashable, Filter] = {}
    for i, text in enumerate(texts):
        try:
            subs[i] = msgfilter.compile(text, "rocketmq")
        except msgfilter.FilterError:
            continue
        idx.add_filter(i, subs[i])
    return idx, subs


def _table(msgs: list[dict[str, str]]) -> pa.Table:
    names = sorted({k for m in msgs for k in m})
    # A column no selector reads gives the table its rows when the messages are empty.
    columns = {"unread": pa.array(range(len(msgs)), pa.int64())}
    columns.update({k: pa.array([m.get(k) for m in msgs], pa.string()) for k in names})
    return pa.table(columns)


def _table_matches(idx: SubscriptionIndex, msgs: list[dict[str, str]]) -> list[frozenset[Any]]:
    found: list[set[Any]] = [set() for _ in msgs]
    for row in idx.match_table(_table(msgs)).to_pylist():
        found[row["row"]].add(row["key"])
    return [frozenset(f) for f in found]


@pytest.mark.parametrize(("message", "expected"), [
    ({"c": "y", "b": "1", "a": "x"}, {2}),      # b > c throws before a = 'x' is met
    ({"a": "x", "b": "zz"}, {1, 2}),            # c absent: b > c is NULL
    ({"score": "5", "customer": "abc"}, {0}),   # customer is never converted
    ({"score": "5.0", "customer": "7"}, set()),  # Integer.valueOf("5.0") throws first
    ({"score": "abc"}, set()),
    ({"customer": "7"}, {0}),                   # score absent: NULL, no throw
    ({"x": "+4", "y": "q"}, {3}),               # converts (and is above 3)
    ({"x": "NaN", "y": "q"}, set()),            # Integer.valueOf("NaN") throws
    ({"x": "2147483648", "y": "q"}, set()),     # beyond Integer: throws
])
def test_index_answers_as_the_broker(message: dict[str, str], expected: set[int]) -> None:
    texts = ["score = 5 OR customer = 7", "(c = 'y' AND b > c) OR a = 'x'",
             "a = 'x' OR b = 3", "x > 3 OR y = 'q'"]
    idx, subs = _index(texts)
    assert idx.match(message) == frozenset(expected)
    assert frozenset(k for k, f in subs.items() if f.matches(message)) == frozenset(expected)
    assert _table_matches(idx, [message]) == [frozenset(expected)]


def test_index_equals_rocketmq_on_generated_logic_cases() -> None:
    cases = rocketmq_sample("logic-seed5.jsonl")
    texts = list(dict.fromkeys(c["selector"] for c in cases))
    idx, subs = _index(texts)
    number = {text: i for i, text in enumerate(texts)}
    delivered = 0
    for case in cases:
        if case["answer"] == "parse-error":
            continue
        hit = number[case["selector"]] in idx.match(case["properties"])
        assert hit is (case["answer"] == "true"), case
        delivered += hit
    assert delivered > 500
    # And every filter of the index on a sample of the messages, as the naive loop.
    msgs = [c["properties"] for c in cases[::25]]
    naive = [frozenset(k for k, f in subs.items() if f.matches(m)) for m in msgs]
    assert idx.match_many(msgs) == naive
    assert _table_matches(idx, msgs) == naive


# -- generated ORs over the conversions' edges --------------------------------------------

_NAMES = ["a", "b", "c"]
_NUMBERS = ["0", "5", "-5", "2147483647", "2147483648", "-2147483648", "9223372036854775807",
            "5.0", "2.5", "-0.5", "1e3"]
_VALUES = ["5", "-5", "0", "abc", "", "5.0", "2.5", "-0.5", "1000", "2147483647",
           "2147483648", "-2147483648", "-2147483649", "9223372036854775807",
           "9223372036854775808", "NaN", "-Infinity", " 5", "0x10", "5d", "x", "true"]


@st.composite
def _leaf(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(_NAMES))
    kind = draw(st.sampled_from(["eq", "eq", "order", "between", "string", "in", "null",
                                 "first"]))
    if kind == "eq":
        return f"{name} {draw(st.sampled_from(['=', '<>']))} {draw(st.sampled_from(_NUMBERS))}"
    if kind == "order":
        op = draw(st.sampled_from(["<", "<=", ">", ">="]))
        return f"{name} {op} {draw(st.sampled_from(_NUMBERS))}"
    if kind == "between":
        low, high = sorted(draw(st.lists(st.sampled_from(_NUMBERS), min_size=2, max_size=2)),
                           key=float)
        return f"{name} BETWEEN {low} AND {high}"
    if kind == "string":
        return f"{name} = '{draw(st.sampled_from(['x', '5', 'abc']))}'"
    if kind == "in":
        return f"{name} IN ('x', '5')"
    if kind == "null":
        return f"{name} IS NULL"
    return f"{draw(st.sampled_from(_NUMBERS))} = {name}"


@st.composite
def _or(draw: st.DrawFn) -> str:
    branches = []
    for _ in range(draw(st.integers(2, 4))):
        conjuncts = draw(st.lists(_leaf(), min_size=1, max_size=2))
        if draw(st.integers(0, 9)) == 0:
            conjuncts[0] = f"NOT ({conjuncts[0]})"
        branches.append(" AND ".join(conjuncts))
    return " OR ".join(f"({b})" if " AND " in b else b for b in branches)


@st.composite
def _selector(draw: st.DrawFn) -> str:
    # Mostly one OR; else an AND of ORs, which the planner distributes into branches.
    if draw(st.integers(0, 3)):
        return draw(_or())
    return f"({draw(_or())}) AND ({draw(_or())})"


_MESSAGE = st.dictionaries(st.sampled_from(_NAMES), st.sampled_from(_VALUES), max_size=3)


@property_settings()
@given(st.lists(_selector(), min_size=1, max_size=8), st.lists(_MESSAGE, min_size=1, max_size=6))
def test_generated_ors_over_conversion_edges(texts: list[str], msgs: list[dict[str, str]]) -> None:
    idx, subs = _index(texts)
    naive = [frozenset(k for k, f in subs.items() if f.matches(m)) for m in msgs]
    assert [idx.match(m) for m in msgs] == naive, idx.explain()
    assert _table_matches(idx, msgs) == naive


def test_explain_says_when_a_decided_or_is_verified() -> None:
    idx, _ = _index(["score = 5 OR customer = 7", "a = 'x' OR b = 5"])
    text = idx.explain()
    assert "eq customer | eq score (1 filters, 1 decided by the index (1 unless a value " \
           "an earlier OR branch reads as a number is not one))" in text
    assert "eq a | eq b (1 filters, 1 decided by the index)" in text


def test_filters_of_one_shape_share_a_guard_by_their_integers_range() -> None:
    # The first filter of the shape records its recipe; the others are planned from it,
    # and whether an integer literal fits an Integer still picks the conversion named.
    for _ in range(3):
        for text, name in [("a = 5 OR b = 'x'", AS_INT + "a"),
                           ("a = 5000000000 OR b = 'x'", AS_LONG + "a"),
                           ("a = -2147483648 OR b = 'y'", AS_LONG + "a"),
                           ("a = -2147483647 OR b = 'y'", AS_INT + "a")]:
            assert plan_clauses(msgfilter.compile(text, "rocketmq")).guards == {name}


@pytest.mark.parametrize(("text", "message"), [
    # RocketMQ 8fc57f14 throws on each before reaching the TRUE branch (ClassCastException,
    # then RuntimeException twice): not delivered. The index once decided them TRUE, as
    # no number literal was keyed in the earlier branch.
    ("TRUE = a OR c = 'x'", {"a": "true", "c": "x"}),
    ("(c = 'y' AND b > c) OR a = 'x'", {"c": "y", "b": "1", "a": "x"}),
    ("(b = 'y' AND 5 = 'a') OR c = 'x'", {"b": "y", "c": "x"}),
])
def test_a_throw_converting_no_number_literal_is_not_skipped(
        text: str, message: dict[str, str]) -> None:
    idx, subs = _index([text])
    assert not subs[0].matches(message)
    assert idx.match(message) == frozenset()
    assert _table_matches(idx, [message]) == [frozenset()]
