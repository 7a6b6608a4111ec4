"""RocketMQ tag hash codes: Java's `String.hashCode` and the tag a message carries.

The broker's consume queue stores, for every message, `tags.hashCode()` of its tag (0 when it
has none) and filters tag subscriptions on that number alone (spec/brokers.md A.1).
"""

from __future__ import annotations

from functools import lru_cache

from ..java import JAVA_WHITESPACE, java_trim, string_hash
from ..message import TAGS_PROPERTY, as_mapping

__all__ = ["JAVA_WHITESPACE", "java_trim", "message_tag", "message_tag_code", "tag_code"]


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
    return string_hash(tag)


#: Codes of tags up to this long are remembered: a topic uses few distinct tags, and a
#: bound on the length bounds the cache's memory.
_CACHED_LENGTH = 64
_cached_code = lru_cache(maxsize=4096)(string_hash)


def message_tag(message: object) -> str | None:
    """The RocketMQ tag of `message` (its `TAGS` entry), or None when it has none.

    Never raises: a message that is not a mapping, or whose `TAGS` is not a string,
    reads as untagged. An empty tag is returned as "" (the broker treats it as untagged).
    """
    props = message if type(message) is dict else as_mapping(message)
    tag = props.get(TAGS_PROPERTY)
    return tag if isinstance(tag, str) else None


def message_tag_code(message: object) -> int:
    """The consume-queue code of `message`: `tag_code` of its tag, 0 when untagged."""
    return tag_code(message_tag(message))
