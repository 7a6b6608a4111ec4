"""topics_hash: Pulsar's TopicList.calculateHash, Java string order, SortedTopicSet."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from msgfilter.topics import SortedTopicSet, java_sort_key, java_sorted, topics_hash
from msgfilter.topics.hashing import crc32c, hash_hex, java_utf8, sorted_topics_hash


def reference_crc32c(data: bytes) -> int:
    """Bit-by-bit CRC-32C (reflected polynomial 0x82F63B78, init and xorout 0xFFFFFFFF)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


# --- the spec's test vectors (spec/brokers.md B.3, checked against java.util.zip.CRC32C) ---


def test_crc32c_check_value() -> None:
    assert crc32c(b"123456789") == 0xE3069283
    assert hash_hex(crc32c(b"123456789")) == "839206e3"


def test_empty_list() -> None:
    assert topics_hash([]) == "00000000"


def test_single_topic() -> None:
    assert topics_hash(["persistent://tenant/ns/topic1"]) == "fd59a01d"


@pytest.mark.parametrize(
    "names",
    [
        [
            "persistent://my-property/my-ns/pattern-topic-1",
            "persistent://my-property/my-ns/pattern-topic-2",
        ],
        [
            "persistent://my-property/my-ns/pattern-topic-2",
            "persistent://my-property/my-ns/pattern-topic-1",
        ],
    ],
)
def test_two_topics_in_any_order(names: list[str]) -> None:
    assert topics_hash(names) == "a70f7073"


def test_pulsar_calculate_hash_properties() -> None:
    # TopicListTest.testCalculateHash: order does not matter, a different list differs.
    t1, t2, t3 = (f"persistent://my-property/my-ns/pattern-topic-{i}" for i in (1, 2, 3))
    assert topics_hash([t3, t2, t1]) == topics_hash([t1, t3, t2])
    assert topics_hash([t1, t2]) != topics_hash([t1, t2, t3])


def test_hash_is_crc_of_sorted_comma_joined_utf8_little_endian() -> None:
    names = ["persistent://t/ns/b", "persistent://t/ns/é", "persistent://t/ns/a"]
    data = ",".join(sorted(names)).encode("utf-8")
    assert topics_hash(names) == reference_crc32c(data).to_bytes(4, "little").hex()


@given(st.binary(max_size=300))
def test_crc32c_agrees_with_bitwise_reference(data: bytes) -> None:
    assert crc32c(data) == reference_crc32c(data)


@given(st.binary(max_size=100), st.binary(max_size=100))
def test_crc32c_continues_from_a_previous_value(head: bytes, tail: bytes) -> None:
    assert crc32c(tail, crc32c(head)) == crc32c(head + tail)


# --- Java String order ---------------------------------------------------------------


def test_java_order_puts_astral_characters_before_the_private_use_area() -> None:
    astral, high_bmp = "t\U0001f600", "t\uffff"
    # Python compares code points: U+FFFF < U+1F600. Java compares UTF-16 units: D83D < FFFF.
    assert sorted([astral, high_bmp]) == [high_bmp, astral]
    assert java_sorted([high_bmp, astral]) == [astral, high_bmp]
    assert topics_hash([astral, high_bmp]) == hash_hex(
        reference_crc32c(f"{astral},{high_bmp}".encode())
    )


def utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


@given(st.lists(st.text(max_size=6)))
def test_java_sort_key_orders_like_utf16_code_units(names: list[str]) -> None:
    assert sorted(names, key=java_sort_key) == sorted(names, key=utf16_key)
    assert java_sorted(names) == sorted(names, key=utf16_key)


def test_java_sort_key_is_the_name_itself_for_bmp_text() -> None:
    name = "persistent://t/ns/héllo"
    assert java_sort_key(name) is name


def test_java_utf8_replaces_lone_surrogates_like_java() -> None:
    assert java_utf8("a\ud800b") == b"a?b"
    # A pair held as two code points is one character to Java: a 4-byte sequence.
    assert java_utf8("\ud83d\ude00") == "\U0001f600".encode()


# --- SortedTopicSet ------------------------------------------------------------------

NAME_POOL = [
    *(f"persistent://t/ns/topic-{i}" for i in range(40)),
    "persistent://t/ns/\U0001f600",
    "persistent://t/ns/\uffff",
    "persistent://t/ns/é",
    "non-persistent://t/ns/x-partition-1",
]


@settings(max_examples=200)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(NAME_POOL)), max_size=60))
def test_sorted_set_matches_a_plain_set(operations: list[tuple[bool, str]]) -> None:
    tracked = SortedTopicSet()
    model: set[str] = set()
    for add, name in operations:
        if add:
            assert tracked.add(name) == (name not in model)
            model.add(name)
        else:
            assert tracked.discard(name) == (name in model)
            model.discard(name)
        assert tracked.hash == topics_hash(model)
    assert list(tracked) == java_sorted(model)
    assert tracked.to_tuple() == tuple(java_sorted(model))
    assert len(tracked) == len(model)
    assert all(name in tracked for name in model)
    for prefix in ("persistent://t/ns/topic-1", "persistent://t/ns/", "non-", "zzz", ""):
        expected = [name for name in java_sorted(model) if name.startswith(prefix)]
        assert list(tracked.with_prefix(prefix)) == expected


def test_sorted_set_across_many_chunks() -> None:
    rng = random.Random(5)
    names = [f"persistent://t/ns/{rng.random():.12f}" for _ in range(3000)]
    tracked = SortedTopicSet(names[:1000])
    for name in names[1000:]:
        tracked.add(name)
    assert tracked.hash == topics_hash(names)
    removed = rng.sample(names, 2000)
    for name in removed:
        tracked.discard(name)
        if len(tracked) % 250 == 0:
            assert tracked.hash == topics_hash(set(names) - set(removed[: removed.index(name) + 1]))
    left = set(names) - set(removed)
    assert tracked.hash == topics_hash(left)
    assert list(tracked) == java_sorted(left)
    assert list(tracked.with_prefix("persistent://t/ns/0.1")) == [
        name for name in java_sorted(left) if name.startswith("persistent://t/ns/0.1")
    ]


def test_sorted_topics_hash_skips_the_sort() -> None:
    names = java_sorted(["persistent://t/ns/b", "persistent://t/ns/a"])
    assert sorted_topics_hash(names) == topics_hash(reversed(names))
