"""`PrefixIndex`: find the watchers whose pattern can match a name without trying them all.

Every full match of a pattern starts with its literal prefix (`TopicsPattern.prefix`), so
only watchers whose prefix is a prefix of the name are candidates. Watchers are bucketed by
prefix; a lookup probes one slice of the name per distinct prefix length in use (a few dozen
dict lookups at most), then the fallback bucket of prefix-less patterns.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class PrefixIndex(Generic[T]):
    """Items filed under a literal prefix; `candidates(name)` yields those whose prefix starts
    `name` (the empty prefix starts every name). Not thread-safe by itself."""

    __slots__ = ("_buckets", "_length_counts", "_lengths")

    def __init__(self) -> None:
        self._buckets: dict[str, dict[Hashable, T]] = {}
        self._length_counts: dict[int, int] = {}
        self._lengths: tuple[int, ...] = ()

    def __len__(self) -> int:
        return sum(len(bucket) for bucket in self._buckets.values())

    def __bool__(self) -> bool:
        return bool(self._buckets)

    def add(self, prefix: str, key: Hashable, item: T) -> None:
        """File `item` under `prefix`; `key` identifies it for `remove`."""
        bucket = self._buckets.get(prefix)
        if bucket is None:
            bucket = self._buckets[prefix] = {}
            size = len(prefix)
            self._length_counts[size] = self._length_counts.get(size, 0) + 1
            self._lengths = tuple(sorted(self._length_counts))
        bucket[key] = item

    def remove(self, prefix: str, key: Hashable) -> None:
        """Remove the item filed under `prefix` with `key`, if any."""
        bucket = self._buckets.get(prefix)
        if bucket is None or key not in bucket:
            return
        del bucket[key]
        if bucket:
            return
        del self._buckets[prefix]
        size = len(prefix)
        self._length_counts[size] -= 1
        if not self._length_counts[size]:
            del self._length_counts[size]
            self._lengths = tuple(sorted(self._length_counts))

    def candidates(self, name: str) -> Iterator[T]:
        """The items whose prefix is a prefix of `name`, shortest prefixes first."""
        buckets = self._buckets
        limit = len(name)
        for size in self._lengths:
            if size > limit:
                return
            bucket = buckets.get(name[:size])
            if bucket:
                yield from bucket.values()
