"""msgfilter.pulsar: the entry layout, codecs, errors and caps, by example."""

from __future__ import annotations

import dataclasses
import struct
import zlib

import crc32c
import pytest

from msgfilter.pulsar import (
    BatchMessage,
    BatchMetadata,
    EncryptedEntryError,
    EntryFormatError,
    decode_batch,
    decode_metadata,
    encode_batch,
    encode_payload,
)
from msgfilter.pulsar import pulsar_entry_pb2 as pb

CODECS = ("NONE", "LZ4", "ZLIB", "ZSTD", "SNAPPY")
META = BatchMetadata("producer-a", 41, 1_700_000_000_000, (("app", "shop"),))
MESSAGES = (
    BatchMessage(b'{"n":1}', (("color", "red"), ("size", "3"), ("size_jsmtype", "int")),
                 partition_key="k1", sequence_id=41, event_time=5),
    BatchMessage(b"", (("color", "blue"),), null_value=True, sequence_id=42),
    BatchMessage(b"x" * 300, (), ordering_key=b"\x00o", sequence_id=43),
)


def _u32(value: int) -> bytes:
    return struct.pack(">I", value)


def _entry(metadata: pb.MessageMetadata, payload: bytes, *, checksum: bool = True) -> bytes:
    raw = metadata.SerializeToString()
    body = _u32(len(raw)) + raw + payload
    return b"\x0e\x01" + _u32(crc32c.crc32c(body)) + body if checksum else body


def _meta_pb(**fields: object) -> pb.MessageMetadata:
    return pb.MessageMetadata(producer_name="p", sequence_id=1, publish_time=2, **fields)


@pytest.mark.parametrize("codec", CODECS)
def test_round_trip_and_re_encoding_is_byte_exact(codec: str) -> None:
    meta = dataclasses.replace(META, compression=codec)
    entry = encode_batch(meta, MESSAGES)
    assert decode_batch(entry) == (meta, MESSAGES)
    assert encode_batch(*decode_batch(entry)) == entry


def test_the_layout_is_pulsars() -> None:
    entry = encode_batch(META, MESSAGES[:1], "NONE")
    assert entry[:2] == b"\x0e\x01"
    assert struct.unpack(">I", entry[2:6])[0] == crc32c.crc32c(entry[6:])
    size = struct.unpack(">I", entry[6:10])[0]
    m = pb.MessageMetadata.FromString(entry[10 : 10 + size])
    assert (m.producer_name, m.sequence_id, m.num_messages_in_batch) == ("producer-a", 41, 1)
    # NONE: neither compression nor uncompressed_size is written (as the C++ client).
    assert not m.HasField("compression") and not m.HasField("uncompressed_size")
    payload = entry[10 + size :]
    single_size = struct.unpack(">I", payload[:4])[0]
    s = pb.SingleMessageMetadata.FromString(payload[4 : 4 + single_size])
    assert s.payload_size == 7 and payload[4 + single_size :] == b'{"n":1}'
    assert (s.properties[0].key, s.properties[0].value) == ("color", "red")


def test_no_checksum_and_broker_entry_metadata_are_read() -> None:
    plain = encode_batch(META, MESSAGES, checksum=False)
    assert plain[:2] != b"\x0e\x01"
    assert decode_batch(plain) == (META, MESSAGES)
    broker = pb.BrokerEntryMetadata(broker_timestamp=9, index=100).SerializeToString()
    prefixed = b"\x0e\x02" + _u32(len(broker)) + broker + encode_batch(META, MESSAGES)
    assert decode_batch(prefixed) == (META, MESSAGES)


