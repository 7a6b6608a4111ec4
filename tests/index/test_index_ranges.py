"""The index's vectorized paths (many clauses on numeric bounds: the range partitions,
large buckets of hashed keys with bounds) equal the naive loop, before and after
subscriptions come and go, on values at the edges of the numeric rules."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import msgfilter
from msgfilter import Filter, SubscriptionIndex
from msgfilter.index.range_table import (
    FEW_WORDS,
    VECTOR_FROM,
    RangeMember,
    RangeTable,
    loop_named,
)

NAMES = ("a", "b", "c", "d")
LITERALS = ("5", "5.5", "-0.0", "0.0", "0", "9007199254740993", "9007199254740992.0",
            "1e308", "-1e308", "2147483648", "-5", "3", "10", "1e400")
VALUES: tuple[Any, ...] = (
    None, 5, 5.0, 5.5, -0.0, 0.0, 0, 3, 10, 4.999999, 5.000001, 2**53, 2**53 + 1,
    float(2**53), float("nan"), float("inf"), 1e308, -1e308, 2**70, -(2**70), True, "5",
    2147483648, -5, 7,
)


def _selector(rnd: random.Random, keyed: bool) -> str:
    parts = []
    # Keyed clauses bound the same names, so that their buckets grow past VECTOR_FROM.
    names = ("a", "b") if keyed else rnd.sample(NAMES, rnd.randrange(1, 4))
    for name in names:
        kind = rnd.randrange(4)
        lit = rnd.choice(LITERALS)
        if kind == 0:
            parts.append(f"{name} {rnd.choice(('<', '<=', '>', '>='))} {lit}")
        elif kind == 1:
            parts.append(f"{lit} {rnd.choice(('<', '<=', '>', '>='))} {name}")
        elif kind == 2:
            parts.append(f"{name} BETWEEN {lit} AND {rnd.choice(LITERALS)}")
        else:
            parts.append(f"{name} > {lit} AND {name} < {rnd.choice(LITERALS)}")
        if keyed and kind == 3 and rnd.random() < 0.5:
            parts[-1] = f"{name} >= {lit}"  # a low with no high: other sort orders
    if keyed:
        parts.append(f"k = '{rnd.choice('xy')}'")
    if rnd.random() < 0.2:
        parts.append("NOT (a = 7)")
    return " AND ".join(parts)


def _message(rnd: random.Random) -> dict[str, Any]:
    out = {name: rnd.choice(VALUES) for name in NAMES if rnd.random() < 0.8}
    if rnd.random() < 0.9:
        out["k"] = rnd.choice("xyz")
    return out


def _agree(idx: SubscriptionIndex, subs: dict[int, Filter], msgs: list[Any]) -> None:
    for m in msgs:
        want = frozenset(k for k, f in subs.items() if f.matches(m))
        assert idx.match(m) == want, (m, sorted(want ^ idx.match(m)))


@pytest.mark.parametrize("keyed", [False, True])
def test_vectorized_bounds_equal_the_naive_loop(keyed: bool) -> None:
    rnd = random.Random(7 + keyed)
    idx = SubscriptionIndex()
    subs: dict[int, Filter] = {}
    count = 6 * VECTOR_FROM
    for i in range(count):
        f = msgfilter.compile(_selector(rnd, keyed))
        idx.add_filter(i, f)
        subs[i] = f
    msgs = [_message(rnd) for _ in range(150)]
    _agree(idx, subs, msgs)
    # Changes after the arrays were built: tested beside them, then rebuilt.
    for step in range(3):
        for i in rnd.sample(sorted(subs), count // 10):
            idx.remove(i)
            del subs[i]
        for i in range(count + step * 100, count + step * 100 + count // 12):
            f = msgfilter.compile(_selector(rnd, keyed))
            idx.add_filter(i, f)
            subs[i] = f
        _agree(idx, subs, msgs[:50])


def test_a_message_with_minus_infinity_takes_the_careful_path() -> None:
    idx = SubscriptionIndex()
    subs = {}
    for i in range(2 * VECTOR_FROM):
        text = f"a < {i} AND b > -{i}" if i % 2 else f"a < {i}"
        subs[i] = msgfilter.compile(text)
        idx.add_filter(i, subs[i])
    for m in ({"a": float("-inf"), "b": 0}, {"a": -1e308}, {"a": 1, "b": float("-inf")}):
        assert idx.match(m) == frozenset(k for k, f in subs.items() if f.matches(m))


@pytest.mark.parametrize(("spread", "words"), [
    (8, FEW_WORDS + 8), (5000, FEW_WORDS + 8), (8, FEW_WORDS // 2), (5000, FEW_WORDS // 2)])
def test_range_table_equals_its_naive_loop(spread: int, words: int) -> None:
    # Few distinct thresholds (cells exact) and many (cells shared, the exact second
    # pass decides); a narrow table (candidates read and tested in Python) and a wide
    # one (numpy); absent values, infinities, and changes after the bitmaps were made.
    rnd = random.Random(spread)
    table = RangeTable()
    members: dict[int, RangeMember] = {}

    def bound() -> tuple[float, float]:
        low = rnd.choice([-math.inf, float(rnd.randrange(spread))])
        high = rnd.choice([math.inf, low + rnd.randrange(spread)])
        return low, high

    def member(i: int) -> RangeMember:
        names = rnd.sample(NAMES, rnd.randrange(1, 4))
        return (i, rnd.random() < 0.5, {name: bound() for name in names})

    def check() -> None:
        for _ in range(60):
            numbers = {name: rnd.choice(
                [None, -math.inf, math.inf, float(rnd.randrange(-2, spread + 2))])
                for name in NAMES}
            want: tuple[set[int], set[int]] = (set(), set())
            loop_named(members.values(), numbers, *want)
            got: tuple[set[int], set[int]] = (set(), set())
            table.hits(numbers, *got)
            assert got == want, numbers

    for i in range(64 * words):
        members[i] = member(i)
        table.add(i, members[i])
    check()
    for step in range(3):
        for i in rnd.sample(sorted(members), 4 * VECTOR_FROM):
            table.remove(i, members.pop(i))
        for i in range(10**6 + step * 1000, 10**6 + step * 1000 + 3 * VECTOR_FROM):
            members[i] = member(i)
            table.add(i, members[i])
        check()


ROCKETMQ_LITERALS = ("5", "-5", "0", "2147483647", "2147483648", "-2147483648", "5.5",
                     "-0.5", "0.0", "1e3", "9007199254740993", "9223372036854775807")
ROCKETMQ_VALUES: tuple[Any, ...] = (
    None, "5", "6", "4", "5.0", "5.5", " 5", "5 ", "+5", "-5", "-6", "0", "-0", "-0.0",
    "0.0", "2147483647", "2147483648", "-2147483648", "9007199254740993", "1e3",
    "1000", "999.99", "NaN", "Infinity", "-Infinity", "0x10", "abc", "", "5d", "5f",
    "9223372036854775807", "9223372036854775808", 5, 5.5, True, b"5",
)


def test_rocketmq_bounds_convert_as_the_broker_does() -> None:
    # RocketMQ converts the property's string to the literal's Java type (Integer,
    # Long, Double.valueOf) for each comparison; a failed conversion makes the broker
    # throw. Exact bounds in the index must agree, both in small tables and in the
    # bitmaps, alone and beside other conjuncts and in ORs.
    rnd = random.Random(11)
    idx = SubscriptionIndex()
    subs: dict[int, Filter] = {}
    for i in range(8 * VECTOR_FROM):
        parts = []
        for name in rnd.sample(("a", "b"), rnd.randrange(1, 3)):
            lit = rnd.choice(ROCKETMQ_LITERALS)
            if rnd.random() < 0.3:
                low, high = sorted((lit, rnd.choice(ROCKETMQ_LITERALS)), key=float)
                parts.append(f"{name} BETWEEN {low} AND {high}")
            else:
                parts.append(f"{name} {rnd.choice(('<', '<=', '>', '>='))} {lit}")
        if rnd.random() < 0.2:
            parts.append(f"k = '{rnd.choice('xy')}'")
        text = (" OR " if rnd.random() < 0.15 else " AND ").join(parts)
        subs[i] = msgfilter.compile(text, "rocketmq")
        idx.add_filter(i, subs[i])
    msgs = [{name: rnd.choice(ROCKETMQ_VALUES) for name in ("a", "b", "k")}
            for _ in range(400)]
    for m in msgs:
        m["k"] = rnd.choice("xy")
    _agree(idx, subs, msgs)


def test_rocketmq_startswith_is_decided_as_the_broker_does() -> None:
    texts = ["x STARTSWITH '5'", "x STARTSWITH 'tr' AND y > 3", "x STARTSWITH ''",
             "x STARTSWITH 'ab' OR y < 0", "NOT x STARTSWITH 'a'", "x STARTSWITH '-'"]
    values: tuple[Any, ...] = (None, "5a", 5, 5.5, -1, True, b"5", "ab", "a", "", "tru",
                               "-0", " 5")
    idx = SubscriptionIndex()
    subs = {i: msgfilter.compile(t, "rocketmq") for i, t in enumerate(texts)}
    for i, f in subs.items():
        idx.add_filter(i, f)
    _agree(idx, subs, [{"x": x, "y": y} for x in values for y in ("4", "-1", 4, None)])
    assert "rocketmq: prefix x (2 filters, 2 decided by the index)" in idx.explain()


@pytest.mark.parametrize("dialect", ["jms", "rocketmq"])
def test_unequal_and_negated_comparisons_are_decided_as_the_evaluator_does(
        dialect: str) -> None:
    # `x <> 'a'`: filed as present, struck out when the message's string is 'a'; NOT of
    # a comparison (alone or pushed down by De Morgan): FALSE for a present value of
    # another type, so its NOT is TRUE. Two on one name, beside equalities, ranges, with
    # the literal first, in ORs (where the evaluator decides), through removals; values
    # of every type.
    rnd = random.Random(5)
    words = ("a", "b", "5", "")
    values: tuple[Any, ...] = (None, "a", "b", "c", "5", "", 5, 5.0, True, b"a", "A", 3, 2.5,
                               4, -3, float("nan"), float("inf"), float("-inf"), 2**70)

    def selector() -> str:
        parts = []
        for _ in range(rnd.randrange(1, 4)):
            name, word = rnd.choice("xyz"), rnd.choice(words)
            other = rnd.choice("xyz")
            parts.append(rnd.choice((
                f"{name} <> '{word}'", f"'{word}' <> {name}", f"{name} = '{word}'",
                f"{name} > 3", f"NOT ({name} = '{word}')", f"{name} <> '{word}'",
                f"NOT ({name} > 3)", f"NOT ({name} <= 2.5)", f"NOT (3 < {name})",
                f"NOT ({name} = '{word}' OR {other} < 1)", f"NOT ({name} >= -3 AND {other} <> 'a')",
                f"NOT ({name} = 5)")))
        return (" OR " if rnd.random() < 0.25 else " AND ").join(parts)

    idx = SubscriptionIndex()
    subs: dict[int, Filter] = {}
    for i in range(300):
        subs[i] = msgfilter.compile(selector(), dialect)
        idx.add_filter(i, subs[i])
    msgs = [{name: rnd.choice(values) for name in "xyz"} for _ in range(300)]
    _agree(idx, subs, msgs)
    for i in rnd.sample(sorted(subs), 150):
        idx.remove(i)
        del subs[i]
    for i in range(300, 400):
        subs[i] = msgfilter.compile(selector(), dialect)
        idx.add_filter(i, subs[i])
    _agree(idx, subs, msgs)
