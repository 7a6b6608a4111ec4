"""What an entry filter looks at: the `Entry` and the `FilterContext` it is read for."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..message import Message

_EMPTY: Mapping[str, str] = MappingProxyType({})


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only copy of `mapping` (no copy when it already is read-only)."""
    if mapping is None:
        return _EMPTY
    if isinstance(mapping, MappingProxyType):
        return mapping
    return MappingProxyType(dict(mapping))


_MESSAGE_TYPE = frozenset({Message})


def _as_message(message: Message | Mapping[str, object]) -> Message:
    if isinstance(message, Message):
        return message
    if isinstance(message, Mapping):
        return Message(properties=message)
    raise TypeError(f"a message is a msgfilter.Message or a mapping, not {type(message).__name__}")


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """Where an entry is stored: Pulsar's (ledger id, entry id). Ordered; ``str`` is "l:e"."""

    ledger_id: int
    entry_id: int

    def __str__(self) -> str:
        return f"{self.ledger_id}:{self.entry_id}"


@dataclass(frozen=True, slots=True)
class EntryMetadata:
    """The entry-level metadata a broker reads without decoding the payload.

    It models the fields of Pulsar's ``MessageMetadata`` that filters use:

    - `properties`: the entry's properties (for a single-message entry, the message's);
    - `publish_time`: milliseconds since the epoch, as the broker stamped it;
    - `batch_size`: ``num_messages_in_batch`` for a batched entry, None for a single
      message (Pulsar's ``hasNumMessagesInBatch()``);
    - `marker`: a broker-internal marker entry (replicated subscription snapshots,
      transaction markers); selector filters let it through untouched.
    """

    properties: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    publish_time: int = 0
    batch_size: int | None = None
    marker: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "properties", _frozen(self.properties))


@dataclass(frozen=True, slots=True)
class Entry:
    """One stored entry: a single message, or a batch of messages stored as one.

    `messages` are the single messages in batch order, each a `msgfilter.Message`
    (mappings given to the constructor become ``Message(properties=mapping)``). A message
    inside a batch is addressed by (`position`, batch index); a non-batched entry holds
    exactly one message, a batched one exactly ``metadata.batch_size``.
    Use `Entry.single` and `Entry.batch` to build one.

    For Pulsar messages, `msgfilter.jsmtype.pulsar_message` builds a `Message` from
    string properties and per-message metadata (partition key, event time, sequence id).
    """

    position: Position
    messages: tuple[Message, ...]
    metadata: EntryMetadata = field(default_factory=EntryMetadata)

    def __post_init__(self) -> None:
        given = self.messages
        if type(given) is tuple and set(map(type, given)) <= _MESSAGE_TYPE:
            # Already a tuple of Messages (a reader's thousand): checked in C, kept.
            messages: tuple[Message, ...] = given
        else:
            messages = tuple(_as_message(m) for m in given)
            object.__setattr__(self, "messages", messages)
        expected = 1 if self.metadata.batch_size is None else self.metadata.batch_size
        if len(messages) != expected:
            kind = "a single-message entry" if self.metadata.batch_size is None else "the batch"
            raise ValueError(f"{kind} must hold {expected} message(s), not {len(messages)}")

    @classmethod
    def single(
        cls,
        position: Position,
        message: Message | Mapping[str, object],
        *,
        publish_time: int = 0,
        marker: bool = False,
    ) -> Entry:
        """A non-batched entry holding `message`; its properties are the entry's."""
        msg = _as_message(message)
        props = {k: v for k, v in msg.properties.items() if isinstance(v, str)}
        meta = EntryMetadata(properties=props, publish_time=publish_time, marker=marker)
        return cls(position, (msg,), meta)

    @classmethod
    def batch(
        cls,
        position: Position,
        messages: Iterable[Message | Mapping[str, object]],
        *,
        publish_time: int = 0,
        properties: Mapping[str, str] | None = None,
    ) -> Entry:
        """A batched entry of `messages` (possibly one) in batch order."""
        msgs = tuple(_as_message(m) for m in messages)
        meta = EntryMetadata(
            properties=_frozen(properties), publish_time=publish_time, batch_size=len(msgs)
        )
        return cls(position, msgs, meta)

    @property
    def is_batch(self) -> bool:
        """True for a batched entry (even a batch of one)."""
        return self.metadata.batch_size is not None

    @property
    def size(self) -> int:
        """The number of messages in the entry."""
        return len(self.messages)


@dataclass(frozen=True, slots=True)
class FilterContext:
    """Where an entry is being dispatched: the subscription and, if any, the consumer.

    - `subscription`: the subscription's name; `topic`: its topic (may be "").
    - `subscription_properties`: set when the subscription was created (Pulsar's
      ``CommandSubscribe.subscription_properties``), e.g. ``jms.selector``.
    - `consumer_metadata`: the metadata the consumer connected with (Pulsar's
      ``CommandSubscribe.metadata``), e.g. ``jms.selector`` or ``anytag1``. None when no
      consumer is involved (evaluation at publish time, backlog analysis).
    - `consumer_name`: the consumer's name, when known.
    - `entry_metadata`: the metadata of the entry being filtered (`for_entry` sets it; a
      `FilterChain` does so for you).
    - `replay`: True when the entry is being redelivered (replayed) rather than read for
      the first time.

    Build one per consumer and derive the per-entry context with `for_entry`.
    """

    subscription: str
    subscription_properties: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    consumer_metadata: Mapping[str, str] | None = None
    consumer_name: str | None = None
    topic: str = ""
    entry_metadata: EntryMetadata | None = None
    replay: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "subscription_properties", _frozen(self.subscription_properties))
        if self.consumer_metadata is not None:
            object.__setattr__(self, "consumer_metadata", _frozen(self.consumer_metadata))

    def for_entry(self, entry: Entry, *, replay: bool | None = None) -> FilterContext:
        """This context for `entry` (and, if given, a new replay flag)."""
        if entry.metadata is self.entry_metadata and (replay is None or replay == self.replay):
            return self
        return dataclasses.replace(
            self,
            entry_metadata=entry.metadata,
            replay=self.replay if replay is None else replay,
        )

    @property
    def has_consumer(self) -> bool:
        """True when a consumer is involved (its metadata is known)."""
        return self.consumer_metadata is not None

    def consumer_get(self, key: str, default: str | None = None) -> str | None:
        """A consumer metadata value, `default` when absent or when there is no consumer."""
        if self.consumer_metadata is None:
            return default
        return self.consumer_metadata.get(key, default)
