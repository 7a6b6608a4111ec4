"""Index snapshots (msgfilter.index.snapshot): a round trip gives the same index, every
kind of damage is a clear SnapshotError naming the file, keys keep their exact types."""

from __future__ import annotations

import io
import json
import struct
import zlib
from collections.abc import Hashable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import msgfilter
from index_workloads import mixed_messages, mixed_selectors
from msgfilter import FilterError, Limits, SubscriptionIndex
from msgfilter.index.snapshot import (
    FORMAT_VERSION,
    MAGIC,
    SnapshotError,
    dumps,
    load,
    loads,
    save,
)

HEADER = struct.Struct(">7sBQI")


def mixed_index() -> SubscriptionIndex:
    idx = SubscriptionIndex(dialect="rocketmq")
    for key, (text, dialect) in enumerate(mixed_selectors(400, 5)):
        idx.add(key, text, dialect=dialect)
    idx.add("default-dialect", "a = 5")                       # rocketmq, the index's default
    idx.add("activemq", "JMSType = 'x' AND n > 3", dialect="activemq")
    idx.add("limited", msgfilter.compile("a IN ('x', 'y')", "jms",
                                         limits=Limits(max_in_items=2, max_depth=9)).text,
            dialect="jms")
    idx.add_filter("limits", msgfilter.compile("b IN ('x')", "jms",
                                               limits=Limits(max_in_items=3, max_depth=7)))
    idx.add("shared-1", "tenant = 't1'", dialect="jms")
    idx.add("spacing", "tenant='t1'", dialect="jms")          # equal filter, other text
    idx.add(("tuple", 1), "tenant = 't1'", dialect="jms")     # a third key of one text
    idx.add("empty", "", dialect="rocketmq-tag")
    idx.add("unicode \u0665 \ud800", "region = '\u00e9\u0665' OR TAGS = 'x'", dialect="jms")
    idx.add(7, "TagA || TagB", dialect="rocketmq-tag")
    idx.remove(3)                                             # a hole in the insertion order
    idx.add(0, "price > 500", dialect="jms")                  # re-added: moved to the end
    return idx


def assert_same(a: SubscriptionIndex, b: SubscriptionIndex) -> None:
    assert b.dialect == a.dialect
    assert list(b.keys()) == list(a.keys())
    for (ka, fa), (kb, fb) in zip(a.items(), b.items(), strict=True):
        assert type(ka) is type(kb) and ka == kb
        assert fa == fb and fa.dialect == fb.dialect and fa.limits == fb.limits
    msgs = [*mixed_messages(200, 400, 6), {"a": "05"}, {"JMSType": "x", "n": 4},
            {"region": "\u00e9\u0665"}]
    assert b.match_many(msgs) == a.match_many(msgs)


def test_round_trip_bytes_path_and_file(tmp_path: Path) -> None:
    idx = mixed_index()
    assert_same(idx, loads(dumps(idx)))
    path = tmp_path / "subs.idx"
    save(idx, path)
    assert_same(idx, load(path))
    save(idx, str(path))                                       # overwrites, atomically
    assert_same(idx, load(str(path)))
    assert [p.name for p in tmp_path.iterdir()] == ["subs.idx"]  # no temporary left
    buffer = io.BytesIO()
    save(idx, buffer)
    buffer.seek(0)
    assert_same(idx, load(buffer))


def test_limits_round_trip() -> None:
    idx = mixed_index()
    again = loads(dumps(idx))
    assert again.filter_of("limits").limits == Limits(max_in_items=3, max_depth=7)
    assert again.filter_of("shared-1").limits == msgfilter.limits.DEFAULT_LIMITS


def test_one_text_travels_once_and_shares_one_filter() -> None:
    idx = SubscriptionIndex()
    for n in range(50):
        idx.add(n, "tenant = 't1' AND price > 5")
    idx.add("other", "tenant = 't2'")
    data = dumps(idx)
    assert data.count(b"tenant = 't1' AND price > 5") == 1
    again = loads(data)
    assert len({id(again.filter_of(n)) for n in range(50)}) == 1
    assert list(again.keys()) == [*range(50), "other"]


def test_empty_index() -> None:
    again = loads(dumps(SubscriptionIndex("pulsar-tag")))
    assert again.dialect == "pulsar-tag" and len(again) == 0


