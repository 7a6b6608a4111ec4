"""`SortedTopicSet`: a set of topic names kept in Java order, with a cheap `topics_hash`.

A watcher must send the hash of its whole matching set with every update. Sorting and
encoding the set each time costs O(n log n) Python work (tens of ms for 100 000 names). Here
the names sit in sorted chunks, each caching its UTF-8 bytes and the running CRC up to its
end, so an update re-encodes one chunk and resumes the CRC from the chunk before it: one
C-speed pass over the bytes after the change.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator
from itertools import chain

from msgfilter.topics.hashing import crc32c, hash_hex, java_sort_key, java_utf8

_LOAD = 512  # chunk size after a split; a chunk splits when it reaches twice this
_COMMA = b","


class SortedTopicSet:
    """A mutable set of names iterated in Java `String` order; `hash` is `topics_hash(self)`.

    Not thread-safe by itself: the service guards it with its lock.
    """

    __slots__ = ("_astral", "_blobs", "_chunks", "_crcs", "_hash", "_maxes", "_members", "_valid")

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._members: set[str] = set(names)
        # Keys differ from names only for characters above U+FFFF; map those back.
        self._astral: dict[str, str] = {}
        keys = []
        for name in self._members:
            key = java_sort_key(name)
            if key is not name:
                self._astral[key] = name
            keys.append(key)
        keys.sort()
        self._chunks: list[list[str]] = [keys[i : i + _LOAD] for i in range(0, len(keys), _LOAD)]
        self._maxes: list[str] = [chunk[-1] for chunk in self._chunks]
        self._blobs: list[bytes | None] = [None] * len(self._chunks)
        # _crcs[i] is the CRC of chunks 0..i joined, trustworthy for i < _valid.
        self._crcs: list[int] = [0] * len(self._chunks)
        self._valid = 0
        self._hash: str | None = None

    def __len__(self) -> int:
        return len(self._members)

    def __contains__(self, name: object) -> bool:
        return name in self._members

    def __iter__(self) -> Iterator[str]:
        astral = self._astral
        for chunk in self._chunks:
            if astral:
                yield from (astral.get(key, key) for key in chunk)
            else:
                yield from chunk

    def __repr__(self) -> str:
        return f"SortedTopicSet({list(self)!r})"

    def add(self, name: str) -> bool:
        """Add `name`; return whether it was absent."""
        if name in self._members:
            return False
        self._members.add(name)
        key = java_sort_key(name)
        if key is not name:
            self._astral[key] = name
        self._hash = None
        if not self._chunks:
            self._chunks.append([key])
            self._maxes.append(key)
            self._blobs.append(None)
            self._crcs.append(0)
            return True
        at = bisect_left(self._maxes, key)
        if at == len(self._chunks):
            at -= 1
        chunk = self._chunks[at]
        insort(chunk, key)
        self._maxes[at] = chunk[-1]
        self._blobs[at] = None
        if len(chunk) >= 2 * _LOAD:
            self._chunks[at : at + 1] = [chunk[:_LOAD], chunk[_LOAD:]]
            self._maxes[at : at + 1] = [chunk[_LOAD - 1], chunk[-1]]
            self._blobs[at : at + 1] = [None, None]
            self._crcs.insert(at, 0)
        self._valid = min(self._valid, at)
        return True

    def discard(self, name: str) -> bool:
        """Remove `name`; return whether it was present."""
        if name not in self._members:
            return False
        self._members.remove(name)
        key = java_sort_key(name)
        if key is not name:
            del self._astral[key]
        self._hash = None
        at = bisect_left(self._maxes, key)
        chunk = self._chunks[at]
        del chunk[bisect_left(chunk, key)]
        if chunk:
            self._maxes[at] = chunk[-1]
            self._blobs[at] = None
        else:
            del self._chunks[at], self._maxes[at], self._blobs[at], self._crcs[at]
        self._valid = min(self._valid, at)
        return True

    def with_prefix(self, prefix: str) -> Iterator[str]:
        """The names starting with `prefix`, in order, found by bisection (no full scan)."""
        key = java_sort_key(prefix)
        at = bisect_left(self._maxes, key)
        if at == len(self._chunks):
            return
        start = bisect_left(self._chunks[at], key)
        astral = self._astral
        for chunk in self._chunks[at:]:
            for index in range(start, len(chunk)):
                item = chunk[index]
                if not item.startswith(key):
                    return
                name = astral.get(item, item) if astral else item
                if name.startswith(prefix):
                    yield name
            start = 0

    @property
    def hash(self) -> str:
        """`topics_hash` of the current members, resumed from the last unchanged chunk."""
        if self._hash is None:
            chunks, blobs, crcs, astral = self._chunks, self._blobs, self._crcs, self._astral
            start = self._valid
            crc = crcs[start - 1] if start else 0
            for index in range(start, len(chunks)):
                blob = blobs[index]
                if blob is None:
                    chunk = chunks[index]
                    names = [astral.get(key, key) for key in chunk] if astral else chunk
                    blob = blobs[index] = java_utf8(",".join(names))
                if index:
                    crc = crc32c(_COMMA, crc)
                crc = crcs[index] = crc32c(blob, crc)
            self._valid = len(chunks)
            self._hash = hash_hex(crc)
        return self._hash

    def to_tuple(self) -> tuple[str, ...]:
        """The members in Java order."""
        if self._astral:
            return tuple(self)
        return tuple(chain.from_iterable(self._chunks))
