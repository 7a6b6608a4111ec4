"""What an entry filter answers: `FilterResult` for an entry, `EntryDecision` per message."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class FilterResult(enum.Enum):
    """An entry filter's verdict on one entry (Pulsar's ``EntryFilter.FilterResult``).

    A filter may also answer None, which counts as ACCEPT.
    """

    #: Deliver the entry to the consumer.
    ACCEPT = "accept"
    #: Do not deliver it: the broker acknowledges it on the subscription (so it is never
    #: delivered to any consumer of that subscription) and counts it as filtered.
    REJECT = "reject"
    #: Do not deliver it now and do not acknowledge it: the broker redelivers it after a
    #: delay of its choosing (Pulsar: 1000 ms), possibly to another consumer.
    RESCHEDULE = "reschedule"


def combine(results: Iterable[FilterResult]) -> FilterResult:
    """The entry-level result of per-message results.

    ACCEPT when any message is accepted (the entry is delivered, perhaps in part) or when
    there is no message; otherwise RESCHEDULE when any message is rescheduled (the entry
    must come back), otherwise REJECT.
    """
    ordered = results if isinstance(results, tuple) else tuple(results)
    # `in` on a tuple compares by identity first, in C: a batch of a thousand REJECTs
    # costs a few microseconds, not a Python loop.
    if not ordered or FilterResult.ACCEPT in ordered:
        return FilterResult.ACCEPT
    return FilterResult.RESCHEDULE if FilterResult.RESCHEDULE in ordered else FilterResult.REJECT


@dataclass(frozen=True, slots=True)
class EntryDecision:
    """A filter's verdict on each message of an entry, and on the entry as a whole.

    `message_results[i]` is the result for message i of the entry (a non-batched entry
    has one). `result` is the entry-level answer: what `EntryFilter.filter_entry` returns
    and what Pulsar's dispatcher acts on. When the messages do not all share one result
    (only in `BatchMode.EXACT`), the dispatcher delivers the `kept` messages (see
    `msgfilter.batch.rebatch`), acknowledges the `acknowledge` ones individually, and
    redelivers the entry later for the `rescheduled` ones.
    """

    result: FilterResult
    message_results: tuple[FilterResult, ...]

    @classmethod
    def uniform(cls, result: FilterResult | None, size: int) -> EntryDecision:
        """The same `result` (None = ACCEPT) for the entry and all its `size` messages."""
        chosen = FilterResult.ACCEPT if result is None else result
        return cls(chosen, (chosen,) * size)

    @classmethod
    def per_message(cls, results: Iterable[FilterResult]) -> EntryDecision:
        """A decision from per-message results; the entry result follows `combine`."""
        ordered = tuple(results)
        return cls(combine(ordered), ordered)

    @property
    def size(self) -> int:
        """The number of messages in the entry."""
        return len(self.message_results)

    @property
    def uniform_result(self) -> bool:
        """True when every message has the entry's result (the entry is handled whole)."""
        return all(r is self.result for r in self.message_results)

    def _indexes(self, wanted: FilterResult) -> tuple[int, ...]:
        return tuple(i for i, r in enumerate(self.message_results) if r is wanted)

    @property
    def kept(self) -> tuple[int, ...]:
        """Indexes of the messages to deliver (ACCEPT)."""
        return self._indexes(FilterResult.ACCEPT)

    @property
    def rejected(self) -> tuple[int, ...]:
        """Indexes of the REJECTed messages."""
        return self._indexes(FilterResult.REJECT)

    @property
    def rescheduled(self) -> tuple[int, ...]:
        """Indexes of the RESCHEDULEd messages."""
        return self._indexes(FilterResult.RESCHEDULE)

    @property
    def dropped(self) -> tuple[int, ...]:
        """Indexes of the messages not delivered now (REJECT or RESCHEDULE)."""
        return tuple(i for i, r in enumerate(self.message_results) if r is not FilterResult.ACCEPT)

    @property
    def acknowledge(self) -> tuple[int, ...]:
        """Indexes the broker acknowledges individually: the REJECTed messages."""
        return self.rejected