KEYS: list[Hashable] = [
    "s", "", "\ud800", 0, -1, 2**70, -(2**64), 1.5, -0.0, 1e308, float("inf"),
    float("-inf"), True, False, None, b"", b"\x00\xffbytes", (), ("a", 1),
    (1, (2.5, (b"x", None, True)), ""), 1, 1.0,
]


def test_keys_keep_their_exact_types() -> None:
    idx = SubscriptionIndex()
    # 1, 1.0 and True are one dict key: keep one of each equal group.
    distinct: dict[Any, Hashable] = {}
    for key in KEYS:
        distinct.setdefault(key, key)
    for n, key in enumerate(distinct.values()):
        idx.add(key, f"a = {n}")
    again = loads(dumps(idx))
    for (ka, _), (kb, _) in zip(idx.items(), again.items(), strict=True):
        assert repr(ka) == repr(kb) and type(ka) is type(kb)
        if isinstance(ka, tuple):
            assert [type(x) for x in ka] == [type(x) for x in kb]


def test_nan_key() -> None:
    idx = SubscriptionIndex()
    idx.add(float("nan"), "a = 1")
    (key,) = loads(dumps(idx)).keys()
    assert isinstance(key, float) and key != key


class Tenant(str):
    pass


@pytest.mark.parametrize("key", [
    frozenset({1}), Tenant("t1"), ("ok", frozenset()), object(), 3 + 4j, 2**13001,
])
def test_unsupported_key_is_a_type_error(key: Hashable, tmp_path: Path) -> None:
    idx = SubscriptionIndex()
    idx.add("fine", "a = 1")
    idx.add(key, "a = 2")
    path = tmp_path / "subs.idx"
    with pytest.raises(TypeError, match="cannot be saved in a snapshot") as caught:
        save(idx, path)
    assert "str(key)" in str(caught.value) and repr(key)[:20] in str(caught.value)
    assert not path.exists() and list(tmp_path.iterdir()) == []


def damaged(data: bytes) -> list[tuple[str, bytes, str]]:
    """(case, bytes, what the message must say)."""
    _, _, length, crc = HEADER.unpack_from(data)
    body = data[HEADER.size:]
    cases = [
        ("empty", b"", "not a msgfilter index snapshot"),
        ("wrong magic", b"PK\x03\x04" + data[4:], "not a msgfilter index snapshot"),
        ("pickle", b"\x80\x04\x95" + data[3:], "not a msgfilter index snapshot"),
        ("header only", data[:12], "truncated"),
        ("truncated", data[:-7], "truncated"),
        ("trailing", data + b"\n", "unexpected bytes after the body"),
        ("future version", HEADER.pack(MAGIC, FORMAT_VERSION + 1, length, crc) + body,
         "newer msgfilter"),
        ("version 0", HEADER.pack(MAGIC, 0, length, crc) + body, "version 0"),
        ("flipped body byte", data[:40] + bytes([data[40] ^ 0x01]) + data[41:], "checksum"),
        ("flipped crc byte", data[:17] + bytes([data[17] ^ 0x80]) + data[18:], "checksum"),
        ("flipped length byte", data[:15] + bytes([data[15] ^ 0x01]) + data[16:], "bytes"),
    ]
    for label, document in [
        ("not json", b"{not json"),
        ("not utf-8", b'{"dialect": "\xff"}'),
        ("a list", b"[1, 2]"),
        ("member missing", b'{"dialect": "jms", "filters": []}'),
        ("extra member", b'{"dialect": "jms", "filters": [], "order": [], "x": 1}'),
        ("dialect not a string", b'{"dialect": 5, "filters": [], "order": []}'),
        ("unknown dialect", b'{"dialect": "nope", "filters": [], "order": []}'),
        ("bad entry", b'{"dialect": "jms", "filters": [["jms", "a = 1"]], "order": [0]}'),
        ("no keys", b'{"dialect": "jms", "filters": [["jms", "a = 1", null, []]], "order": []}'),
        ("order too short",
         b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [1, 2]]], "order": [0]}'),
        ("order too long",
         b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [1]]], "order": [0, 0]}'),
        ("order out of range",
         b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [1]]], "order": [1]}'),
        ("order not an int",
         b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [1]]], "order": [true]}'),
        ("duplicate key", b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [1]], '
                          b'["jms", "a = 2", null, [1]]], "order": [0, 1]}'),
        ("bad key form",
         b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [{"x": 1}]]], "order": [0]}'),
        ("bad bytes key",
         b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [{"b": "!!"}]]], "order": [0]}'),
        ("bad limits", b'{"dialect": "jms", "filters": [["jms", "a = 1", {"max_depth": -1}, '
                       b'[1]]], "order": [0]}'),
        ("deep key", b'{"dialect": "jms", "filters": [["jms", "a = 1", null, ['
                     + b'{"t": [' * 400 + b']}' * 400 + b"]]], \"order\": [0]}"),
        ("NaN literal",
         b'{"dialect": "jms", "filters": [["jms", "a = 1", null, [NaN]]], "order": [0]}'),
        ("huge int", b'{"dialect": "jms", "filters": [["jms", "a = 1", null, ['
                     + b"9" * 5000 + b']]], "order": [0]}'),
    ]:
        cases.append((f"right CRC, {label}",
                      HEADER.pack(MAGIC, 1, len(document), zlib.crc32(document)) + document,
                      ""))
    return cases


