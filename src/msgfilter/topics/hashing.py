"""`topics_hash`: Pulsar's `TopicList.calculateHash`, byte for byte.

Recipe (spec/brokers.md B.3): sort the names in Java `String` order (UTF-16 code units), join
them with `,`, encode as UTF-8, take the standard CRC-32C, and print its 4 bytes little-endian
as lowercase hex (Guava's `HashCode.toString()`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from msgfilter.java import utf8_bytes, utf16_key


def _load_crc32c() -> Callable[[bytes, int], int] | None:
    try:
        from crc32c import crc32c as function
    except ImportError:  # pragma: no cover - exercised only without the optional extra
        return None
    return function


_crc32c = _load_crc32c()

def crc32c(data: bytes, value: int = 0) -> int:
    """CRC-32C (Castagnoli) of `data`, continuing from a previous result `value`."""
    if _crc32c is None:  # pragma: no cover - exercised only without the optional extra
        raise ImportError(
            "topic-list hashes need the 'crc32c' package: pip install 'msgfilter[topics]'"
        )
    return _crc32c(data, value)


def hash_hex(crc: int) -> str:
    """Guava's `HashCode.toString()` of a 32-bit hash: its bytes little-endian, in hex."""
    return crc.to_bytes(4, "little").hex()


#: A key whose code-point order is Java's `String.compareTo` order (msgfilter.java).
java_sort_key = utf16_key
#: `text.getBytes(UTF_8)` as Java does it (the bytes a topic-list hash covers).
java_utf8 = utf8_bytes


def java_sorted(names: Iterable[str]) -> list[str]:
    """The names in Java `String` order."""
    items = list(names)
    if all(name.isascii() for name in items):
        items.sort()
    else:
        items.sort(key=java_sort_key)
    return items


def topics_hash(names: Iterable[str]) -> str:
    """The hash Pulsar puts in `topics_hash` for this list of topic names.

    >>> topics_hash([])
    '00000000'
    >>> topics_hash(["persistent://tenant/ns/topic1"])
    'fd59a01d'
    """
    return hash_hex(crc32c(java_utf8(",".join(java_sorted(names)))))


def sorted_topics_hash(names: Iterable[str]) -> str:
    """`topics_hash` of names already in Java order (skips the sort)."""
    return hash_hex(crc32c(java_utf8(",".join(names))))
