"""RocketMQ tag hash codes: Java's `String.hashCode` and the tag a message carries.

The broker's consume queue stores, for every message, `tags.hashCode()` of its tag (0 when it
has none) and filters tag subscriptions on that number alone (spec/brokers.md A.1).
"""

from __future__ import annotations

import struct
from functools import lru_cache

from ..message import TAGS_PROPERTY, Message, as_mapping

#: The characters Java's `String.trim()` removes from both ends: every char <= U+0020.
JAVA_WHITESPACE = "".join(map(chr, range(0x21)))

_MASK = 0xFFFFFFFF
_SIGN = 0x80000000
_CHUNK = 64


def java_trim(text: str) -> str:
    """`text` trimmed as Java's `String.trim()` does (chars <= U+0020, not Unicode spaces)."""
    return text.strip(JAVA_WHITESPACE)


def tag_code(tag: str | None) -> int:
    """Java's `String.hashCode()` of `tag`: the code RocketMQ files the tag under.

    Computed over UTF-16 code units (a character above U+FFFF counts as its two
    surrogates) with 32-bit wrap-around, and returned signed, as Java's `int`. A missing
    tag (None) or an empty one has code 0, as the broker gives an untagged message.

        >>> tag_code("TagA"), tag_code("*"), tag_code(None)
        (2598919, 42, 0)

    Raises TypeError for anything that is neither a string nor None.
    """
    if tag is None:
        return 0
    if not isinstance(tag, str):
        raise TypeError(f"a tag is a string, not {type(tag).__name__}")
    if len(tag) <= _CACHED_LENGTH:
        return _cached_code(tag)
    return _java_hash(tag)


#: Codes of tags up to this long are remembered: a topic uses few distinct tags, and a
#: bound on the length bounds the cache's memory.
_CACHED_LENGTH = 64


def _java_hash(tag: str) -> int:
    units: bytes | tuple[int, ...]
    if tag.isascii():
        units = tag.encode("ascii")
    else:
        # "surrogatepass" keeps lone surrogates as the single units Java would hold.
        data = tag.encode("utf-16-be", "surrogatepass")
        units = struct.unpack(f">{len(data) // 2}H", data)
    h = 0
    # Reduce once per chunk, not once per unit: Python ints of a few hundred bits cost less
    # than a mask per character, and reducing keeps them that small for long strings.
    for start in range(0, len(units), _CHUNK):
        for unit in units[start : start + _CHUNK]:
            h = 31 * h + unit
        h &= _MASK
    return h - (1 << 32) if h & _SIGN else h


_cached_code = lru_cache(maxsize=4096)(_java_hash)


def message_tag(message: object) -> str | None:
    """The RocketMQ tag of `message` (its `TAGS` entry), or None when it has none.

    Never raises: a message that is not a mapping, or whose `TAGS` is not a string,
    reads as untagged. An empty tag is returned as "" (the broker treats it as untagged).
    """
    if type(message) is dict:
        tag = message.get(TAGS_PROPERTY)
    elif isinstance(message, Message):
        tag = message.view.get(TAGS_PROPERTY)
    else:
        tag = as_mapping(message).get(TAGS_PROPERTY)
    return tag if isinstance(tag, str) else None


def message_tag_code(message: object) -> int:
    """The consume-queue code of `message`: `tag_code` of its tag, 0 when untagged."""
    return tag_code(message_tag(message))