@cache
def mixed_snapshot() -> bytes:
    return dumps(mixed_index())


@pytest.mark.parametrize("case", range(len(damaged(mixed_snapshot()))))
def test_damage_is_a_clear_error(case: int, tmp_path: Path) -> None:
    label, data, says = damaged(mixed_snapshot())[case]
    path = tmp_path / "subs.idx"
    path.write_bytes(data)
    with pytest.raises(SnapshotError) as caught:
        load(path)
    message = str(caught.value)
    assert str(path) in message, (label, message)
    assert says in message, (label, message)
    assert isinstance(caught.value, FilterError) and isinstance(caught.value, ValueError)
    assert caught.value.__cause__ is None


def test_every_single_byte_flip_is_caught() -> None:
    idx = SubscriptionIndex()
    idx.add("k", "a = 1 AND b LIKE 'x%'")
    idx.add(("t", 2), "TagA", dialect="rocketmq-tag")
    data = dumps(idx)
    for at in range(len(data)):
        for bit in (0x01, 0x80):
            broken = data[:at] + bytes([data[at] ^ bit]) + data[at + 1:]
            with pytest.raises(SnapshotError):
                loads(broken, "flipped")


def test_every_truncation_is_caught() -> None:
    idx = SubscriptionIndex()
    idx.add("k", "a = 1")
    data = dumps(idx)
    for end in range(len(data)):
        with pytest.raises(SnapshotError, match="'cut'"):
            loads(data[:end], "cut")


def test_selector_that_no_longer_compiles_names_its_key() -> None:
    document = json.dumps({"dialect": "jms", "filters": [
        ["jms", "a = 1", None, ["fine"]],
        ["jms", "a = = 1", None, [{"t": ["tenant", 7]}, "also"]],
    ], "order": [0, 1, 1]}).encode()
    data = HEADER.pack(MAGIC, 1, len(document), zlib.crc32(document)) + document
    with pytest.raises(SnapshotError, match=r"subscription \('tenant', 7\) \(and 1 more keys\)"):
        loads(data, "old.idx")
    document = json.dumps({"dialect": "jms", "filters": [["klingon", "a = 1", None, ["k"]]],
                           "order": [0]}).encode()
    data = HEADER.pack(MAGIC, 1, len(document), zlib.crc32(document)) + document
    with pytest.raises(SnapshotError, match=r"subscription 'k'.*klingon"):
        loads(data, "old.idx")


def test_unreadable_path_and_text_mode(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match="cannot be read"):
        load(tmp_path / "missing.idx")
    path = tmp_path / "subs.idx"
    save(SubscriptionIndex(), path)
    with open(path, encoding="latin-1") as text, pytest.raises(TypeError, match="binary"):
        load(text)  # type: ignore[arg-type]


def test_the_documented_example_loads() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "subscriptions.md").read_text()
    section = page[page.index("## Snapshots"):]
    document = section[section.index("```json\n") + 8:]
    document = document[:document.index("```")].encode()
    data = HEADER.pack(MAGIC, FORMAT_VERSION, len(document), zlib.crc32(document)) + document
    idx = loads(data)
    assert list(idx.keys()) == ["k1", ("k", 2), "k7"]
    assert idx.filter_of(("k", 2)).limits == Limits(max_depth=9, max_in_items=2)
    assert idx.match({"tenant": "t1", "a": "05"}) == {"k1", "k7", ("k", 2)}
