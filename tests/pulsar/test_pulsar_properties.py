"""The properties of decoded messages: read out of their metadata bytes when asked for,
repeated keys kept in order (the last value wins in a mapping, as in Pulsar's clients,
whose MessageImpl puts each KeyValue into a map in stored order), and the broker's
`Message` the same as `BatchMessage.to_message()`."""

from __future__ import annotations

import dataclasses
import pickle
import struct

import crc32c
import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

import msgfilter
from msgfilter import Message
from msgfilter.broker import FilterContext, FilterResult, JmsSelectorFilter, Position
from msgfilter.pulsar import (
    BatchMessage,
    BatchMetadata,
    decide_entry,
    decode_batch,
    encode_batch,
    read_entry,
)
from msgfilter.pulsar import pulsar_entry_pb2 as pb

META = BatchMetadata("producer-a", 1, 1_700_000_000_000)
REPEATED = BatchMessage(
    b"payload",
    (("a", "1"), ("b", "x"), ("a", "3"), ("a_jsmtype", "int")),
    partition_key="k",
    sequence_id=9,
)


def test_repeated_keys_keep_their_order_and_the_last_value_wins() -> None:
    entry = encode_batch(META, [REPEATED, BatchMessage(b"", (("a", "7"),))], "LZ4")
    _meta, (first, _second) = decode_batch(entry)
    assert first.properties == REPEATED.properties  # every pair, in stored order
    assert first.property_map() == {"a": "3", "b": "x", "a_jsmtype": "int"}
    stored = read_entry(Position(1, 2), entry)
    assert stored.entry is not None
    message = stored.entry.messages[0]
    assert message == first.to_message() == REPEATED.to_message()
    assert message.properties == {"a": "3", "b": "x", "a_jsmtype": "int"}
    assert msgfilter.compile("a = '3'").matches(message)
    # pulsar-jms's filter decodes the last value by its companion.
    for selector, result in (("a = 3", FilterResult.ACCEPT), ("a = 1", FilterResult.REJECT)):
        context = FilterContext("s", {"jms.filtering": "true", "jms.selector": selector})
        decision = decide_entry(JmsSelectorFilter(), stored, context)
        assert decision.message_results[0] is result
    assert stored.entry.messages[1].properties == {"a": "7"}
    # Read, then written back without change: the same bytes.
    assert encode_batch(stored.metadata, stored.messages) == entry


def test_decoded_properties_are_read_when_first_asked_for() -> None:
    entry = encode_batch(META, [REPEATED], "NONE")
    (decoded,) = decode_batch(entry)[1]
    # Everything a dataclass does reads them: equality, hashing, repr, copies, pickles.
    assert decoded == REPEATED and hash(decoded) == hash(REPEATED)
    assert repr(decoded) == repr(REPEATED)
    (fresh,) = decode_batch(entry)[1]
    assert pickle.loads(pickle.dumps(fresh)) == REPEATED
    (fresh,) = decode_batch(entry)[1]
    changed = dataclasses.replace(fresh, payload=b"new")
    assert changed.properties == REPEATED.properties and changed.raw_metadata is None
    (fresh,) = decode_batch(entry)[1]
    assert fresh.properties is fresh.properties  # parsed once, then kept
    with pytest.raises(AttributeError, match="no_such_field"):
        fresh.no_such_field  # type: ignore[attr-defined]  # noqa: B018


def _single(properties: list[tuple[bytes, bytes]], payload_size: int) -> bytes:
    # A SingleMessageMetadata written field by field, so that a key may be any bytes.
    out = b""
    for key, value in properties:
        body = b"\x0a" + bytes([len(key)]) + key + b"\x12" + bytes([len(value)]) + value
        out += b"\x0a" + bytes([len(body)]) + body
    return out + b"\x18" + bytes([payload_size])


def _entry_of(raw: bytes, payload: bytes) -> bytes:
    metadata = pb.MessageMetadata(
        producer_name="p", sequence_id=1, publish_time=2, num_messages_in_batch=1
    ).SerializeToString()
    body = (struct.pack(">I", len(metadata)) + metadata + struct.pack(">I", len(raw)) + raw
            + payload)
    return b"\x0e\x01" + struct.pack(">I", crc32c.crc32c(body)) + body