@pytest.mark.parametrize("codec", CODECS[1:])
def test_compressed_payloads_use_pulsars_framing(codec: str) -> None:
    entry = encode_batch(META, MESSAGES, codec, checksum=False)
    size = struct.unpack(">I", entry[:4])[0]
    m = pb.MessageMetadata.FromString(entry[4 : 4 + size])
    body = entry[4 + size :]
    plain = encode_payload(MESSAGES)
    assert m.uncompressed_size == len(plain)
    if codec == "ZLIB":
        assert body[:2] == b"\x78\x9c" and zlib.decompress(body) == plain
    elif codec == "ZSTD":
        assert body[:4] == b"\x28\xb5\x2f\xfd"
    elif codec == "SNAPPY":
        assert body[0] == len(plain) & 0x7F | 0x80  # the varint length preamble
    elif codec == "LZ4":
        assert body[:4] != b"\x04\x22\x4d\x18"  # no LZ4 frame magic: a raw block


def test_java_zlib_stream_without_final_block() -> None:
    # Java's Deflater + SYNC_FLUSH without finish(): no final block, no Adler-32.
    plain = encode_payload(MESSAGES)
    deflater = zlib.compressobj(6)
    body = deflater.compress(plain) + deflater.flush(zlib.Z_SYNC_FLUSH)
    assert body.endswith(b"\x00\x00\xff\xff")
    m = _meta_pb(compression=2, uncompressed_size=len(plain), num_messages_in_batch=3)
    assert decode_batch(_entry(m, body))[1] == MESSAGES


def test_non_batched_entry() -> None:
    m = _meta_pb(properties=[pb.KeyValue(key="a", value="1")], partition_key="pk", event_time=3)
    meta, messages = decode_batch(_entry(m, b"payload"))
    assert not meta.batched
    assert messages == (
        BatchMessage(b"payload", (("a", "1"),), partition_key="pk", event_time=3, sequence_id=1),
    )
    assert encode_batch(meta, messages) == _entry(m, b"payload")
    with pytest.raises(ValueError, match="exactly one message"):
        encode_batch(meta, messages * 2)


def test_unknown_fields_are_kept() -> None:
    unknown = b"\x90\x03\x07"  # field 50, varint 7: a field newer than msgfilter knows
    single = pb.SingleMessageMetadata(payload_size=2, sequence_id=5).SerializeToString()
    payload = _u32(len(single) + 3) + single + unknown + b"hi"
    m = _meta_pb(num_messages_in_batch=1, txnid_most_bits=8)
    entry = _entry(pb.MessageMetadata.FromString(m.SerializeToString() + unknown), payload)
    meta, messages = decode_batch(entry)
    assert messages[0].raw_metadata == single + unknown
    assert encode_batch(meta, messages) == entry
    # A changed entry metadata keeps the fields msgfilter does not model, unknown ones too.
    changed = dataclasses.replace(meta, properties=(("x", "y"),))
    written = encode_batch(changed, messages, checksum=False)
    rewritten = pb.MessageMetadata.FromString(written[4 : -len(payload)])
    assert rewritten.txnid_most_bits == 8
    assert rewritten.SerializeToString().endswith(unknown)
    # A changed message is written from its fields.
    edited = dataclasses.replace(messages[0], payload=b"bye")
    assert decode_batch(encode_batch(meta, [edited]))[1] == (edited,)


def test_explicit_default_fields_are_kept_in_unchanged_messages() -> None:
    single = pb.SingleMessageMetadata(payload_size=0, null_value=False, compacted_out=False)
    raw = single.SerializeToString()
    assert len(raw) > 2  # the explicit falses are on the wire
    payload = _u32(len(raw)) + raw
    entry = _entry(_meta_pb(num_messages_in_batch=1), payload)
    assert encode_batch(*decode_batch(entry)) == entry


def test_encrypted_entries_are_never_decoded() -> None:
    m = _meta_pb(num_messages_in_batch=2, compression=1, uncompressed_size=10)
    m.encryption_keys.add(key="k", value=b"v")
    entry = _entry(m, b"ciphertext, not LZ4")
    with pytest.raises(EncryptedEntryError):
        decode_batch(entry)
    assert decode_metadata(entry).encrypted


def _error(entry: bytes, **kwargs: int) -> EntryFormatError:
    with pytest.raises(EntryFormatError) as caught:
        decode_batch(entry, **kwargs)
    return caught.value


