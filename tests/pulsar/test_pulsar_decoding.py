"""How `read_entry` and `decode_batch` decode a batch, against what they must give: each
Message exactly `pulsar_message`'s, each BatchMessage's fields (read out of its metadata
bytes when first asked for) exactly the ones written, the same errors either way, and
batches longer than one metadata object parses (`codec._PARSES_PER_OBJECT`)."""

from __future__ import annotations

import dataclasses
import random
import struct

import crc32c
import pytest
from hypothesis import given
from hypothesis import strategies as st

from msgfilter import Message
from msgfilter.broker import Position
from msgfilter.jsmtype import pulsar_message
from msgfilter.pulsar import (
    BatchMessage,
    BatchMetadata,
    EntryFormatError,
    decode_batch,
    encode_batch,
    read_entry,
)
from msgfilter.pulsar import pulsar_entry_pb2 as pb
from msgfilter.pulsar.codec import _PARSES_PER_OBJECT

from pulsar_strategies import SETTINGS, batches, text

FIELDS = tuple(f.name for f in dataclasses.fields(BatchMessage) if f.init)
META = BatchMetadata("producer-a", 1, 1_700_000_000_000)
POSITION = Position(3, 4)


def _expected(message: BatchMessage) -> Message:
    return pulsar_message(
        dict(message.properties),
        partition_key=message.partition_key,
        event_time=message.event_time,
        sequence_id=message.sequence_id,
    )


@SETTINGS
@given(batches())
def test_each_message_is_what_pulsar_message_gives(
    batch: tuple[BatchMetadata, tuple[BatchMessage, ...]],
) -> None:
    meta, msgs = batch
    data = encode_batch(meta, msgs)
    stored = read_entry(POSITION, data)
    assert stored.entry is not None
    assert stored.metadata == meta and stored.messages == msgs and stored.size == len(msgs)
    assert len(stored.entry.messages) == len(msgs)
    for got, message in zip(stored.entry.messages, msgs, strict=True):
        expected = _expected(message)
        assert got == expected
        assert got.view == expected.view and list(got.headers.items()) == list(
            expected.headers.items()
        )
        assert got.keys == expected.keys and got.tags is None
        assert got == message.to_message()
    assert decode_batch(data) == (meta, msgs)


@SETTINGS
@given(batches(), st.data())
def test_decoded_fields_are_the_written_ones_whichever_is_read_first(
    batch: tuple[BatchMetadata, tuple[BatchMessage, ...]], data: st.DataObject
) -> None:
    meta, msgs = batch
    entry = encode_batch(meta, msgs)
    for decoded in (decode_batch(entry)[1], read_entry(POSITION, entry).messages):
        for got, message in zip(decoded, msgs, strict=True):
            first = data.draw(st.sampled_from(FIELDS))
            assert getattr(got, first) == getattr(message, first)
            assert all(getattr(got, name) == getattr(message, name) for name in FIELDS)
            assert got.raw_metadata is not None and got == message


_NAMES = st.sampled_from(["a", "b", "KEYS", "TAGS", "JMSXGroupID", "JMSXGroupSeq"]) | text


@SETTINGS
@given(
    st.dictionaries(_NAMES, text, max_size=5),
    st.dictionaries(_NAMES, text | st.integers(), max_size=3),
    st.lists(text, max_size=2).map(tuple),
)
def test_a_readers_message_is_the_constructors(
    props: dict[str, str], heads: dict[str, object], keys: tuple[str, ...]
) -> None:
    # Message.adopt takes the dicts it is given (a stored entry's reader builds them):
    # the same Message as the constructor makes, in every respect (the order of items
    # included), whether or not it shares its view with its properties.
    built = Message(props, heads, keys=keys)
    adopted = Message.adopt(dict(props), dict(heads), keys)
    assert adopted == built
    for name in ("properties", "headers", "view"):
        assert list(getattr(adopted, name).items()) == list(getattr(built, name).items())
    assert (adopted.tags, adopted.keys) == (built.tags, built.keys)


