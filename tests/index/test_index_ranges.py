"""The index's vectorized paths (many clauses on numeric bounds: the range partitions,
large buckets of hashed keys with bounds) equal the naive loop, before and after
subscriptions come and go, on values at the edges of the numeric rules."""

from __future__ import annotations

import random
from typing import Any

import pytest

import msgfilter
from msgfilter import Filter, SubscriptionIndex
from msgfilter.index.clause_store import VECTOR_FROM

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
