"""What an entry filter answers: `FilterResult` for an entry, `EntryDecision` per message."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter

from ..lazyslots import LazySlot


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
    `msgfilter.broker.batches.rebatch`), acknowledges the `acknowledge` ones individually, and
    redelivers the entry later for the `rescheduled` ones.
    """

    result: FilterResult
    message_results: tuple[FilterResult, ...]
    #: Each message's result as one byte, its index in `RESULTS` (3 for anything else):
    #: the index tuples are made from these in C (a Python loop over a thousand results
    #: cost about as much as the filter that chose them). Made when first read.
    _marks: bytes = field(init=False, repr=False, compare=False)

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

    def _indexes(self, table: bytes) -> tuple[int, ...]:
        marks = self._marks
        return tuple(compress(range(len(marks)), marks.translate(table)))

    @property
    def kept(self) -> tuple[int, ...]:
        """Indexes of the messages to deliver (ACCEPT)."""
        return self._indexes(_ONLY[0])

    @property
    def rejected(self) -> tuple[int, ...]:
        """Indexes of the REJECTed messages."""
        return self._indexes(_ONLY[1])

    @property
    def rescheduled(self) -> tuple[int, ...]:
        """Indexes of the RESCHEDULEd messages."""
        return self._indexes(_ONLY[2])

    @property
    def dropped(self) -> tuple[int, ...]:
        """Indexes of the messages not delivered now (REJECT or RESCHEDULE)."""
        return self._indexes(_NOT_ACCEPTED)

    @property
    def acknowledge(self) -> tuple[int, ...]:
        """Indexes the broker acknowledges individually: the REJECTed messages."""
        return self.rejected


#: The results in the order of `EntryDecision`'s marks.
RESULTS = (FilterResult.ACCEPT, FilterResult.REJECT, FilterResult.RESCHEDULE)
# translate() tables: mark -> 1 where it is the wanted one.
_ONLY = tuple(bytes(int(b == k) for b in range(256)) for k in range(3))
_NOT_ACCEPTED = bytes(int(b != 0) for b in range(256))


def _marks_of(decision: EntryDecision) -> bytes:
    accept, reject, reschedule = RESULTS
    return bytes(
        0 if r is accept else 1 if r is reject else 2 if r is reschedule else 3
        for r in decision.message_results
    )


LazySlot(EntryDecision, "_marks", _marks_of)
_set_marks = EntryDecision.__dict__["_marks"].__set__


def _results_of(decision: EntryDecision) -> tuple[FilterResult, ...]:
    marks = decision._marks
    if len(marks) > 1:
        # All lookups in one C call.
        results: tuple[FilterResult, ...] = itemgetter(*marks)(RESULTS)
        return results
    return tuple(RESULTS[m] for m in marks)


LazySlot(EntryDecision, "message_results", _results_of)
_new = object.__new__
_set_result = EntryDecision.__dict__["result"].__set__


def decision_of_marks(marks: bytes) -> EntryDecision:
    """The `EntryDecision` whose message i has result ``RESULTS[marks[i]]`` (each mark
    0, 1 or 2): for filters that judge a batch into such bytes. Its `message_results`
    are made when first read (a broker that rebatches reads only the index tuples)."""
    decision = _new(EntryDecision)
    # `combine`, searching the bytes in C.
    if not marks or 0 in marks:
        _set_result(decision, FilterResult.ACCEPT)
    else:
        _set_result(decision, FilterResult.RESCHEDULE if 2 in marks else FilterResult.REJECT)
    _set_marks(decision, marks)
    return decision