def _long_batch(size: int) -> tuple[BatchMessage, ...]:
    rnd = random.Random(size)
    return tuple(
        BatchMessage(
            b"m%d" % i,
            tuple((f"k{rnd.randrange(40)}", str(i)) for _ in range(rnd.choice([0, 1, 6, 20]))),
            partition_key=rnd.choice([None, "", f"key-{i % 7}"]),
            event_time=rnd.choice([None, 0, i]),
            sequence_id=rnd.choice([None, 0, i]),
            compacted_out=i % 11 == 0,
        )
        for i in range(size)
    )


@pytest.mark.parametrize(
    "size", [_PARSES_PER_OBJECT - 1, _PARSES_PER_OBJECT, 3 * _PARSES_PER_OBJECT + 5]
)
def test_batches_longer_than_one_parse_object(size: int) -> None:
    # Messages with many properties, then none: nothing of one stays in the next.
    msgs = _long_batch(size)
    entry = encode_batch(META, msgs, "LZ4")
    stored = read_entry(POSITION, entry)
    assert stored.entry is not None and stored.messages == msgs
    assert stored.entry.messages == tuple(_expected(m) for m in msgs)
    assert decode_batch(entry)[1] == msgs
    assert encode_batch(stored.metadata, stored.messages) == entry


def _entry_of(raws: list[bytes], payloads: list[bytes]) -> bytes:
    payload = b"".join(
        struct.pack(">I", len(r)) + r + p for r, p in zip(raws, payloads, strict=True)
    )
    meta = pb.MessageMetadata(
        producer_name="p", sequence_id=1, publish_time=2, num_messages_in_batch=len(raws)
    ).SerializeToString()
    body = struct.pack(">I", len(meta)) + meta + payload
    return b"\x0e\x01" + struct.pack(">I", crc32c.crc32c(body)) + body


def _errors(entry: bytes) -> tuple[tuple[str, int, str], ...]:
    found = []
    for decode in (decode_batch, lambda data: read_entry(POSITION, data)):
        with pytest.raises(EntryFormatError) as caught:
            decode(entry)
        found.append((caught.value.what, caught.value.offset, caught.value.where))
    return tuple(found)


def test_both_decoders_report_the_same_error() -> None:
    good = pb.SingleMessageMetadata(payload_size=1, sequence_id=5).SerializeToString()
    index = _PARSES_PER_OBJECT + 2
    for bad, what in (
        (b"\x0a\x05ab", "SingleMessageMetadata does not parse: Error parsing message with type "
                        "'msgfilter.pulsar.SingleMessageMetadataView'"),
        (pb.SingleMessageMetadata(sequence_id=5).SerializePartialToString(), "lacks payload_size"),
    ):
        raws = [good] * index + [bad] + [good]
        entry = _entry_of(raws, [b"x"] * len(raws))
        first, second = _errors(entry)
        assert first == second
        assert first[0].startswith(f"message {index}: ") and what in first[0]
        assert first[1] == index * (4 + len(good) + 1) + 4 and first[2] == "payload"


def test_present_defaults_are_not_absent() -> None:
    # payload_size, partition_key and sequence_id present with their default values.
    raw = pb.SingleMessageMetadata(
        payload_size=0, partition_key="", sequence_id=0, event_time=0
    ).SerializeToString()
    entry = _entry_of([raw], [b""])
    (decoded,) = decode_batch(entry)[1]
    assert decoded == BatchMessage(b"", partition_key="", sequence_id=0, event_time=0)
    stored = read_entry(POSITION, entry)
    assert stored.entry is not None
    assert stored.entry.messages == (
        pulsar_message({}, partition_key="", event_time=0, sequence_id=0),
    )
    assert stored.entry.messages[0].headers == {"JMSXGroupID": "", "JMSXGroupSeq": "0"}
