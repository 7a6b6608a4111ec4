"""Filtering inside a batched entry, and rebuilding the batch from what was kept.

A Pulsar entry is either one message or a batch of messages stored, acknowledged and
dispatched together. Brokers decide for whole entries; these helpers decide for each message
of a batch and then rebuild it:

- `filter_batch` runs a filter or predicate over the messages of a batch and returns a
  `BatchDecision`: all kept (ACCEPT), none kept (REJECT) or PARTIAL, with the kept and
  dropped indexes. Two modes: `BatchMode.EXACT` keeps exactly the messages that match;
  `BatchMode.ANY` mirrors DataStax pulsar-jms: the whole batch is kept as soon as one
  message matches, and the consumer re-applies the filter to the rest.
- `rebatch` builds the batch of the kept messages, in order, either compacted or with
  `Placeholder` slots so that every kept message keeps its batch index (as Pulsar's
  compaction does), and tells which indexes to acknowledge individually.

Nothing is lost: the kept and the dropped indexes together are always 0..n-1, each once.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress
from operator import lt
from typing import Any, Generic, Protocol, TypeVar, cast

from ..filter import Filter

__all__ = [
    "BatchDecision",
    "BatchMode",
    "BatchOutcome",
    "Placeholder",
    "Predicate",
    "Rebatched",
    "as_predicate",
    "filter_batch",
    "rebatch",
]

T = TypeVar("T")

#: What `filter_batch` accepts as a test: a compiled `Filter` (its `matches` is used), an
#: object with an ``accept(message)`` method (a `msgfilter.broker.ConsumerFilter`), or any
#: callable from a message to a truth value.
Predicate = Callable[[Any], object]


class _Accepting(Protocol):
    def accept(self, message: Any) -> bool: ...


_INDEXES: tuple[int, ...] = tuple(range(1024))


def _indexes(size: int) -> tuple[int, ...]:
    """At least `size` ready-made index ints, shared (compress then allocates none)."""
    global _INDEXES
    if size > len(_INDEXES):
        _INDEXES = tuple(range(max(size, 2 * len(_INDEXES))))
    return _INDEXES


#: Swaps the bytes 0 and 1: the complement of a keep mask.
_INVERT = bytes([1, 0]) + bytes(range(2, 256))


class BatchMode(enum.Enum):
    """How a batch is judged when only some of its messages match."""

    #: Keep exactly the messages that match: a PARTIAL decision when some do.
    EXACT = "exact"
    #: DataStax pulsar-jms: keep the whole batch when at least one message matches (the
    #: consumer filters the rest itself), drop it when none does. Never PARTIAL.
    ANY = "any"


class BatchOutcome(enum.Enum):
    """The verdict on a batch as a whole."""

    #: Every message is kept (also for an empty batch).
    ACCEPT = "accept"
    #: No message is kept.
    REJECT = "reject"
    #: Some messages are kept and some dropped.
    PARTIAL = "partial"


@dataclass(frozen=True, slots=True)
class BatchDecision:
    """Which messages of a batch are kept and which dropped.

    `marks` holds one byte per message, 1 for kept and 0 for dropped. `kept` and
    `dropped` are the batch indexes of each, in increasing order; together they are exactly
    ``range(size)``. They are worked out on first use (a dispatcher that only needs the
    `outcome` of an all-or-nothing batch never pays for them). `acknowledge` is the
    indexes the broker acknowledges individually: here, the dropped ones.

    Build one with `from_flags`, `from_indexes`, `accept_all` or `reject_all`.
    """

    marks: bytes
    _kept: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)
    _dropped: tuple[int, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.marks, bytes):
            raise TypeError(f"marks are bytes, not {type(self.marks).__name__}")
        if self.marks.translate(None, b"\x00\x01"):
            raise ValueError("marks are 0 (dropped) or 1 (kept) bytes")

    def __repr__(self) -> str:
        return f"BatchDecision(size={self.size}, kept={self.kept}, dropped={self.dropped})"

    @property
    def size(self) -> int:
        """The number of messages in the batch."""
        return len(self.marks)

    @property
    def kept(self) -> tuple[int, ...]:
        """Indexes of the kept messages, in order."""
        kept = self._kept
        if kept is None:
            kept = tuple(compress(_indexes(len(self.marks)), self.marks))
            object.__setattr__(self, "_kept", kept)
        return kept

    @property
    def dropped(self) -> tuple[int, ...]:
        """Indexes of the dropped messages, in order."""
        dropped = self._dropped
        if dropped is None:
            inverse = self.marks.translate(_INVERT)
            dropped = tuple(compress(_indexes(len(inverse)), inverse))
            object.__setattr__(self, "_dropped", dropped)
        return dropped

    @property
    def outcome(self) -> BatchOutcome:
        """ACCEPT when nothing is dropped, REJECT when nothing is kept, else PARTIAL."""
        if 0 not in self.marks:
            return BatchOutcome.ACCEPT
        if 1 not in self.marks:
            return BatchOutcome.REJECT
        return BatchOutcome.PARTIAL

    @property
    def acknowledge(self) -> tuple[int, ...]:
        """The indexes to acknowledge individually: every dropped message."""
        return self.dropped

    @classmethod
    def accept_all(cls, size: int) -> BatchDecision:
        """Keep all `size` messages."""
        return cls(b"\x01" * size)

    @classmethod
    def reject_all(cls, size: int) -> BatchDecision:
        """Drop all `size` messages."""
        return cls(bytes(size))

    @classmethod
    def from_flags(cls, flags: Iterable[object]) -> BatchDecision:
        """Keep message i when the i-th flag is true."""
        return cls(bytes(map(bool, flags)))

    @classmethod
    def from_indexes(cls, size: int, kept: Iterable[int]) -> BatchDecision:
        """Keep the messages at the `kept` indexes of a batch of `size` (ValueError if outside)."""
        marks = bytearray(size)
        for index in kept:
            if type(index) is not int or not 0 <= index < size:
                raise ValueError(f"batch index {index!r} is outside a batch of {size}")
            marks[index] = 1
        return cls(bytes(marks))


def as_predicate(test: Filter | _Accepting | Predicate) -> Predicate:
    """The per-message callable behind a Filter, a consumer filter, or a plain callable."""
    if isinstance(test, Filter):
        return test.matches
    accept = getattr(test, "accept", None)
    if callable(accept):
        return accept  # type: ignore[no-any-return]
    if callable(test):
        return test
    raise TypeError(f"cannot filter with a {type(test).__name__}: give a Filter or a callable")


def filter_batch(
    messages: Sequence[Any],
    predicate_or_filter: Filter | _Accepting | Predicate,
    mode: BatchMode = BatchMode.EXACT,
) -> BatchDecision:
    """Decide for each message of a batch whether it is kept.

    `messages` are the single messages of one batched entry, in batch order (anything the
    test accepts: `msgfilter.Message`, mappings). `predicate_or_filter` is a compiled
    `Filter` (a message is kept when `matches` is True: FALSE and UNKNOWN drop it), a
    `ConsumerFilter`, or any callable returning a truth value. A `Filter` never raises on
    odd message data; a callable's exceptions propagate.

    In `BatchMode.EXACT` the result keeps exactly the matching messages. In
    `BatchMode.ANY` (pulsar-jms) it keeps all of them as soon as one matches, and
    evaluation stops at the first match.

        >>> import msgfilter
        >>> d = filter_batch([{"n": 1}, {"n": 5}], msgfilter.compile("n > 2"))
        >>> d.outcome, d.kept, d.dropped
        (<BatchOutcome.PARTIAL: 'partial'>, (1,), (0,))
    """
    test = as_predicate(predicate_or_filter)
    if mode is BatchMode.ANY:
        size = len(messages)
        if not size or any(map(test, messages)):
            return BatchDecision.accept_all(size)
        return BatchDecision.reject_all(size)
    if isinstance(predicate_or_filter, Filter):
        # `matches` returns exact bools: straight into bytes, no list in between.
        return BatchDecision(bytes(map(predicate_or_filter.matches, messages)))
    return BatchDecision.from_flags(map(test, messages))


@dataclass(frozen=True, slots=True)
class Placeholder:
    """An empty slot left in a rebuilt batch where message `index` was dropped.

    It plays the part of Pulsar's compacted-out ``SingleMessageMetadata`` with an empty
    payload: the slot exists so that later messages keep their batch index, and holds
    nothing to deliver.
    """

    index: int


_PLACEHOLDERS: list[Placeholder] = []


def _placeholder(index: int) -> Placeholder:
    """The shared `Placeholder` of `index` (they are immutable: one per index is enough)."""
    if index >= len(_PLACEHOLDERS):
        _PLACEHOLDERS.extend(Placeholder(i) for i in range(len(_PLACEHOLDERS), index + 1))
    return _PLACEHOLDERS[index]


class _Keeps(Protocol):
    @property
    def kept(self) -> tuple[int, ...]: ...

    @property
    def acknowledge(self) -> tuple[int, ...]: ...


@dataclass(frozen=True, slots=True)
class Rebatched(Generic[T]):
    """A batch rebuilt from the kept messages of a batch of `size` messages.

    `messages` is the new batch in the original order: only the kept messages when
    compacted, or all `size` slots with a `Placeholder` for each dropped message when
    indexes are kept stable (then ``messages[i]`` is original message i or its
    placeholder). `kept` and `dropped` are original batch indexes (together exactly
    ``range(size)``); `acknowledge` is the subset of `dropped` to acknowledge individually
    (batch-index acknowledgement) rather than redeliver. `empty` is True when nothing was
    kept: Pulsar then writes no entry at all.
    """

    messages: tuple[T | Placeholder, ...]
    size: int
    kept: tuple[int, ...]
    dropped: tuple[int, ...]
    acknowledge: tuple[int, ...]
    stable_indexes: bool

    @property
    def empty(self) -> bool:
        """True when no message was kept."""
        return not self.kept

    def delivered(self) -> list[tuple[int, T]]:
        """(original batch index, message) for each kept message, in order."""
        if self.stable_indexes:
            return [(i, m) for i, m in enumerate(self.messages) if not isinstance(m, Placeholder)]
        return list(zip(self.kept, self.messages, strict=True))  # type: ignore[arg-type]


def _all_dropped(marks: bytes, indexes: tuple[int, ...]) -> bool:
    """Whether `indexes`, in increasing order, are all indexes of dropped messages
    (tested in C, without a set of them)."""
    if not indexes:
        return True
    try:
        return (
            indexes[0] >= 0
            and indexes[-1] < len(marks)
            and not any(map(marks.__getitem__, indexes))
        )
    except TypeError:  # not integers
        return False


def rebatch(
    batch: Sequence[T],
    keep: BatchDecision | _Keeps | Iterable[int],
    *,
    placeholders: bool = False,
) -> Rebatched[T]:
    """Rebuild `batch` from the messages `keep` names, in their original order.

    `keep` is a `BatchDecision` (or anything with `kept` and `acknowledge` index tuples,
    such as a `msgfilter.broker.EntryDecision`) or an iterable of batch indexes to keep.
    With an iterable, every dropped index is to be acknowledged; with a decision, its
    `acknowledge` says which (an entry decision acknowledges the REJECTed messages and
    leaves RESCHEDULEd ones for redelivery).

    With `placeholders` False the result is compacted (only the kept messages); with True
    it keeps every slot, a `Placeholder` in place of each dropped message, so batch indexes
    stay valid, as Pulsar's ``RawBatchConverter.rebatchMessage`` does for compaction.

    Raises ValueError for an index outside the batch or a decision of another size.
    """
    size = len(batch)
    acknowledge: tuple[int, ...] | None
    if isinstance(keep, BatchDecision):
        decision = keep
        acknowledge = None
    elif (kept := getattr(keep, "kept", None)) is not None and (
        acked := getattr(keep, "acknowledge", None)
    ) is not None:  # a _Keeps
        # (Each read once: a decision may make its index tuples when they are read.)
        decision = BatchDecision.from_indexes(getattr(keep, "size", size), kept)
        acknowledge = tuple(acked)
        # A decision's indexes come in order (an EntryDecision's always do): tested in C,
        # sorting a thousand of them again would cost more than the rest of `rebatch`.
        try:
            if not all(map(lt, acknowledge, acknowledge[1:])):
                acknowledge = tuple(sorted(set(acknowledge)))
        except TypeError:
            raise ValueError(f"acknowledged batch indexes are not integers: {acked!r}") from None
    else:
        decision = BatchDecision.from_indexes(size, cast(Iterable[int], keep))
        acknowledge = None
    if decision.size != size:
        raise ValueError(f"the decision is for {decision.size} messages, the batch has {size}")
    marks = decision.marks
    dropped = decision.dropped
    if acknowledge is None:
        acknowledge = dropped
    elif not _all_dropped(marks, acknowledge):
        raise ValueError(
            "only dropped messages can be acknowledged individually (by integer batch index)"
        )
    messages: tuple[T | Placeholder, ...]
    if placeholders:
        slots: list[T | Placeholder] = list(batch)
        for index in dropped:
            slots[index] = _placeholder(index)
        messages = tuple(slots)
    else:
        messages = tuple(compress(batch, marks))
    return Rebatched(messages, size, decision.kept, dropped, acknowledge, placeholders)
