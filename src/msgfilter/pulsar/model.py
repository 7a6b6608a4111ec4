"""What a stored Pulsar entry holds: its metadata and its messages, as plain values."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter

from ..jsmtype import adopted_pulsar_message
from ..lazyslots import LazySlot
from ..message import Message
from .compression import codec_name
from .pulsar_entry_pb2 import SingleMessageMetadata

Properties = tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class BatchMetadata:
    """An entry's ``MessageMetadata``: what the producer stamped on the entry as a whole.

    `properties` are (key, value) pairs in stored order. `compression` is the codec name
    (``NONE``, ``LZ4``, ``ZLIB``, ``ZSTD``, ``SNAPPY``). `batched` is False for an entry in
    the non-batched format (no ``num_messages_in_batch``: the payload is one message, whose
    properties, key and event time are the entry's). Optional fields are None when absent.
    `encrypted` is True when the entry has ``encryption_keys`` (its payload is never
    decoded). `extra` holds every other field as protobuf bytes (encryption keys,
    transaction ids, chunking, schema id, fields newer than msgfilter), so that an entry
    re-encoded from this metadata keeps them, even after `dataclasses.replace`.

    The sizes of the payload (``num_messages_in_batch``, ``uncompressed_size``) are not
    here: `msgfilter.pulsar.encode_batch` writes them from the messages it is given.
    """

    producer_name: str
    sequence_id: int
    publish_time: int
    properties: Properties = ()
    compression: str = "NONE"
    batched: bool = True
    partition_key: str | None = None
    partition_key_b64_encoded: bool = False
    ordering_key: bytes | None = None
    event_time: int | None = None
    replicated_from: str | None = None
    replicate_to: tuple[str, ...] = ()
    schema_version: bytes | None = None
    deliver_at_time: int | None = None
    marker_type: int | None = None
    highest_sequence_id: int | None = None
    encrypted: bool = False
    extra: bytes = b""

    def __post_init__(self) -> None:
        object.__setattr__(self, "compression", codec_name(self.compression))

    @property
    def marker(self) -> bool:
        """True for a broker-internal marker entry (``marker_type`` set)."""
        return self.marker_type is not None


@dataclass(frozen=True, slots=True)
class BatchMessage:
    """One message of an entry: its ``SingleMessageMetadata`` and payload bytes.

    A null value is `null_value` True with an empty payload; a message the broker's
    compaction removed is `compacted_out` True (consumers skip it, its slot keeps the
    batch indexes of the others). Optional fields are None when absent.

    A message read by `msgfilter.pulsar.decode_batch` remembers its metadata bytes as read
    and is written back with exactly those bytes (unknown fields included) as long as it
    is not changed; a changed copy (`dataclasses.replace`) is written from its fields.
    Its `properties` are read out of those bytes when first asked for (a filter reads
    the `msgfilter.Message` a stored entry gives, not these pairs).
    """

    payload: bytes = b""
    properties: Properties = ()
    partition_key: str | None = None
    partition_key_b64_encoded: bool = False
    ordering_key: bytes | None = None
    event_time: int | None = None
    sequence_id: int | None = None
    null_value: bool = False
    null_partition_key: bool = False
    compacted_out: bool = False
    #: The SingleMessageMetadata bytes this message was read from (None when built).
    raw_metadata: bytes | None = field(default=None, init=False, repr=False, compare=False)

    def property_map(self) -> dict[str, str]:
        """The properties as a dict (a repeated key: the last value, as Pulsar's clients)."""
        return dict(self.properties)

    def to_message(self) -> Message:
        """The `msgfilter.Message` a filter reads: string properties, and the partition
        key, event time and sequence id as pulsar-jms's headers (see
        `msgfilter.jsmtype.pulsar_message`)."""
        return adopted_pulsar_message(
            dict(self.properties), self.partition_key, self.event_time, self.sequence_id
        )


_KV = attrgetter("key", "value")
_parse_single = SingleMessageMetadata.FromString


def _pairs(raw: bytes) -> Properties:
    """The properties of a message's ``SingleMessageMetadata`` bytes, as stored."""
    props = _parse_single(raw).properties
    return tuple(map(_KV, props)) if props else ()


# The slot setters of BatchMessage's fields, in field order, then raw_metadata: the
# decoder fills a message through them (`read_message`), at half the cost of the frozen
# dataclass's __init__, which writes each field through object.__setattr__ by name.
_new = object.__new__
_SETTERS = tuple(
    BatchMessage.__dict__[name].__set__
    for name in (
        "payload", "properties", "partition_key", "partition_key_b64_encoded",
        "ordering_key", "event_time", "sequence_id", "null_value", "null_partition_key",
        "compacted_out", "raw_metadata",
    )
)


def read_message(
    payload: bytes,
    properties: Properties | None,
    partition_key: str | None,
    partition_key_b64_encoded: bool,
    ordering_key: bytes | None,
    event_time: int | None,
    sequence_id: int | None,
    null_value: bool,
    null_partition_key: bool,
    compacted_out: bool,
    raw_metadata: bytes,
) -> BatchMessage:
    """The `BatchMessage` a decoder read, with the metadata bytes it was read from: the
    same as ``BatchMessage(...)`` with `raw_metadata` set, for values of the right types
    (what protobuf gives). `properties` None: read out of `raw_metadata` when first
    asked for."""
    (s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10) = _SETTERS
    message = _new(BatchMessage)
    s0(message, payload)
    if properties is not None:
        s1(message, properties)
    s2(message, partition_key)
    s3(message, partition_key_b64_encoded)
    s4(message, ordering_key)
    s5(message, event_time)
    s6(message, sequence_id)
    s7(message, null_value)
    s8(message, null_partition_key)
    s9(message, compacted_out)
    s10(message, raw_metadata)
    return message


def _stored_pairs(message: BatchMessage) -> Properties | None:
    # A decoded message's `properties` slot stays unset until first read: the pairs, in
    # stored order with repeated keys, are then parsed out of its metadata bytes (which
    # parsed when the entry was decoded) and kept.
    raw = message.raw_metadata
    return None if raw is None else _pairs(raw)


LazySlot(BatchMessage, "properties", _stored_pairs)
