"""Topic fan-out: one entry, every subscription of a `SubscriptionIndex`, one match per
message.

A broker dispatching an entry to a topic's subscriptions asks each subscription's filter
in turn; with thousands of filtered subscriptions that is thousands of evaluations per
message. `fan_out` asks a `SubscriptionIndex` (subscription key -> selector) once per
message of the entry and answers, for every subscription, what its `EntryFilter` would:

    >>> from msgfilter import SubscriptionIndex
    >>> from msgfilter.broker import Entry, FilterResult, Position, fan_out
    >>> index = SubscriptionIndex()
    >>> index.add("eu", "region = 'eu'"); index.add("us", "region = 'us'")
    >>> fan = fan_out(Entry.single(Position(1, 0), {"region": "eu"}), index)
    >>> fan.result("eu"), fan.result("us")
    (<FilterResult.ACCEPT: 'accept'>, <FilterResult.REJECT: 'reject'>)

For a batched entry each subscription gets an `EntryDecision` (per-message results;
the entry's result is ACCEPT when any message is accepted, as `combine` says), or, in
`BatchMode.ANY` (pulsar-jms), the whole batch when any message matches. Marker entries
are ACCEPTed by every subscription, as the built-in selector filters do (and an empty
batch, as `combine` says).

The work per entry follows the messages and the deliveries: `accepted` and
`deliveries()` never look at the subscriptions that reject the entry; only `results()`
and `decisions()`, which answer for every subscription, take time in their number.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from ..index import SubscriptionIndex
from .batches import BatchMode
from .context import Entry
from .results import EntryDecision, FilterResult

__all__ = ["Fanout", "fan_out"]


@dataclass(frozen=True, slots=True)
class Fanout:
    """Every subscription's verdict on one entry.

    `matches[i]` holds the keys whose selector is TRUE for message i of the entry (one
    match of the index per message); `accepted` the keys that receive the entry (at least
    one message, or all of them for a marker entry). `index` answers for the others.
    """

    entry: Entry
    index: SubscriptionIndex
    matches: tuple[frozenset[Hashable], ...]
    accepted: frozenset[Hashable]
    mode: BatchMode = BatchMode.EXACT
    #: A marker entry (or an empty batch): every subscription ACCEPTs it whole.
    marker: bool = False

    def result(self, key: Hashable) -> FilterResult:
        """The entry-level result for subscription `key` (KeyError if it is not in the
        index and did not receive the entry)."""
        if key in self.accepted or self.marker:
            return FilterResult.ACCEPT
        if key not in self.index:
            raise KeyError(key)
        return FilterResult.REJECT

    def decision(self, key: Hashable) -> EntryDecision:
        """Subscription `key`'s verdict on each message of the entry and on the entry."""
        size = self.entry.size
        result = self.result(key)
        if self.marker or result is FilterResult.REJECT or self.mode is BatchMode.ANY:
            return EntryDecision.uniform(result, size)
        return EntryDecision.per_message(
            FilterResult.ACCEPT if key in keys else FilterResult.REJECT for keys in self.matches
        )

    def deliveries(self) -> Iterator[tuple[Hashable, EntryDecision]]:
        """(key, decision) for each subscription that receives the entry, in no set order."""
        for key in self.accepted:
            yield key, self.decision(key)

    def results(self) -> dict[Hashable, FilterResult]:
        """The entry-level result of every subscription in the index."""
        keys = [*self.index.keys(), *self.accepted]
        return {key: self._result_of(key) for key in keys}

    def decisions(self) -> dict[Hashable, EntryDecision]:
        """Every subscription's per-message decision."""
        keys = [*self.index.keys(), *self.accepted]
        return {key: self._decision_of(key) for key in keys}

    def _result_of(self, key: Hashable) -> FilterResult:
        if key in self.accepted or self.marker:
            return FilterResult.ACCEPT
        return FilterResult.REJECT

    def _decision_of(self, key: Hashable) -> EntryDecision:
        if key in self.accepted or self.marker:
            return self.decision(key)
        return EntryDecision.uniform(FilterResult.REJECT, self.entry.size)


def fan_out(
    entry: Entry, index: SubscriptionIndex, mode: BatchMode = BatchMode.EXACT
) -> Fanout:
    """Every subscription's verdict on `entry`, matching each of its messages once.

    `index` maps subscription keys to selectors (`SubscriptionIndex.add`). A message is
    accepted by the subscriptions whose selector is TRUE for it (FALSE and UNKNOWN reject,
    as `Filter.matches`). `mode` decides a batch as `msgfilter.broker.batches.filter_batch` does:
    EXACT keeps the matching messages, ANY the whole batch when one matches.
    """
    if entry.metadata.marker or not entry.size:
        # Let through whole, as the built-in filters do (an empty batch: `combine`).
        return Fanout(entry, index, (), frozenset(index.keys()), mode, marker=True)
    matches = tuple(index.match_many(entry.messages))
    accepted: frozenset[Hashable] = frozenset().union(*matches) if matches else frozenset()
    return Fanout(entry, index, matches, accepted, mode)
