"""Reading the bytes of a stored Pulsar entry (Pulsar's layout, exactly; `writer` writes
them).

An entry, as the producer sends it and the broker stores it::

    [0x0e02][u32 size][BrokerEntryMetadata]   only if the broker adds it; skipped
    [0x0e01][u32 CRC32C of the rest]          optional checksum
    [u32 metadata size][MessageMetadata]
    [payload]                                 compressed as one unit

and a batched payload, once decompressed, is ``num_messages_in_batch`` times
``[u32 size][SingleMessageMetadata][payload_size bytes]``. All integers are big-endian.
protobuf reads and writes the metadata (classes generated from pulsar_entry.proto),
crc32c the checksum, cramjam and zlib the payload.
"""

from __future__ import annotations

import struct
from operator import attrgetter
from typing import Any, Final

import crc32c
from google.protobuf.message import DecodeError

from ..message import Message
from ..pulsar_jms.messages import adopted_pulsar_message
from . import pulsar_entry_pb2 as pb
from .compression import (
    CODECS,
    DEFAULT_MAX_UNCOMPRESSED,
    decompress,
)
from .errors import EncryptedEntryError, EntryFormatError
from .model import BatchMessage, BatchMetadata, as_text, read_message

CHECKSUM_MAGIC: Final = b"\x0e\x01"
BROKER_ENTRY_METADATA_MAGIC: Final = b"\x0e\x02"

#: Every integer of the layout: a big-endian u32.
U32 = struct.Struct(">I")
_KV = attrgetter("key", "value")
_Single = pb.SingleMessageMetadata
#: The same bytes with the properties as a map: the decoder parses each message through
#: it, and reads the ordered pairs (`BatchMessage.properties`) only when they are asked for.
_View = pb.SingleMessageMetadataView
#: MessageMetadata fields that BatchMetadata holds as attributes, or that encode_batch
#: writes from the payload; every other field travels in BatchMetadata.extra.
_MODELED = (
    "producer_name", "sequence_id", "publish_time", "properties", "compression",
    "partition_key", "partition_key_b64_encoded", "ordering_key", "event_time",
    "replicated_from", "replicate_to", "schema_version", "deliver_at_time", "marker_type",
    "highest_sequence_id", "uncompressed_size", "num_messages_in_batch",
)
_REQUIRED = ("producer_name", "sequence_id", "publish_time")
#: How many messages of a batch one metadata object parses in turn (see _messages).
_PARSES_PER_OBJECT = 128



class Frame:
    """The parts of an entry: the metadata message, and where the payload is."""

    __slots__ = ("metadata", "payload", "payload_offset")

    def __init__(self, metadata: pb.MessageMetadata, payload: memoryview, offset: int) -> None:
        self.metadata = metadata
        self.payload = payload
        self.payload_offset = offset


def _u32(view: memoryview, offset: int, what: str) -> int:
    if offset + 4 > len(view):
        raise EntryFormatError(f"the entry ends inside the {what}", offset)
    return int(U32.unpack_from(view, offset)[0])


def read_frame(entry: bytes | bytearray | memoryview) -> Frame:
    view = memoryview(entry).cast("B")
    offset = 0
    if bytes(view[:2]) == BROKER_ENTRY_METADATA_MAGIC:
        size = _u32(view, 2, "broker entry metadata size")
        offset = 6 + size
        if offset > len(view):
            raise EntryFormatError(
                f"broker entry metadata of {size} bytes runs past the end of the entry", 2
            )
    if bytes(view[offset : offset + 2]) == CHECKSUM_MAGIC:
        stored = _u32(view, offset + 2, "checksum")
        actual = crc32c.crc32c(view[offset + 6 :])
        if stored != actual:
            raise EntryFormatError(
                f"checksum mismatch: stored {stored:#010x}, computed {actual:#010x}",
                offset + 2,
            )
        offset += 6
    size = _u32(view, offset, "metadata size")
    start = offset + 4
    if start + size > len(view):
        raise EntryFormatError(
            f"metadata size {size} runs past the end of the entry ({len(view)} bytes)", offset
        )
    metadata = pb.MessageMetadata()
    try:
        metadata.ParseFromString(bytes(view[start : start + size]))
    except DecodeError as error:
        raise EntryFormatError(f"MessageMetadata does not parse: {error}", start) from None
    if not metadata.IsInitialized():
        missing = ", ".join(n for n in _REQUIRED if not metadata.HasField(n))
        raise EntryFormatError(f"MessageMetadata lacks required fields: {missing}", start)
    return Frame(metadata, view[start + size :], start + size)


def _optional(message: object, name: str) -> object:
    return getattr(message, name) if message.HasField(name) else None  # type: ignore[attr-defined]


