"""The Pulsar C++ client (PyPI ``pulsar-client``) against msgfilter.pulsar, whole entries.

A stand-in broker on 127.0.0.1 (tests/pulsar_standin.py) lets a real client consume the
entries msgfilter writes (checksum, metadata, every codec, batch and non-batched format)
and records the entries a real producer writes, which msgfilter must read. The client's
own code does all the reading and writing on its side.
"""

from __future__ import annotations

import logging

import pytest

from msgfilter.batch import BatchDecision
from msgfilter.pulsar import (
    BatchMessage,
    BatchMetadata,
    decode_batch,
    encode_batch,
    rebatch_entry,
)

from pulsar_standin import StandIn

pulsar = pytest.importorskip("pulsar")

TOPIC = "persistent://public/default/msgfilter-test"
CODECS = ("NONE", "LZ4", "ZLIB", "ZSTD", "SNAPPY")
MESSAGES = tuple(
    BatchMessage(
        b"message %d" % i,
        (("n", str(i)), ("n_jsmtype", "int"), ("region", "eu" if i % 2 else "us")),
        partition_key=f"key-{i}",
        event_time=1_700_000_000_000 + i,
        sequence_id=10 + i,
    )
    for i in range(4)
)
CHECKSUM_MISMATCH = 2  # CommandAck.ValidationError


def _client(url: str) -> object:
    logger = logging.getLogger("pulsar-client")
    logger.setLevel(logging.CRITICAL)
    return pulsar.Client(url, operation_timeout_seconds=10, logger=logger)


def _consume(entries: list[bytes]) -> tuple[list[object], StandIn]:
    """What a real consumer receives from a broker storing `entries`."""
    with StandIn(entries) as broker:
        client = _client(broker.url)
        consumer = client.subscribe(TOPIC, "sub")  # type: ignore[attr-defined]
        received = []
        while True:
            try:
                message = consumer.receive(timeout_millis=2000)
            except pulsar.Timeout:
                break
            received.append(message)
            consumer.acknowledge(message)
        consumer.close()
        client.close()  # type: ignore[attr-defined]
    assert broker.errors == []
    return received, broker


def _seen(message: object) -> tuple[object, ...]:
    m: object = message
    ident = m.message_id()  # type: ignore[attr-defined]
    return (
        (ident.entry_id(), ident.batch_index()),
        m.data(),  # type: ignore[attr-defined]
        m.properties(),  # type: ignore[attr-defined]
        m.partition_key(),  # type: ignore[attr-defined]
        m.event_timestamp(),  # type: ignore[attr-defined]
    )


def _expected(entry_id: int, messages: tuple[BatchMessage, ...]) -> list[tuple[object, ...]]:
    return [
        ((entry_id, i), m.payload, dict(m.properties), m.partition_key or "", m.event_time or 0)
        for i, m in enumerate(messages)
    ]


def test_the_client_consumes_what_we_write_with_every_codec() -> None:
    meta = BatchMetadata("msgfilter", 10, 1_700_000_000_999, (("app", "test"),))
    entries = [encode_batch(meta, MESSAGES, codec) for codec in CODECS]
    received, broker = _consume(entries)
    expected = [seen for i in range(len(CODECS)) for seen in _expected(i, MESSAGES)]
    assert [_seen(m) for m in received] == expected
    assert {m.publish_timestamp() for m in received} == {1_700_000_000_999}  # type: ignore[attr-defined]
    assert not any(a.HasField("validation_error") for a in broker.acks)


def test_the_client_checks_our_checksum_and_reads_the_non_batched_format() -> None:
    meta = BatchMetadata("msgfilter", 10, 1_700_000_000_999)
    damaged = bytearray(encode_batch(meta, MESSAGES, "LZ4"))
    damaged[-1] ^= 0x01
    single_meta = BatchMetadata(
        "msgfilter", 20, 1_700_000_000_999, (("a", "1"),), batched=False,
        partition_key="solo-key", event_time=5,
    )
    single = encode_batch(single_meta, [BatchMessage(b"solo")], "ZLIB")
    received, broker = _consume([bytes(damaged), single])
    # The damaged entry is discarded as a checksum mismatch; the single message arrives.
    assert [_seen(m) for m in received] == [((1, -1), b"solo", {"a": "1"}, "solo-key", 5)]
    assert [(a.message_id[0].entryId, a.validation_error) for a in broker.acks
            if a.HasField("validation_error")] == [(0, CHECKSUM_MISMATCH)]


