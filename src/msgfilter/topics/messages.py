"""The answers of the topic-list service, shaped like Pulsar's protocol commands.

Each is a frozen dataclass; iterating one yields its fields in order, so
`topics, filtered, topics_hash, changed = service.get_topics(...)` works.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

#: `topics_hash` of an empty list.
EMPTY_HASH = "00000000"


class _Unpackable:
    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        # Not dataclasses.astuple: it deep-copies every field, and listings can be large.
        return (getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class GetTopicsResult(_Unpackable):
    """`CommandGetTopicsOfNamespaceResponse`: the listing, whether the pattern was applied,
    the hash of the full listing, and whether it differs from the client's hash (when it does
    not, `topics` is empty)."""

    topics: tuple[str, ...]
    filtered: bool
    topics_hash: str | None
    changed: bool


@dataclass(frozen=True, slots=True)
class WatchResult(_Unpackable):
    """`CommandWatchTopicListSuccess`: the new watcher's id, the matching topics (empty when
    the client's hash was already right) and the hash of the matching set."""

    watcher_id: int
    topics: tuple[str, ...]
    topics_hash: str


@dataclass(frozen=True, slots=True)
class TopicListUpdate(_Unpackable):
    """`CommandWatchTopicUpdate`: topics that started or stopped matching, and the hash of the
    whole matching set after this update. An update with no topics is a resync beacon sent
    after an overflow (see `TopicListService`)."""

    watcher_id: int
    new_topics: tuple[str, ...]
    deleted_topics: tuple[str, ...]
    topics_hash: str


@dataclass(frozen=True, slots=True)
class TopicListing(_Unpackable):
    """What `filter_topics` returns: the kept names, and whether the pattern was applied."""

    topics: tuple[str, ...]
    filtered: bool