def metadata_of(m: pb.MessageMetadata) -> BatchMetadata:
    if m.compression not in CODECS:
        raise EntryFormatError(f"unknown compression type {m.compression}", 0, "metadata")
    rest = pb.MessageMetadata()
    rest.CopyFrom(m)
    for name in _MODELED:
        rest.ClearField(name)
    batched = m.HasField("num_messages_in_batch")
    if not batched:
        # The one message's own flags: BatchMessage holds them.
        rest.ClearField("null_value")
        rest.ClearField("null_partition_key")
    return BatchMetadata(
        producer_name=m.producer_name,
        sequence_id=m.sequence_id,
        publish_time=m.publish_time,
        properties=tuple(map(_KV, m.properties)),
        compression=CODECS[m.compression],
        batched=batched,
        partition_key=_optional(m, "partition_key"),  # type: ignore[arg-type]
        partition_key_b64_encoded=m.partition_key_b64_encoded,
        ordering_key=_optional(m, "ordering_key"),  # type: ignore[arg-type]
        event_time=_optional(m, "event_time"),  # type: ignore[arg-type]
        replicated_from=_optional(m, "replicated_from"),  # type: ignore[arg-type]
        replicate_to=tuple(m.replicate_to),
        schema_version=_optional(m, "schema_version"),  # type: ignore[arg-type]
        deliver_at_time=_optional(m, "deliver_at_time"),  # type: ignore[arg-type]
        marker_type=_optional(m, "marker_type"),  # type: ignore[arg-type]
        highest_sequence_id=_optional(m, "highest_sequence_id"),  # type: ignore[arg-type]
        encrypted=len(m.encryption_keys) > 0,
        extra=rest.SerializePartialToString(),
    )


def decode_metadata(entry: bytes | bytearray | memoryview) -> BatchMetadata:
    """The entry's metadata, without touching its payload (also for encrypted entries).

    Checks the checksum when there is one. Raises `EntryFormatError`.
    """
    return metadata_of(read_frame(entry).metadata)


def decode_batch(
    entry: bytes | bytearray | memoryview,
    *,
    max_uncompressed_size: int = DEFAULT_MAX_UNCOMPRESSED,
) -> tuple[BatchMetadata, tuple[BatchMessage, ...]]:
    """The metadata and the messages of one stored entry, in batch order.

    A non-batched entry gives one message, made of the entry's payload and its
    properties, key, event time and sequence id. Raises `EntryFormatError` for anything
    malformed (with what and where), `EncryptedEntryError` for an encrypted entry. A
    payload whose declared uncompressed size is above `max_uncompressed_size` is refused
    before anything is allocated for it.
    """
    frame = read_frame(entry)
    meta = metadata_of(frame.metadata)
    return meta, decode_messages(frame, meta, max_uncompressed_size)


def decode_messages(
    frame: Frame, meta: BatchMetadata, cap: int, filtered: list[Message] | None = None
) -> tuple[BatchMessage, ...]:
    """The messages of a framed entry whose metadata is `meta` (`decode_batch`'s work
    once the entry is framed); with `filtered`, each message's `msgfilter.Message` is
    appended there too, built from what was parsed (`BatchMessage.to_message`)."""
    if meta.encrypted:
        raise EncryptedEntryError(
            "the entry is encrypted (encryption_keys present): its payload is not decoded"
        )
    m = frame.metadata
    payload = _payload(frame, meta.compression, cap)
    if not meta.batched:
        single = BatchMessage(
            payload=payload,
            properties=meta.properties,
            partition_key=meta.partition_key,
            partition_key_b64_encoded=meta.partition_key_b64_encoded,
            ordering_key=meta.ordering_key,
            event_time=meta.event_time,
            sequence_id=meta.sequence_id,
            null_value=m.null_value,
            null_partition_key=m.null_partition_key,
        )
        if filtered is not None:
            filtered.append(single.to_message())
        return (single,)
    return _messages(payload, m.num_messages_in_batch, filtered)


def decode_payload(
    entry: bytes | bytearray | memoryview,
    *,
    max_uncompressed_size: int = DEFAULT_MAX_UNCOMPRESSED,
) -> bytes:
    """The entry's payload, decompressed (for a batch: the messages, each after its
    ``SingleMessageMetadata``, as Pulsar's batch readers take it). Raises
    `EntryFormatError`, or `EncryptedEntryError` for an encrypted entry."""
    frame = read_frame(entry)
    meta = metadata_of(frame.metadata)
    if meta.encrypted:
        raise EncryptedEntryError(
            "the entry is encrypted (encryption_keys present): its payload is not decoded"
        )
    return _payload(frame, meta.compression, max_uncompressed_size)


