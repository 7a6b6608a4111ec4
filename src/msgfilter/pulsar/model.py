"""What a stored Pulsar entry holds: its metadata and its messages, as plain values."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

from ..lazyslots import UNSET, LazySlot
from ..message import Message
from ..pulsar_jms.messages import adopted_pulsar_message
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
    Its other fields are read out of those bytes when first asked for (a filter reads
    the `msgfilter.Message` a stored entry gives, and a rebatch writes the bytes back).
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
        key = self.partition_key
        return adopted_pulsar_message(
            {as_text(k): as_text(v) for k, v in self.properties},
            None if key is None else as_text(key),
            self.event_time,
            self.sequence_id,
        )


def as_text(value: str | bytes) -> str:
    """A string field as a filter reads it: protobuf gives one that is not UTF-8 as
    bytes; Pulsar's Java classes read it with U+FFFD for what does not decode (Python's
    replacement: one U+FFFD per byte of an encoded surrogate, where Java gives one)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


_KV = attrgetter("key", "value")
_parse_single = SingleMessageMetadata.FromString


def _pairs(raw: bytes) -> Properties:
    """The properties of a message's ``SingleMessageMetadata`` bytes, as stored."""
    props = _parse_single(raw).properties
    return tuple(map(_KV, props)) if props else ()


#: The fields of BatchMessage that a decoded message reads out of its metadata bytes
#: when one of them is first read (all at once, from one parse), in field order.
_SCALARS = (
    "partition_key", "partition_key_b64_encoded", "ordering_key", "event_time",
    "sequence_id", "null_value", "null_partition_key", "compacted_out",
)


def _scalars(raw: bytes) -> tuple[object, ...]:
    """The values of `_SCALARS` in a message's ``SingleMessageMetadata`` bytes: an
    optional field absent is None."""
    s = _parse_single(raw)
    has = s.HasField
    return (
        s.partition_key if has("partition_key") else None,
        s.partition_key_b64_encoded,
        s.ordering_key if has("ordering_key") else None,
        s.event_time if has("event_time") else None,
        s.sequence_id if has("sequence_id") else None,
        s.null_value,
        s.null_partition_key,
        s.compacted_out,
    )


# The slot setters of BatchMessage (its frozen __setattr__ refuses writes; calling them
# directly costs half of object.__setattr__ by name).
_new = object.__new__
#: The slot getters of BatchMessage's fields, in field order, past the LazySlot
#: descriptors installed below (a read through one runs Python code, at 25 times the cost
#: of a slot read): for a message whose slots are all set.
_GETTERS = tuple(
    BatchMessage.__dict__[f.name].__get__ for f in fields(BatchMessage) if f.init
)
_set_payload = BatchMessage.__dict__["payload"].__set__
_set_raw = BatchMessage.__dict__["raw_metadata"].__set__
_SCALAR_SETTERS = tuple(BatchMessage.__dict__[name].__set__ for name in _SCALARS)


def read_message(payload: bytes, raw_metadata: bytes) -> BatchMessage:
    """The `BatchMessage` a decoder read: `payload`, and `raw_metadata`, the
    ``SingleMessageMetadata`` bytes it was read from, which must parse. The other fields
    are read out of those bytes when first asked for (the properties on their own, the
    rest together): a filter reads the `msgfilter.Message` of a stored entry, and a
    rebatch writes the bytes back, so neither needs them."""
    message = _new(BatchMessage)
    _set_payload(message, payload)
    _set_raw(message, raw_metadata)
    return message


def built_fields(message: BatchMessage) -> tuple[Any, ...]:
    """The fields of `message`, in field order, for a message built rather than read
    (`raw_metadata` None: every slot set, as __init__ sets them), read at the cost of
    slot reads (`msgfilter.pulsar.codec` writes such a message from its fields)."""
    return tuple([get(message) for get in _GETTERS])


def _stored_pairs(message: BatchMessage) -> object:
    # A decoded message's `properties` slot stays unset until first read: the pairs, in
    # stored order with repeated keys, are then parsed out of its metadata bytes (which
    # parsed when the entry was decoded) and kept.
    raw = message.raw_metadata
    return UNSET if raw is None else _pairs(raw)


def _stored_scalar(index: int) -> Callable[[BatchMessage], object]:
    def make(message: BatchMessage) -> object:
        # The first of a decoded message's other fields read fills them all, from one
        # parse of its metadata bytes.
        raw = message.raw_metadata
        if raw is None:
            return UNSET
        values = _scalars(raw)
        for setter, value in zip(_SCALAR_SETTERS, values, strict=True):
            setter(message, value)
        return values[index]

    return make


LazySlot(BatchMessage, "properties", _stored_pairs)
for _index, _name in enumerate(_SCALARS):
    LazySlot(BatchMessage, _name, _stored_scalar(_index))
