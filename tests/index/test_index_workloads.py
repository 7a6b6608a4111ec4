"""SubscriptionIndex on the workloads of tests/index_workloads.py at small sizes: `match`
equals the naive loop, and `match_many` and `match_table` agree with it. No timings (the
figures are benchmarks/bench_index.py's)."""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache

import pytest

from index_workloads import WORKLOADS, to_table
from msgfilter import SubscriptionIndex

#: (workload, subscriptions): small enough to run in a few seconds in all.
SIZES = [("broker", 800), ("device", 600), ("rocketmq", 600), ("mixed", 800),
         ("amqp", 600), ("hot", 600)]
MESSAGES = 200


@cache
def built(workload: str, size: int) -> SubscriptionIndex:
    selectors, _ = WORKLOADS[workload]
    idx = SubscriptionIndex()
    for key, (text, dialect) in enumerate(selectors(size, 3)):
        idx.add(key, text, dialect=dialect)
    return idx


@pytest.mark.parametrize(("workload", "size"), SIZES)
def test_workload_is_deterministic_and_sized(workload: str, size: int) -> None:
    selectors, messages = WORKLOADS[workload]
    assert selectors(size, 3) == selectors(size, 3)
    assert len(selectors(size, 3)) == size
    assert messages(20, size, 4) == messages(20, size, 4)


@pytest.mark.parametrize(("workload", "size"), SIZES)
def test_match_equals_naive_loop(workload: str, size: int) -> None:
    idx = built(workload, size)
    _, messages = WORKLOADS[workload]
    msgs = messages(MESSAGES, size, 4)
    items = idx.items()
    answers = [idx.match(m) for m in msgs]
    for m, got in zip(msgs, answers, strict=True):
        assert got == frozenset(k for k, f in items if f.matches(m)), m
    assert idx.match_many(msgs) == answers
    # The workload is not trivial: messages match something, and not everything.
    total = sum(len(a) for a in answers)
    assert 0 < total < len(msgs) * len(idx) / 10


@pytest.mark.parametrize(("workload", "size"), SIZES)
def test_match_table_agrees(workload: str, size: int) -> None:
    pytest.importorskip("pyarrow")
    import msgfilter.arrow

    idx = built(workload, size)
    _, messages = WORKLOADS[workload]
    table = to_table(messages(MESSAGES, size, 4))
    got = idx.match_table(table)
    pairs = list(zip(got.column("row").to_pylist(), got.column("key").to_pylist(), strict=True))
    order = {k: n for n, k in enumerate(idx.keys())}
    rows = msgfilter.arrow.messages(table)
    want: list[tuple[int, Hashable]] = []
    for row, answer in enumerate(idx.match_many(rows)):
        want.extend((row, k) for k in sorted(answer, key=order.__getitem__))
    assert pairs == want
