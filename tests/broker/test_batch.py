"""msgfilter.batch: per-message decisions inside a batch, and rebuilding the batch."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgfilter
from msgfilter.batch import (
    BatchDecision,
    BatchMode,
    BatchOutcome,
    Placeholder,
    filter_batch,
    rebatch,
)
from msgfilter.broker import EntryDecision, FilterResult, PredicateConsumerFilter

F = msgfilter.compile("n > 2")


def msgs(*values: object) -> list[dict[str, object]]:
    return [{"n": v} for v in values]


def test_outcomes_in_exact_mode() -> None:
    assert filter_batch(msgs(3, 4), F).outcome is BatchOutcome.ACCEPT
    assert filter_batch(msgs(1, None), F).outcome is BatchOutcome.REJECT
    partial = filter_batch(msgs(1, 5, "x", 9), F)
    assert partial.outcome is BatchOutcome.PARTIAL
    assert partial.kept == (1, 3) and partial.dropped == (0, 2)
    assert partial.acknowledge == (0, 2)


def test_any_mode_keeps_the_whole_batch_when_one_matches() -> None:
    decision = filter_batch(msgs(1, 5, 0), F, BatchMode.ANY)
    assert decision.outcome is BatchOutcome.ACCEPT and decision.kept == (0, 1, 2)
    assert filter_batch(msgs(1, 0), F, BatchMode.ANY).outcome is BatchOutcome.REJECT


def test_any_mode_stops_at_the_first_match() -> None:
    seen: list[int] = []

    def test(message: dict[str, int]) -> bool:
        seen.append(message["n"])
        return message["n"] == 2

    filter_batch(msgs(1, 2, 3, 4), test, BatchMode.ANY)
    assert seen == [1, 2]


def test_an_empty_batch_is_accepted_in_both_modes() -> None:
    for mode in BatchMode:
        decision = filter_batch([], F, mode)
        assert decision.outcome is BatchOutcome.ACCEPT and decision.size == 0


def test_predicates_consumer_filters_and_odd_messages() -> None:
    assert filter_batch(msgs(1, 5), lambda m: m["n"] > 2).kept == (1,)
    consumer = PredicateConsumerFilter(lambda m: m["n"] == 1)
    assert filter_batch(msgs(1, 5), consumer).kept == (0,)
    # A Filter never raises on odd message data: such messages are dropped.
    odd: list[Any] = [None, 42, object(), {"n": 3}, {"n": [1]}, {1: 2}]
    assert filter_batch(odd, F).kept == (3,)
    with pytest.raises(TypeError):
        filter_batch(msgs(1), 5)  # type: ignore[arg-type]


def test_decisions_are_marks_and_indexes() -> None:
    decision = BatchDecision.from_indexes(4, [3, 1, 1])
    assert decision.marks == b"\x00\x01\x00\x01" and decision.kept == (1, 3)
    assert decision.dropped == (0, 2) and decision == BatchDecision.from_flags([0, 1, 0, "y"])
    assert repr(decision) == "BatchDecision(size=4, kept=(1, 3), dropped=(0, 2))"
    assert BatchDecision.accept_all(2).kept == (0, 1) and BatchDecision.reject_all(2).kept == ()
    with pytest.raises(ValueError):
        BatchDecision.from_indexes(3, [3])
    with pytest.raises(ValueError):
        BatchDecision(b"\x02")
    with pytest.raises(TypeError):
        BatchDecision([1, 0])  # type: ignore[arg-type]


def test_rebatch_compacted_and_with_placeholders() -> None:
    batch = ["a", "b", "c", "d"]
    compact = rebatch(batch, [3, 1])
    assert compact.messages == ("b", "d") and compact.kept == (1, 3)
    assert compact.dropped == (0, 2) and compact.acknowledge == (0, 2)
    assert compact.delivered() == [(1, "b"), (3, "d")] and not compact.empty
    stable = rebatch(batch, [3, 1], placeholders=True)
    assert stable.messages == (Placeholder(0), "b", Placeholder(2), "d")
    assert stable.delivered() == [(1, "b"), (3, "d")]
    assert rebatch(batch, []).empty


def test_rebatch_from_an_entry_decision_acknowledges_only_rejected() -> None:
    decision = EntryDecision.per_message(
        [FilterResult.ACCEPT, FilterResult.RESCHEDULE, FilterResult.REJECT]
    )
    rebuilt = rebatch(["x", "y", "z"], decision)
    assert rebuilt.messages == ("x",) and rebuilt.dropped == (1, 2)
    assert rebuilt.acknowledge == (2,)


class _Decided:
    """A decision of another kind: anything with `kept` and `acknowledge` index tuples."""

    def __init__(self, kept: tuple[int, ...], acknowledge: tuple[object, ...]) -> None:
        self.kept, self.acknowledge = kept, acknowledge


@pytest.mark.parametrize(
    ("acknowledge", "expected"),
    [((3, 1, 3), (1, 3)), ((1, 3), (1, 3)), ((), ()), ((True,), (1,))],
)
def test_rebatch_takes_acknowledged_indexes_in_any_order(
    acknowledge: tuple[int, ...], expected: tuple[int, ...]
) -> None:
    rebuilt = rebatch(["a", "b", "c", "d"], _Decided((0, 2), acknowledge))
    assert rebuilt.acknowledge == expected and rebuilt.dropped == (1, 3)


@pytest.mark.parametrize(
    "acknowledge", [(0,), (1, 2), (3, 4), (-1,), (1, "3"), ("3", 1), (1.0, 3), (3, 1.0)]
)
def test_rebatch_acknowledges_only_dropped_messages(acknowledge: tuple[object, ...]) -> None:
    with pytest.raises(ValueError):
        rebatch(["a", "b", "c", "d"], _Decided((0, 2), acknowledge))


def test_rebatch_refuses_indexes_outside_the_batch() -> None:
    with pytest.raises(ValueError):
        rebatch(["a"], [1])
    with pytest.raises(ValueError):
        rebatch(["a"], [-1])
    with pytest.raises(ValueError):
        rebatch(["a", "b"], BatchDecision.accept_all(3))


values = st.one_of(st.none(), st.integers(-5, 10), st.floats(allow_nan=True), st.text(max_size=2))


@given(st.lists(values, max_size=40), st.sampled_from(list(BatchMode)))
def test_nothing_is_lost_by_filter_batch(ns: list[object], mode: BatchMode) -> None:
    batch = msgs(*ns)
    decision = filter_batch(batch, F, mode)
    assert sorted(decision.kept + decision.dropped) == list(range(len(batch)))
    assert list(decision.kept) == sorted(decision.kept)
    assert list(decision.dropped) == sorted(decision.dropped)
    flags = [F.matches(m) for m in batch]
    if mode is BatchMode.EXACT:
        assert decision.kept == tuple(i for i, f in enumerate(flags) if f)
    else:
        expected = BatchOutcome.ACCEPT if (any(flags) or not flags) else BatchOutcome.REJECT
        assert decision.outcome is expected


@st.composite
def batch_and_keep(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    batch = draw(st.lists(st.integers(), max_size=40))
    if not batch:
        return batch, []
    keep = draw(st.lists(st.integers(0, len(batch) - 1), max_size=60))  # repeats allowed
    return batch, keep


@given(batch_and_keep(), st.booleans())
def test_nothing_is_lost_by_rebatch(case: tuple[list[int], list[int]], stable: bool) -> None:
    batch, keep = case
    rebuilt = rebatch(batch, keep, placeholders=stable)
    # Kept + dropped is the whole batch, each index once, in order.
    assert sorted(rebuilt.kept + rebuilt.dropped) == list(range(len(batch)))
    assert list(rebuilt.kept) == sorted(set(keep))
    # The kept messages come out in their original order, nothing added or changed.
    assert rebuilt.delivered() == [(i, batch[i]) for i in rebuilt.kept]
    if stable:
        assert len(rebuilt.messages) == len(batch)
        for i, message in enumerate(rebuilt.messages):
            assert message == (Placeholder(i) if i in rebuilt.dropped else batch[i])
    else:
        assert list(rebuilt.messages) == [batch[i] for i in rebuilt.kept]
    assert rebuilt.acknowledge == rebuilt.dropped