@pytest.mark.parametrize(
    ("pairs", "key", "expected"),
    [
        ([(b"ok", b"1"), (b"k\xff", b"v")], None, {"ok": "1", "k\ufffd": "v"}),
        ([(b"ok", b"1\xe2\x82"), (b"a", b"2")], None, {"ok": "1\ufffd", "a": "2"}),
        ([(b"ok", b"1")], b"g\xff\xfe", {"ok": "1", "JMSXGroupID": "g\ufffd\ufffd",
                                         "KEYS": "g\ufffd\ufffd"}),
    ],
)
def test_text_that_is_not_utf8_reads_with_replacement_characters(
    pairs: list[tuple[bytes, bytes]], key: bytes | None, expected: dict[str, str]
) -> None:
    # protobuf gives a proto2 string that is not UTF-8 as bytes; Pulsar's Java classes
    # read it with U+FFFD where it does not decode, and so does a filter here (the
    # stored message's bytes stay as they are).
    raw = _single(pairs, 2)
    if key is not None:
        raw += b"\x12" + bytes([len(key)]) + key
    entry = _entry_of(raw, b"hi")
    (decoded,) = decode_batch(entry)[1]
    stored = read_entry(Position(1, 2), entry)
    assert stored.entry is not None
    assert dict(stored.entry.messages[0].view) == expected
    assert stored.entry.messages[0] == decoded.to_message()
    assert decoded.payload == b"hi" and decoded.raw_metadata == raw
    f = JmsSelectorFilter()
    ctx = FilterContext("t", {"jms.filtering": "true", "jms.selector": "ok LIKE '1%'"})
    assert decide_entry(f, stored, ctx).result is FilterResult.ACCEPT


def test_the_view_is_singlemessagemetadata_with_a_map() -> None:
    # Same field numbers and types as SingleMessageMetadata, the properties a map whose
    # entry is KeyValue's layout (key = 1, value = 2, both strings).
    single = {f.name: (f.number, f.type) for f in pb.SingleMessageMetadata.DESCRIPTOR.fields}
    view = {f.name: (f.number, f.type) for f in pb.SingleMessageMetadataView.DESCRIPTOR.fields}
    assert view == single
    entry = pb.SingleMessageMetadataView.DESCRIPTOR.fields_by_name["properties"].message_type
    assert entry.GetOptions().map_entry
    assert {f.name: (f.number, f.type) for f in entry.fields} == {
        f.name: (f.number, f.type) for f in pb.KeyValue.DESCRIPTOR.fields
    }


def test_a_stored_entrys_messages_are_plain_messages() -> None:
    # The broker's Message of a decoded message makes its read-only views when first
    # read; it is the Message a constructor makes, in every respect a caller can see.
    entry = encode_batch(META, [REPEATED], "NONE")
    stored = read_entry(Position(1, 2), entry)
    assert stored.entry is not None
    built = Message(
        {"a": "3", "b": "x", "a_jsmtype": "int"},
        {"JMSXGroupID": "k", "JMSXGroupSeq": "9"},
        keys=("k",),
    )
    (message,) = read_entry(Position(1, 2), entry).entry.messages  # type: ignore[union-attr]
    assert message == built and "JMSXGroupSeq" in repr(message)
    (message,) = read_entry(Position(1, 2), entry).entry.messages  # type: ignore[union-attr]
    assert dataclasses.replace(message, tags="t").view["TAGS"] == "t"
    (message,) = read_entry(Position(1, 2), entry).entry.messages  # type: ignore[union-attr]
    assert message.view == built.view and message.view is message.view
    assert message.get("KEYS") == "k" and message.headers == built.headers
    with pytest.raises(AttributeError, match="no_such_field"):
        message.no_such_field  # type: ignore[attr-defined]  # noqa: B018



def _parsed(cls: type, raw: bytes) -> tuple[object, ...]:
    try:
        message = cls.FromString(raw)  # type: ignore[attr-defined]
    except DecodeError:
        return ("does not parse",)
    return (message.HasField("payload_size"), message.payload_size)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.text(max_size=4), st.text(max_size=4)), max_size=4),
    st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), min_size=1, max_size=4),
)
def test_the_view_parses_exactly_what_the_message_parses(
    properties: list[tuple[str, str]], damage: list[tuple[int, int]]
) -> None:
    # The decoder walks a batch through the view and parses the full message only when
    # the pairs are read: whatever bytes one parses, the other must (same payload_size).
    raw = bytearray(pb.SingleMessageMetadata(
        properties=[pb.KeyValue(key=k, value=v) for k, v in properties],
        partition_key="k", payload_size=3, sequence_id=5,
    ).SerializeToString())
    for at, value in damage:
        raw[at % len(raw)] = value
    data = bytes(raw)
    assert _parsed(pb.SingleMessageMetadataView, data) == _parsed(pb.SingleMessageMetadata, data)
