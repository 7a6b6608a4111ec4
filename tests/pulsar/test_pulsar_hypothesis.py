"""msgfilter.pulsar, by property: round trips for every codec; damaged bytes never crash
and never decode to other messages under a valid checksum."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from msgfilter.pulsar import (
    BatchMessage,
    EncryptedEntryError,
    EntryFormatError,
    decode_batch,
    encode_batch,
    rebatch_entry,
)

from pulsar_strategies import CODECS, SETTINGS, batches, messages, metadata


@SETTINGS
@given(batches())
def test_decode_inverts_encode_for_every_codec(
    batch: tuple[object, tuple[BatchMessage, ...]],
) -> None:
    meta, msgs = batch
    entry = encode_batch(meta, msgs)  # type: ignore[arg-type]
    assert decode_batch(entry) == (meta, msgs)
    # ... and what was read is written back byte for byte.
    assert encode_batch(*decode_batch(entry)) == entry


@SETTINGS
@given(st.sampled_from(CODECS).flatmap(lambda c: metadata(c, batched=False)), messages())
def test_non_batched_round_trip(meta: object, message: BatchMessage) -> None:
    meta = dataclasses.replace(meta)  # type: ignore[type-var]
    single = BatchMessage(
        message.payload,
        meta.properties,  # type: ignore[attr-defined]
        partition_key=meta.partition_key,  # type: ignore[attr-defined]
        partition_key_b64_encoded=meta.partition_key_b64_encoded,  # type: ignore[attr-defined]
        ordering_key=meta.ordering_key,  # type: ignore[attr-defined]
        event_time=meta.event_time,  # type: ignore[attr-defined]
        sequence_id=meta.sequence_id,  # type: ignore[attr-defined]
        null_value=message.null_value,
        null_partition_key=message.null_partition_key,
    )
    assert decode_batch(encode_batch(meta, [single])) == (meta, (single,))  # type: ignore[arg-type]


def _decode_or_error(data: bytes) -> object:
    try:
        return decode_batch(data)
    except (EntryFormatError, EncryptedEntryError):
        return None


@SETTINGS
@given(batches(), st.data())
def test_damaged_entries_raise_or_decode_the_original(
    batch: tuple[object, tuple[BatchMessage, ...]], data: st.DataObject
) -> None:
    meta, msgs = batch
    entry = encode_batch(meta, msgs)  # type: ignore[arg-type]
    damaged = bytearray(entry)
    how = data.draw(st.sampled_from(["flip", "truncate", "insert", "delete"]))
    at = data.draw(st.integers(0, len(entry) - 1))
    if how == "flip":
        damaged[at] ^= data.draw(st.integers(1, 255))
    elif how == "truncate":
        del damaged[at:]
    elif how == "insert":
        damaged.insert(at, data.draw(st.integers(0, 255)))
    else:
        del damaged[at]
    # The checksum covers everything after it: any change is caught.
    assert _decode_or_error(bytes(damaged)) is None


@SETTINGS
@given(batches(), st.data())
def test_damage_without_a_checksum_never_crashes(
    batch: tuple[object, tuple[BatchMessage, ...]], data: st.DataObject
) -> None:
    meta, msgs = batch
    damaged = bytearray(encode_batch(meta, msgs, checksum=False))  # type: ignore[arg-type]
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(damaged) - 1))
        damaged[at] = data.draw(st.integers(0, 255))
    result = _decode_or_error(bytes(damaged))
    if result is not None:
        _meta, again = result  # type: ignore[misc]
        assert isinstance(again, tuple) and all(isinstance(m, BatchMessage) for m in again)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(data: bytes) -> None:
    _decode_or_error(data)
    _decode_or_error(b"\x0e\x01" + data)


@SETTINGS
@given(batches(), st.data(), st.booleans())
def test_rebatch_keeps_exactly_the_kept_messages(
    batch: tuple[object, tuple[BatchMessage, ...]], data: st.DataObject, mark: bool
) -> None:
    meta, msgs = batch
    kept = data.draw(st.sets(st.integers(0, max(len(msgs) - 1, 0))).map(sorted)) if msgs else []
    result = rebatch_entry(encode_batch(meta, msgs), kept, mark_compacted_out=mark)  # type: ignore[arg-type]
    assert result.kept == tuple(kept)
    assert sorted(result.kept + result.dropped) == list(range(len(msgs)))
    if not kept:
        assert result.data is None
        return
    assert result.data is not None
    new_meta, new = decode_batch(result.data)
    assert new_meta == meta
    if mark:
        assert len(new) == len(msgs)
        for i, m in enumerate(new):
            assert m == msgs[i] if i in kept else m == BatchMessage(compacted_out=True)
    else:
        assert new == tuple(msgs[i] for i in kept)
