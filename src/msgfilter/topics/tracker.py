"""`PatternTopicsTracker`: the client's side, the set of topics a pattern consumer follows.

It is fed either by polling (`GetTopicsOfNamespace` with its last hash) or by a watcher
(`WatchTopicListSuccess`, then `WatchTopicUpdate`s), in any mix, and keeps the current set.

- After applying a watcher update it compares the hash of its own set with the update's. A
  difference means it missed an update (the broker's queue overflowed, or a reconnect lost
  one); it then lists the namespace again through `fetch` (a resync), or, without `fetch`,
  raises its `needs_resync` flag for the caller to act on.
- Old brokers: a listing with no hash, or with `filtered=False`, was not filtered by the
  broker, so the tracker removes system topics and applies the pattern itself. The hash sent
  on the next poll is always the broker's last one, which is what the broker compares.

Not thread-safe: drive one tracker from one thread (or under the caller's lock).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from msgfilter.topics.hashing import java_sorted
from msgfilter.topics.messages import EMPTY_HASH
from msgfilter.topics.names import is_system_topic
from msgfilter.topics.pattern import Implementation, TopicsPattern
from msgfilter.topics.sorted_set import SortedTopicSet


class TopicsListing(Protocol):
    """What `GetTopicsOfNamespace` answers (`GetTopicsResult` or the caller's own type)."""

    @property
    def topics(self) -> Sequence[str]: ...
    @property
    def filtered(self) -> bool: ...
    @property
    def topics_hash(self) -> str | None: ...
    @property
    def changed(self) -> bool: ...


class WatchSuccess(Protocol):
    """What `WatchTopicList` answers (`WatchResult` or the caller's own type)."""

    @property
    def topics(self) -> Sequence[str]: ...
    @property
    def topics_hash(self) -> str | None: ...


class WatchUpdate(Protocol):
    """One `WatchTopicUpdate` (`TopicListUpdate` or the caller's own type)."""

    @property
    def new_topics(self) -> Sequence[str]: ...
    @property
    def deleted_topics(self) -> Sequence[str]: ...
    @property
    def topics_hash(self) -> str | None: ...


#: Lists the namespace: called with the hash to send (None forces a full answer).
Fetch = Callable[[str | None], TopicsListing]


@dataclass(frozen=True, slots=True)
class TopicsChange:
    """How the tracked set changed in one step: topics to subscribe to and to leave (each in
    Java order)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    #: True if the step found a missed update and listed the namespace again.
    resynced: bool = False

    def __bool__(self) -> bool:
        return bool(self.added or self.removed)


class PatternTopicsTracker:
    """The topics matching one pattern, as a client following a namespace sees them."""

    def __init__(
        self,
        pattern: str | TopicsPattern,
        fetch: Fetch | None = None,
        *,
        implementation: Implementation = "re",
    ) -> None:
        self.pattern = (
            pattern
            if isinstance(pattern, TopicsPattern)
            else TopicsPattern.compile(pattern, implementation)
        )
        self._fetch = fetch
        self._topics = SortedTopicSet()
        self._request_hash: str | None = None
        #: True when a missed update was found and no `fetch` was given to resync with.
        self.needs_resync = False
        #: How many times a missed update was detected.
        self.missed_updates = 0

    @property
    def topics(self) -> frozenset[str]:
        """The current set."""
        return frozenset(self._topics)

    def sorted_topics(self) -> tuple[str, ...]:
        """The current set in Java order."""
        return self._topics.to_tuple()

    @property
    def topics_hash(self) -> str:
        """`topics_hash` of the current set."""
        return self._topics.hash

    @property
    def request_hash(self) -> str | None:
        """The hash to send with the next poll or watch request (None: ask for everything)."""
        return self._request_hash

    # -- polling -----------------------------------------------------------------------
    def poll(self) -> TopicsChange:
        """List the namespace with the last hash and apply the answer. Needs `fetch`."""
        return self.apply_listing(self._require_fetch()(self._request_hash))

    def resync(self) -> TopicsChange:
        """List the namespace from scratch (no hash) and replace the set. Needs `fetch`."""
        return self._resynced(self.apply_listing(self._require_fetch()(None)))

    def apply_listing(self, listing: TopicsListing) -> TopicsChange:
        """Apply a `GetTopicsOfNamespace` answer."""
        if not listing.changed:
            # The broker found our hash current and sent no topics.
            self._request_hash = listing.topics_hash
            self.needs_resync = False
            return TopicsChange()
        topics: Iterable[str] = listing.topics
        if listing.topics_hash is None or not listing.filtered:
            topics = self._filter_locally(topics)
        change = self._replace(topics)
        self._request_hash = listing.topics_hash
        self.needs_resync = False
        return change

    def _filter_locally(self, topics: Iterable[str]) -> list[str]:
        pattern = self.pattern
        return [name for name in topics if not is_system_topic(name) and pattern.matches(name)]

    # -- watching ----------------------------------------------------------------------
    def apply_watch_success(self, success: WatchSuccess) -> TopicsChange:
        """Apply the answer to a watch request (made with `request_hash` on reconnect)."""
        if not success.topics and success.topics_hash not in (None, EMPTY_HASH):
            # The broker leaves the list out when the client's hash is current.
            change = TopicsChange()
        else:
            change = self._replace(success.topics)
        return self._verify(success.topics_hash, change)

    def apply_update(self, update: WatchUpdate) -> TopicsChange:
        """Apply one watcher update; resync (or flag `needs_resync`) if one was missed."""
        removed = [name for name in update.deleted_topics if self._topics.discard(name)]
        added = [name for name in update.new_topics if self._topics.add(name)]
        return self._verify(update.topics_hash, TopicsChange(tuple(added), tuple(removed)))

    def _verify(self, expected: str | None, change: TopicsChange) -> TopicsChange:
        if expected is None or expected == self._topics.hash:
            if expected is not None:
                self._request_hash = expected
            return change
        self.missed_updates += 1
        if self._fetch is None:
            self.needs_resync = True
            return change
        return _merge(change, self.resync())

    # -- helpers -----------------------------------------------------------------------
    def _replace(self, topics: Iterable[str]) -> TopicsChange:
        new = set(topics)
        old = self._topics
        added = tuple(name for name in new if name not in old)
        removed = tuple(name for name in old if name not in new)
        if added or removed:
            self._topics = SortedTopicSet(new)
        return TopicsChange(tuple(java_sorted(added)), removed)

    def _require_fetch(self) -> Fetch:
        if self._fetch is None:
            raise RuntimeError("this tracker has no fetch function to list the namespace with")
        return self._fetch

    @staticmethod
    def _resynced(change: TopicsChange) -> TopicsChange:
        return TopicsChange(change.added, change.removed, True)


def _merge(first: TopicsChange, second: TopicsChange) -> TopicsChange:
    """One change equivalent to `first` then `second`."""
    added = set(first.added)
    removed = set(first.removed)
    for name in second.removed:
        if name in added:
            added.discard(name)
        else:
            removed.add(name)
    for name in second.added:
        if name in removed:
            removed.discard(name)
        else:
            added.add(name)
    return TopicsChange(tuple(java_sorted(added)), tuple(java_sorted(removed)), True)