def _payload(frame: Frame, codec: str, cap: int) -> bytes:
    m = frame.metadata
    data = frame.payload
    if codec == "NONE":
        if m.HasField("uncompressed_size") and m.uncompressed_size != len(data):
            raise EntryFormatError(
                f"uncompressed_size {m.uncompressed_size} disagrees with the "
                f"{len(data)}-byte uncompressed payload",
                frame.payload_offset,
            )
        if len(data) > cap:
            raise EntryFormatError(
                f"the payload of {len(data)} bytes is above the cap of {cap}",
                frame.payload_offset,
            )
        return bytes(data)
    if not m.HasField("uncompressed_size"):
        raise EntryFormatError(
            f"a {codec} payload without uncompressed_size", frame.payload_offset
        )
    size = m.uncompressed_size
    if size > cap:
        raise EntryFormatError(
            f"uncompressed_size {size} is above the cap of {cap}", frame.payload_offset
        )
    return decompress(codec, data, size, frame.payload_offset)


def _messages(
    payload: bytes, count: int, filtered: list[Message] | None = None
) -> tuple[BatchMessage, ...]:
    end = len(payload)
    # Each message takes at least 6 bytes (a size and a payload_size field): a larger
    # count cannot be right, and is refused before any work.
    if count < 0 or count * 6 > end:
        raise EntryFormatError(
            f"num_messages_in_batch {count} cannot fit in a {end}-byte payload", 0, "payload"
        )
    unpack = U32.unpack_from
    # A filter's Message needs the properties as a dict: the view's map gives them at
    # half the cost of the pairs. Otherwise only payload_size is read (see read_message),
    # and the full message parses a tenth faster than the view, which builds the map.
    parsed: type[Any] = _Single if filtered is None else _View
    out: list[BatchMessage] = []
    append = out.append
    offset = 0
    for index in range(count):
        if not index % _PARSES_PER_OBJECT:
            # One object parses the next messages in turn (ParseFromString clears it
            # first): a tenth cheaper than a new one per message. Renewed, because its
            # arena keeps what each parse into it allocated until the object goes.
            s = parsed()
            parse = s.ParseFromString
        if offset + 4 > end:
            raise EntryFormatError(
                f"message {index} of {count}: the payload ends inside its metadata size",
                offset,
                "payload",
            )
        size = unpack(payload, offset)[0]
        start = offset + 4
        stop = start + size
        if stop > end:
            raise EntryFormatError(
                f"message {index}: metadata size {size} runs past the end", offset, "payload"
            )
        raw = payload[start:stop]
        try:
            parse(raw)
        except DecodeError as error:
            error = _view_error(raw, error)
            raise EntryFormatError(
                f"message {index}: SingleMessageMetadata does not parse: {error}",
                start,
                "payload",
            ) from None
        # A value other than the default is present: HasField only for the default.
        data_size = s.payload_size
        if not data_size and not s.HasField("payload_size"):
            raise EntryFormatError(
                f"message {index}: SingleMessageMetadata lacks payload_size", start, "payload"
            )
        offset = stop + data_size
        if data_size < 0 or offset > end:
            raise EntryFormatError(
                f"message {index}: payload_size {data_size} runs past the end",
                start,
                "payload",
            )
        message = read_message(payload[stop:offset], raw)
        append(message)
        if filtered is not None:
            # (A string field that is not UTF-8 comes as bytes.)
            key: str | bytes | None = s.partition_key
            if not key and not s.HasField("partition_key"):
                key = None
            sequence_id: int | None = s.sequence_id
            if not sequence_id and not s.HasField("sequence_id"):
                sequence_id = None
            try:
                # The map holds the last value of a repeated key, as a dict of the pairs
                # does. (Iterated in C and indexed: dict(map) and map.items() go through
                # collections.abc's Python code, at twice the cost.)
                found = s.properties
                props: dict[str, object] = {k: found[k] for k in found}
                if bytes in map(type, props.values()):
                    props = {k: as_text(v) if isinstance(v, bytes) else v for k, v in props.items()}
            except UnicodeDecodeError:
                # A key that is not UTF-8 (the map cannot hold it): built from the pairs,
                # as BatchMessage.to_message builds it.
                filtered.append(message.to_message())
                continue
            # An absent event_time reads 0, which pulsar_message takes as no value.
            filtered.append(adopted_pulsar_message(
                props, None if key is None else as_text(key), s.event_time, sequence_id
            ))
    if offset != end:
        raise EntryFormatError(
            f"num_messages_in_batch is {count}, but {end - offset} bytes follow "
            + (f"message {count - 1}" if count else "the metadata"),
            offset,
            "payload",
        )
    return tuple(out)


def _view_error(raw: bytes, error: DecodeError) -> DecodeError:
    """The error parsing `raw` through the view gives (the same bytes fail both ways; its
    text names the view, whichever class failed first)."""
    try:
        _View.FromString(raw)
    except DecodeError as view_error:
        return view_error
    return error