def test_errors_name_what_and_where() -> None:
    entry = encode_batch(META, MESSAGES)
    bad = bytearray(entry)
    bad[-1] ^= 1
    error = _error(bytes(bad))
    assert "checksum mismatch" in error.what and error.offset == 2 and error.where == "entry"
    assert "ends inside the metadata size" in _error(b"\x00\x00").what
    assert "runs past the end" in _error(_u32(100) + b"\x08").what
    assert "does not parse" in _error(_u32(2) + b"\xff\xff").what
    assert "lacks required fields: sequence_id, publish_time" in _error(
        _u32(3) + b"\x0a\x01p"
    ).what
    plain = encode_payload(MESSAGES)
    wrong_count = _error(_entry(_meta_pb(num_messages_in_batch=2), plain))
    assert wrong_count.what == "num_messages_in_batch is 2, but 313 bytes follow message 1"
    assert (wrong_count.offset, wrong_count.where) == (len(plain) - 313, "payload")
    too_many = _error(_entry(_meta_pb(num_messages_in_batch=4), plain))
    assert "message 3 of 4" in too_many.what
    huge = _error(_entry(_meta_pb(num_messages_in_batch=10**6), plain))
    assert "cannot fit" in huge.what
    unknown = _error(_entry(_meta_pb(num_messages_in_batch=3, compression=9), plain))
    assert "unknown compression type 9" in unknown.what
    no_size = _error(_entry(_meta_pb(num_messages_in_batch=3, compression=1), plain))
    assert "without uncompressed_size" in no_size.what
    none_size = _error(_entry(_meta_pb(num_messages_in_batch=3, uncompressed_size=5), plain))
    assert "disagrees" in none_size.what


@pytest.mark.parametrize("codec", CODECS[1:])
def test_declared_sizes_are_checked_and_capped(codec: str) -> None:
    entry = encode_batch(META, MESSAGES, codec, checksum=False)
    size = struct.unpack(">I", entry[:4])[0]
    m = pb.MessageMetadata.FromString(entry[4 : 4 + size])
    body = entry[4 + size :]
    real = m.uncompressed_size
    for declared in (real - 1, real + 1):
        m.uncompressed_size = declared
        assert "uncompressed_size" in _error(_entry(m, body)).what
    m.uncompressed_size = real
    error = _error(_entry(m, body), max_uncompressed_size=real - 1)
    assert f"above the cap of {real - 1}" in error.what


@pytest.mark.parametrize("codec", CODECS[1:])
def test_a_compression_bomb_stops_at_the_cap(codec: str) -> None:
    # 64 MiB of zeros compress to little; declared honestly, it is above a 1 MiB cap, and
    # declared small, decompression stops at the declared size.
    bomb_plain = bytes(64 * 1024 * 1024)
    from msgfilter.pulsar.compression import compress

    body = compress(codec, bomb_plain)
    assert len(body) < 4 * 1024 * 1024
    m = _meta_pb(num_messages_in_batch=1, compression=CODECS.index(codec))
    m.uncompressed_size = len(bomb_plain)
    assert "above the cap" in _error(_entry(m, body), max_uncompressed_size=2**20).what
    m.uncompressed_size = 1000
    assert "uncompressed_size 1000" in _error(_entry(m, body)).what


def test_errors_pickle() -> None:
    import pickle

    error = EntryFormatError("bad", 3, "payload")
    again = pickle.loads(pickle.dumps(error))
    assert (again.what, again.offset, again.where, str(again)) == (
        "bad", 3, "payload", "bad (at byte 3 of the payload)"
    )


def test_to_message_is_what_filters_read() -> None:
    import msgfilter

    message = MESSAGES[0].to_message()
    assert message.properties["color"] == "red"
    assert message.headers == {"JMSXGroupID": "k1", "JMSTimestamp": 5, "JMSXGroupSeq": "41"}
    assert msgfilter.compile("color = 'red'").matches(message)
