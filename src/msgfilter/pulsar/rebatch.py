"""Writing back what a filter kept of a stored entry, and acknowledging the rest.

Two ways, as `rebatch_entry`'s `mark_compacted_out` chooses:

- compacted (the default): a new entry of the kept messages only, under the same entry
  metadata (producer, sequence id, publish time, properties), ``num_messages_in_batch``
  updated, compressed with the same codec (or another), checksum recomputed;
- marked: every slot stays and each dropped message becomes an empty
  ``compacted_out`` slot, as Pulsar's compaction writes them, so the kept messages keep
  their batch indexes (and their message ids).

Either way the dropped messages are acknowledged by batch index (`acknowledge`), and
`ack_set` gives the bit set Pulsar's batch-index acknowledgement carries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..broker.batches import Placeholder, rebatch
from .codec import decode_batch
from .compression import DEFAULT_MAX_UNCOMPRESSED
from .model import BatchMessage, BatchMetadata, read_message
from .writer import SAME, Same, encode_batch, single_metadata

#: The slot a dropped message leaves in a marked batch: no payload, no metadata but the
#: flag (the dropped message's properties and key are not kept).
COMPACTED_OUT = BatchMessage(compacted_out=True)
#: The same slot with its metadata bytes: written as they are, not serialised again for
#: each dropped message.
_COMPACTED_OUT_SLOT = read_message(b"", single_metadata(COMPACTED_OUT))


@dataclass(frozen=True, slots=True)
class RebatchedEntry:
    """A stored entry rewritten from the messages a filter kept.

    `data` is the new entry's bytes, or None when nothing was kept (Pulsar then writes no
    entry: acknowledge the whole entry). `kept`, `dropped` and `acknowledge` are batch
    indexes of the original entry (kept + dropped = all of them, in order; acknowledge is
    the dropped messages to acknowledge, the others are to be redelivered). `marked` says
    whether dropped messages were left as compacted-out slots.
    """

    data: bytes | None
    size: int
    kept: tuple[int, ...]
    dropped: tuple[int, ...]
    acknowledge: tuple[int, ...]
    marked: bool

    @property
    def empty(self) -> bool:
        """True when no message was kept."""
        return not self.kept

    def ack_set(self) -> tuple[int, ...]:
        """`ack_set` of this entry after acknowledging `acknowledge`."""
        return ack_set(self.size, self.acknowledge)


def ack_set(size: int, acknowledged: Iterable[int]) -> tuple[int, ...]:
    """The batch-index acknowledgement bit set of a batch of `size` messages.

    As Pulsar carries it (``ack_set``: Java's ``BitSet.toLongArray()``): bit i is set while
    message i is still unacknowledged; 64 indexes per signed 64-bit word, trailing zero
    words left out.

        >>> ack_set(3, [1])
        (5,)
    """
    bits = (1 << size) - 1
    for index in acknowledged:
        if not 0 <= index < size:
            raise ValueError(f"batch index {index} is outside a batch of {size}")
        bits &= ~(1 << index)
    words: list[int] = []
    while bits:
        word = bits & 0xFFFF_FFFF_FFFF_FFFF
        words.append(word - (1 << 64) if word >= 1 << 63 else word)
        bits >>= 64
    return tuple(words)


def rebatch_entry(
    entry: bytes | tuple[BatchMetadata, Sequence[BatchMessage]],
    keep: Any,
    *,
    mark_compacted_out: bool = False,
    compression: str | Same | None = SAME,
    checksum: bool = True,
    max_uncompressed_size: int = DEFAULT_MAX_UNCOMPRESSED,
) -> RebatchedEntry:
    """Rewrite `entry` with the messages `keep` names.

    `entry` is an entry's bytes or what `decode_batch` returned for it. `keep` is what
    `msgfilter.broker.batches.rebatch` takes: a `BatchDecision`, an `EntryDecision` (its REJECTed
    messages are acknowledged, its RESCHEDULEd ones are not), or batch indexes.
    `compression` defaults to the entry's own codec. A non-batched entry is kept whole
    (its bytes unchanged) or not at all. Raises `EntryFormatError` for malformed bytes,
    ValueError for indexes outside the entry.
    """
    meta, messages = decode_batch(entry, max_uncompressed_size=max_uncompressed_size) if (
        isinstance(entry, bytes | bytearray | memoryview)
    ) else entry
    decided = rebatch(messages, keep, placeholders=mark_compacted_out)
    if decided.empty:
        data = None
    elif not decided.dropped and isinstance(entry, bytes) and compression is SAME:
        data = entry
    elif not meta.batched:
        data = encode_batch(meta, messages, compression, checksum=checksum)
    else:
        slots = [
            _COMPACTED_OUT_SLOT if isinstance(m, Placeholder) else m for m in decided.messages
        ]
        data = encode_batch(meta, slots, compression, checksum=checksum)
    return RebatchedEntry(
        data,
        decided.size,
        decided.kept,
        decided.dropped,
        decided.acknowledge,
        mark_compacted_out,
    )