def test_compacted_out_slots_as_the_cpp_client_reads_them() -> None:
    meta = BatchMetadata("msgfilter", 10, 1_700_000_000_999, compression="LZ4")
    marked = rebatch_entry(encode_batch(meta, MESSAGES), [0, 3], mark_compacted_out=True)
    assert marked.data is not None
    received, _ = _consume([marked.data])
    # Kept messages keep their batch indexes. The C++ client 3.13 does not skip
    # compacted-out slots (the Java client does): it hands them out as empty messages.
    seen = [_seen(m) for m in received]
    assert seen[0] == _expected(0, MESSAGES)[0] and seen[3] == _expected(0, MESSAGES)[3]
    assert [s[1] for s in seen[1:3]] == [b"", b""]


def _produce(codec: str, *, batching: bool) -> list[bytes]:
    """The entries a real producer sends for MESSAGES (stored as the broker would)."""
    with StandIn() as broker:
        client = _client(broker.url)
        producer = client.create_producer(  # type: ignore[attr-defined]
            TOPIC,
            producer_name="cpp-producer",
            batching_enabled=batching,
            batching_max_messages=len(MESSAGES),
            batching_max_publish_delay_ms=100,
            compression_type=getattr(pulsar.CompressionType, "ZLib" if codec == "ZLIB" else codec),
        )
        for m in MESSAGES:
            producer.send_async(
                m.payload, None, properties=dict(m.properties), partition_key=m.partition_key,
                event_timestamp=m.event_time,
            )
        producer.flush()
        producer.close()
        client.close()  # type: ignore[attr-defined]
    assert broker.errors == []
    return broker.received


@pytest.mark.parametrize("codec", CODECS)
def test_we_read_what_the_client_writes(codec: str) -> None:
    entries = _produce(codec, batching=True)
    assert len(entries) == 1
    meta, messages = decode_batch(entries[0])
    assert (meta.producer_name, meta.sequence_id, meta.compression) == ("cpp-producer", 0, codec)
    assert meta.batched and meta.partition_key == "key-0"  # the first message's key
    assert [dataclass_view(m) for m in messages] == [
        (m.payload, m.properties, m.partition_key, m.event_time) for m in MESSAGES
    ]
    assert [m.sequence_id for m in messages] == [0, 1, 2, 3]
    if codec in ("NONE", "ZLIB"):
        # Protobuf's field order and zlib level 6 on both sides: the very same bytes. (LZ4
        # and ZSTD are too with pulsar-client 3.13 and cramjam 2.14; SNAPPY is not: the
        # compressors differ. Only these two are stable across versions.)
        assert encode_batch(meta, messages) == entries[0]


def dataclass_view(m: BatchMessage) -> tuple[object, ...]:
    return (m.payload, m.properties, m.partition_key, m.event_time)


def test_we_read_the_clients_non_batched_entries() -> None:
    entries = _produce("LZ4", batching=False)
    decoded = [decode_batch(e) for e in entries]
    assert all(not meta.batched for meta, _ in decoded)
    assert [(ms[0].payload, meta.properties, meta.partition_key, meta.event_time)
            for meta, ms in decoded] == [
        (m.payload, m.properties, m.partition_key, m.event_time) for m in MESSAGES
    ]


def test_written_by_the_client_filtered_here_read_by_the_client() -> None:
    (entry,) = _produce("ZSTD", batching=True)
    messages = decode_batch(entry)[1]
    keep = BatchDecision.from_flags(m.property_map()["region"] == "eu" for m in messages)
    rewritten = rebatch_entry(entry, keep)
    assert rewritten.kept == (1, 3) and rewritten.acknowledge == (0, 2)
    assert rewritten.data is not None
    received, _ = _consume([rewritten.data])
    assert [m.data() for m in received] == [MESSAGES[1].payload, MESSAGES[3].payload]  # type: ignore[attr-defined]
