"""msgfilter.broker.fan_out: every subscription's verdict on one entry, from one index
match per message, equal to what each subscription's own filter says."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pytest

import msgfilter
from msgfilter.batch import BatchMode, filter_batch
from msgfilter.broker import (
    Entry,
    EntryDecision,
    EntryMetadata,
    FilterResult,
    Position,
    fan_out,
)

ACCEPT, REJECT = FilterResult.ACCEPT, FilterResult.REJECT

SELECTORS = {
    "eu": "region = 'eu'",
    "us": "region = 'us'",
    "big": "amount > 100",
    "eu-big": "region = 'eu' AND amount > 100",
    "not-eu": "NOT (region = 'eu')",          # UNKNOWN for a message without region
    "all": "",
    7: "amount BETWEEN 1 AND 10",             # any hashable key
}

MESSAGES: list[dict[str, Any]] = [
    {"region": "eu", "amount": 150},
    {"region": "us", "amount": 5},
    {"amount": 500},
    {"region": "eu", "amount": "150"},        # a string is never a number in jms
    {},
]


@pytest.fixture
def index() -> msgfilter.SubscriptionIndex:
    idx = msgfilter.SubscriptionIndex()
    for key, text in SELECTORS.items():
        idx.add(key, text)
    return idx


def expected_decision(key: Hashable, messages: list[dict[str, Any]]) -> EntryDecision:
    f = msgfilter.compile(SELECTORS[key])  # type: ignore[index]
    return EntryDecision.per_message(ACCEPT if f.matches(m) else REJECT for m in messages)


@pytest.mark.parametrize("number", range(len(MESSAGES)))
def test_a_single_message_gets_each_filters_answer(
    index: msgfilter.SubscriptionIndex, number: int
) -> None:
    message = MESSAGES[number]
    fan = fan_out(Entry.single(Position(3, number), message), index)
    for key, text in SELECTORS.items():
        want = ACCEPT if msgfilter.compile(text).matches(message) else REJECT
        assert fan.result(key) is want, key
        assert fan.decision(key) == EntryDecision.uniform(want, 1)
    assert fan.results() == {
        key: ACCEPT if msgfilter.compile(text).matches(message) else REJECT
        for key, text in SELECTORS.items()
    }
    assert fan.accepted == {k for k, r in fan.results().items() if r is ACCEPT}
    assert dict(fan.deliveries()) == {k: fan.decision(k) for k in fan.accepted}


def test_a_batch_gets_per_message_decisions(index: msgfilter.SubscriptionIndex) -> None:
    entry = Entry.batch(Position(1, 2), MESSAGES)
    fan = fan_out(entry, index)
    assert len(fan.matches) == len(MESSAGES)
    for key in SELECTORS:
        want = expected_decision(key, MESSAGES)
        assert fan.decision(key) == want, key
        assert fan.result(key) is want.result
        # The same answer as the batch helper with the subscription's own filter.
        kept = filter_batch(entry.messages, msgfilter.compile(SELECTORS[key])).kept
        assert fan.decision(key).kept == kept
    assert fan.decisions() == {key: expected_decision(key, MESSAGES) for key in SELECTORS}
    # Message 3 is in "eu" but not "eu-big": its amount is a string.
    assert fan.decision("eu").kept == (0, 3)
    assert fan.decision("eu-big").kept == (0,)
    assert fan.decision("not-eu").kept == (1,)
    assert fan.decision("us").result is ACCEPT and fan.decision("us").rejected == (0, 2, 3, 4)


def test_batch_mode_any_keeps_the_whole_batch(index: msgfilter.SubscriptionIndex) -> None:
    entry = Entry.batch(Position(1, 2), MESSAGES)
    fan = fan_out(entry, index, BatchMode.ANY)
    assert fan.decision("eu-big") == EntryDecision.uniform(ACCEPT, len(MESSAGES))
    none = Entry.batch(Position(1, 3), [{"region": "xx"}, {}])
    assert fan_out(none, index, BatchMode.ANY).decision("eu") == EntryDecision.uniform(
        REJECT, 2
    )


def test_markers_and_empty_batches_are_accepted_whole(
    index: msgfilter.SubscriptionIndex,
) -> None:
    marker = Entry(Position(9, 9), ({"region": "nowhere"},), EntryMetadata(marker=True))
    fan = fan_out(marker, index)
    assert fan.results() == dict.fromkeys(SELECTORS, ACCEPT)
    assert fan.decision("us") == EntryDecision.uniform(ACCEPT, 1)
    assert {k for k, _ in fan.deliveries()} == set(SELECTORS)
    empty = fan_out(Entry.batch(Position(9, 10), []), index)
    assert empty.results() == dict.fromkeys(SELECTORS, ACCEPT)


def test_an_unknown_subscription_is_a_key_error(index: msgfilter.SubscriptionIndex) -> None:
    fan = fan_out(Entry.single(Position(1, 1), {"region": "us"}), index)
    with pytest.raises(KeyError):
        fan.result("nope")
    assert fan.result("eu") is REJECT


def test_one_index_match_per_message(index: msgfilter.SubscriptionIndex) -> None:
    calls: list[int] = []

    class Counting(msgfilter.SubscriptionIndex):
        def match_many(self, messages: Any) -> list[frozenset[Hashable]]:
            found = super().match_many(messages)
            calls.append(len(found))
            return found

    counting = Counting()
    for key, text in SELECTORS.items():
        counting.add(key, text)
    fan = fan_out(Entry.batch(Position(1, 2), MESSAGES), counting)
    fan.results()
    fan.decisions()
    list(fan.deliveries())
    assert calls == [len(MESSAGES)]


def test_a_change_to_the_index_shows_in_the_next_entry(
    index: msgfilter.SubscriptionIndex,
) -> None:
    entry = Entry.single(Position(1, 1), {"region": "us", "amount": 5})
    assert fan_out(entry, index).accepted == {"us", "not-eu", "all", 7}
    index.remove("us")
    index.add("cheap", "amount < 10")
    assert fan_out(entry, index).accepted == {"cheap", "not-eu", "all", 7}
