"""Writing the bytes of a stored Pulsar entry (Pulsar's layout, exactly; see
`msgfilter.pulsar.codec`, which reads them): a batched payload, its metadata, the entry."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence

import crc32c
from google.protobuf.message import DecodeError

from . import pulsar_entry_pb2 as pb
from .codec import CHECKSUM_MAGIC, U32
from .compression import (
    CODEC_NUMBERS,
    codec_name,
    compress,
)
from .model import BatchMessage, BatchMetadata, built_fields


class Same(enum.Enum):
    """encode_batch's default compression: the one `BatchMetadata.compression` names."""

    SAME = "same"


SAME = Same.SAME


def single_metadata(message: BatchMessage) -> bytes:
    # A message without raw_metadata was built: its fields are all set (built_fields).
    (
        payload, properties, partition_key, partition_key_b64_encoded, ordering_key,
        event_time, sequence_id, null_value, null_partition_key, compacted_out,
    ) = built_fields(message)
    s = pb.SingleMessageMetadata(payload_size=len(payload))
    for key, value in properties:
        s.properties.add(key=key, value=value)
    if partition_key is not None:
        s.partition_key = partition_key
    if compacted_out:
        s.compacted_out = True
    if event_time is not None:
        s.event_time = event_time
    if partition_key_b64_encoded:
        s.partition_key_b64_encoded = True
    if ordering_key is not None:
        s.ordering_key = ordering_key
    if sequence_id is not None:
        s.sequence_id = sequence_id
    if null_value:
        s.null_value = True
    if null_partition_key:
        s.null_partition_key = True
    return s.SerializeToString()


def encode_payload(messages: Iterable[BatchMessage]) -> bytes:
    """The uncompressed batch payload of `messages`.

    A message read from an entry and not changed is written with the metadata bytes it
    was read from.
    """
    parts: list[bytes] = []
    append = parts.append
    pack = U32.pack
    for message in messages:
        raw = message.raw_metadata
        if raw is None:
            raw = single_metadata(message)
        append(pack(len(raw)))
        append(raw)
        append(message.payload)
    return b"".join(parts)


def _entry_metadata(
    meta: BatchMetadata, codec: str, count: int | None, uncompressed: int
) -> pb.MessageMetadata:
    m = pb.MessageMetadata()
    if meta.extra:
        try:
            m.ParseFromString(meta.extra)
        except DecodeError as error:
            raise ValueError(f"BatchMetadata.extra is not MessageMetadata bytes: {error}") from None
    m.producer_name = meta.producer_name
    m.sequence_id = meta.sequence_id
    m.publish_time = meta.publish_time
    for key, value in meta.properties:
        m.properties.add(key=key, value=value)
    if meta.replicated_from is not None:
        m.replicated_from = meta.replicated_from
    if meta.partition_key is not None:
        m.partition_key = meta.partition_key
    m.replicate_to.extend(meta.replicate_to)
    if codec != "NONE":
        m.compression = CODEC_NUMBERS[codec]
        m.uncompressed_size = uncompressed
    if count is not None:
        m.num_messages_in_batch = count
    if meta.event_time is not None:
        m.event_time = meta.event_time
    if meta.schema_version is not None:
        m.schema_version = meta.schema_version
    if meta.partition_key_b64_encoded:
        m.partition_key_b64_encoded = True
    if meta.ordering_key is not None:
        m.ordering_key = meta.ordering_key
    if meta.deliver_at_time is not None:
        m.deliver_at_time = meta.deliver_at_time
    if meta.marker_type is not None:
        m.marker_type = meta.marker_type
    if meta.highest_sequence_id is not None:
        m.highest_sequence_id = meta.highest_sequence_id
    return m


def encode_batch(
    meta: BatchMetadata,
    messages: Sequence[BatchMessage],
    compression: str | Same | None = SAME,
    *,
    checksum: bool = True,
) -> bytes:
    """The bytes of an entry holding `messages` under `meta`, as Pulsar stores it.

    `compression` is ``None``/``"NONE"``, ``"LZ4"``, ``"ZLIB"``, ``"ZSTD"`` or ``"SNAPPY"``
    (any case); left out, it is `meta.compression`. ``num_messages_in_batch`` and
    ``uncompressed_size`` are written from the messages (the size only when compressing,
    as the C++ client does). With `checksum` (the default) the entry starts with the
    magic 0x0e01 and the CRC32C of the rest.

    For `meta.batched` False (the non-batched format) give exactly one message: its
    payload is the entry's payload, and the entry's properties, key and event time are
    `meta`'s.
    """
    codec = meta.compression if compression is SAME else codec_name(compression)
    if meta.batched:
        payload = encode_payload(messages)
        count: int | None = len(messages)
    else:
        if len(messages) != 1:
            raise ValueError(
                f"a non-batched entry holds exactly one message, not {len(messages)}"
            )
        payload = messages[0].payload
        count = None
    m = _entry_metadata(meta, codec, count, len(payload))
    if not meta.batched:
        if messages[0].null_value:
            m.null_value = True
        if messages[0].null_partition_key:
            m.null_partition_key = True
    body = compress(codec, payload)
    raw = m.SerializeToString()
    framed = b"".join((U32.pack(len(raw)), raw, body))
    if not checksum:
        return framed
    return b"".join((CHECKSUM_MAGIC, U32.pack(crc32c.crc32c(framed)), framed))

