"""Stored entries for the broker API: entry filters run on the bytes Pulsar stores.

`read_entry` turns an entry's bytes into a `msgfilter.broker.Entry` (each message a
`msgfilter.Message` with its string properties and pulsar-jms's headers) and keeps the
decoded metadata and messages for `msgfilter.pulsar.rebatch.rebatch_entry`.
`decide_entry` runs an entry filter (or a `FilterChain`) on the bytes.

Encrypted entries are never decoded. A broker's entry filter sees only the entry metadata
of an encrypted entry, so: a non-batched encrypted entry is filtered on its metadata
(its properties, key and event time are not encrypted; only its payload is); a batched
one, whose per-message properties are inside the ciphertext, gets `on_encrypted` for all
of its messages: ACCEPT by default (deliver; the consumer decrypts and applies its own
selector, as pulsar-jms's client does), or RESCHEDULE.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..broker.context import Entry, EntryMetadata, FilterContext, Position
from ..broker.filters import EntryFilter
from ..broker.results import EntryDecision, FilterResult
from ..message import Message
from .codec import decode_messages, metadata_of, read_frame
from .compression import DEFAULT_MAX_UNCOMPRESSED
from .model import BatchMessage, BatchMetadata


@dataclass(frozen=True, slots=True)
class StoredEntry:
    """One stored entry, read: its decoded metadata and messages, and the broker's view.

    `size` is the number of messages (``num_messages_in_batch``, 1 when not batched).
    `messages` is empty for an encrypted entry (never decoded); `entry` is the
    `msgfilter.broker.Entry` filters read (for an encrypted batch, None). `data` is the
    entry's bytes as read.
    """

    position: Position
    metadata: BatchMetadata
    size: int
    messages: tuple[BatchMessage, ...]
    entry: Entry | None
    data: bytes


def entry_metadata(meta: BatchMetadata, size: int) -> EntryMetadata:
    """The broker's `EntryMetadata` of an entry with `meta` holding `size` messages."""
    return EntryMetadata(
        properties=dict(meta.properties),
        publish_time=meta.publish_time,
        batch_size=size if meta.batched else None,
        marker=meta.marker,
    )


def read_entry(
    position: Position,
    data: bytes,
    *,
    max_uncompressed_size: int = DEFAULT_MAX_UNCOMPRESSED,
) -> StoredEntry:
    """Decode `data`, the entry stored at `position`. Raises `EntryFormatError`."""
    frame = read_frame(data)
    meta = metadata_of(frame.metadata)
    if meta.encrypted:
        if meta.batched:
            count = frame.metadata.num_messages_in_batch
            return StoredEntry(position, meta, max(count, 0), (), None, data)
        # The payload stays opaque; the metadata is all a filter reads.
        single = BatchMessage(
            properties=meta.properties,
            partition_key=meta.partition_key,
            event_time=meta.event_time,
            sequence_id=meta.sequence_id,
        )
        entry = Entry(position, (single.to_message(),), entry_metadata(meta, 1))
        return StoredEntry(position, meta, 1, (), entry, data)
    # Framed once; each message parsed once, its Message built from that parse.
    filtered: list[Message] = []
    messages = decode_messages(frame, meta, max_uncompressed_size, filtered)
    entry = Entry(position, tuple(filtered), entry_metadata(meta, len(messages)))
    return StoredEntry(position, meta, len(messages), messages, entry, data)


def decide_entry(
    entry_filter: EntryFilter,
    stored: StoredEntry,
    context: FilterContext,
    *,
    on_encrypted: FilterResult = FilterResult.ACCEPT,
) -> EntryDecision:
    """`entry_filter.decide` on a stored entry (see the module for encrypted entries).

    For an encrypted batch the decision has one result per message the metadata counts.
    """
    if stored.entry is None:
        return EntryDecision.uniform(on_encrypted, stored.size)
    return entry_filter.decide(stored.entry, context.for_entry(stored.entry))
