"""`TopicListService`: the broker's side of PIP-145, topic listings and topic-list watchers.

The service holds, per namespace, the user topics of each domain and the watchers. The
broker feeds it `topic_created` / `topic_deleted` (one call per partition name, as Pulsar's
metadata notifications are); clients ask `get_topics` and `watch`.

Behaviour, following Pulsar's `ServerCnx` and `TopicListService` (spec/brokers.md B.3):

- System topics (`names.is_system_topic`) are never stored, listed or reported.
- `get_topics` filters by the pattern when evaluation is enabled and the pattern, as sent, is
  at most `subscription_pattern_max_length` long (`filtered=True`); otherwise it returns the
  unfiltered listing with `filtered=False`. When the client's hash equals the listing's hash
  the topics are left out and `changed=False`.
- Watchers see persistent topics only, like Pulsar's. They are refused with
  `TopicListNotAllowedError` when evaluation is disabled or the pattern *without its scheme*
  is too long (Pulsar measures the listing pattern before removing the scheme and the
  watcher pattern after). A watcher receives an update only when its matching set really
  changes, carrying the new or deleted name and the hash of the whole matching set.
- Updates wait in a per-watcher queue, in order, until `poll_updates` takes them. When the
  queue is full the update is dropped, as Pulsar does, and so is every later one until the
  queue has been drained; the drain that empties it then ends with a resync beacon: an update
  with no topics and the hash of the current matching set. A client that missed updates
  finds its own hash different from the beacon's and lists the namespace again
  (`PatternTopicsTracker` does so), so nothing is lost silently.

Cost: creating or deleting a topic tests only the watchers whose pattern's literal prefix
starts the topic's name (`PrefixIndex`), plus the patterns without a literal prefix. Listings
with their hash are cached per (namespace, mode, pattern) and dropped when a topic of a domain
they cover changes, so a `get_topics` whose hash matches costs a dictionary lookup.

Thread-safe: one lock guards all state; `on_update` callbacks run after it is released.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field

from msgfilter.topics.config import DEFAULT_CONFIG, TopicListConfig
from msgfilter.topics.errors import TopicListNotAllowedError, UnknownWatcherError
from msgfilter.topics.hashing import java_sorted, sorted_topics_hash
from msgfilter.topics.listing import java_length, pattern_applies
from msgfilter.topics.messages import EMPTY_HASH, GetTopicsResult, TopicListUpdate, WatchResult
from msgfilter.topics.names import (
    SCHEME_SEPARATOR,
    Mode,
    TopicDomain,
    TopicName,
    is_system_topic,
    parse_topic_name,
    validate_namespace,
)
from msgfilter.topics.pattern import TopicsPattern, remove_domain_scheme
from msgfilter.topics.prefixes import PrefixIndex
from msgfilter.topics.sorted_set import SortedTopicSet

_log = logging.getLogger(__name__)

UpdateCallback = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class WatcherInfo:
    """A snapshot of one watcher, for monitoring and tests."""

    watcher_id: int
    namespace: str
    pattern: str
    connection: Hashable | None
    matching_topics: int
    queued_updates: int
    #: True between an overflow and the resync beacon that ends the next full drain.
    needs_resync: bool
    #: Updates dropped because the queue was full, since the watcher was created.
    dropped_updates: int


@dataclass(eq=False, slots=True)
class _Watcher:
    watcher_id: int
    namespace: str
    pattern: TopicsPattern
    connection: Hashable | None
    on_update: UpdateCallback | None
    matching: SortedTopicSet
    capacity: int
    queue: deque[TopicListUpdate] = field(default_factory=deque)
    needs_resync: bool = False
    dropped: int = 0

    def push(self, new: tuple[str, ...], deleted: tuple[str, ...]) -> bool:
        """Queue an update for the change just applied to `matching`; False if dropped."""
        if self.needs_resync or len(self.queue) >= self.capacity:
            # Keep dropping until the beacon is out, so that no update can overtake it.
            self.needs_resync = True
            self.dropped += 1
            return False
        self.queue.append(TopicListUpdate(self.watcher_id, new, deleted, self.matching.hash))
        return True


_ListingKey = tuple[str | None, str]  # (input pattern or None, implementation)
_Listing = tuple[tuple[str, ...], str]  # (topics in Java order, their hash)


class _Namespace:
    __slots__ = ("listings", "sets", "subjects", "watchers")

    def __init__(self) -> None:
        self.sets = {domain: SortedTopicSet() for domain in TopicDomain}
        # name -> what patterns are matched against, so listings never re-parse names
        self.subjects: dict[str, str] = {}
        self.watchers: PrefixIndex[_Watcher] = PrefixIndex()
        self.listings: dict[Mode, dict[_ListingKey, _Listing]] = {mode: {} for mode in Mode}

    def invalidate(self, domain: TopicDomain) -> None:
        for mode, cache in self.listings.items():
            if mode.includes(domain):
                cache.clear()

    def is_empty(self) -> bool:
        return not self.subjects and not self.watchers


class TopicListService:
    """Topic listings with hashes and pattern watchers for many namespaces (see module doc)."""

    def __init__(self, config: TopicListConfig = DEFAULT_CONFIG) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._namespaces: dict[str, _Namespace] = {}
        self._watchers: dict[int, _Watcher] = {}
        self._by_connection: dict[Hashable, set[int]] = {}
        self._ids = itertools.count(1)

    # -- topics --------------------------------------------------------------------------
    def topic_created(self, name: str) -> bool:
        """Record a new topic (one partition name); True if it was not known before.

        Raises `TopicNameError` for an invalid name. System topics are ignored (False).
        """
        return self.topics_created((name,)) == 1

    def topic_deleted(self, name: str) -> bool:
        """Forget a topic (one partition name); True if it was known."""
        return self.topics_deleted((name,)) == 1

    def topics_created(self, names: Iterable[str]) -> int:
        """Record many topics under one lock acquisition; return how many were new."""
        return self._change(names, created=True)

    def topics_deleted(self, names: Iterable[str]) -> int:
        """Forget many topics; return how many were known."""
        return self._change(names, created=False)

    def _change(self, names: Iterable[str], *, created: bool) -> int:
        parsed = [parse_topic_name(name) for name in names]  # fail before changing anything
        wake: list[tuple[UpdateCallback, int]] = []
        changed = 0
        with self._lock:
            for topic in parsed:
                if not is_system_topic(topic) and self._apply(topic, created, wake):
                    changed += 1
        self._wake(wake)
        return changed

    def _apply(
        self, topic: TopicName, created: bool, wake: list[tuple[UpdateCallback, int]]
    ) -> bool:
        namespace = self._namespaces.get(topic.namespace)
        if namespace is None:
            if not created:
                return False
            namespace = self._namespaces[topic.namespace] = _Namespace()
        name = topic.name
        members = namespace.sets[topic.domain]
        if created:
            if not members.add(name):
                return False
            subject = namespace.subjects[name] = topic.pattern_subject
        else:
            if not members.discard(name):
                return False
            subject = namespace.subjects.pop(name)
        namespace.invalidate(topic.domain)
        if topic.domain is TopicDomain.PERSISTENT and namespace.watchers:
            update: tuple[tuple[str, ...], tuple[str, ...]]
            for watcher in namespace.watchers.candidates(subject):
                if created:
                    hit = watcher.pattern.matches_subject(subject) and watcher.matching.add(name)
                    update = ((name,), ())
                else:
                    hit = watcher.matching.discard(name)
                    update = ((), (name,))
                if hit and watcher.push(*update) and watcher.on_update is not None:
                    wake.append((watcher.on_update, watcher.watcher_id))
        if not created and namespace.is_empty():
            del self._namespaces[topic.namespace]
        return True

    @staticmethod
    def _wake(wake: list[tuple[UpdateCallback, int]]) -> None:
        for callback, watcher_id in wake:
            try:
                callback(watcher_id)
            except Exception:
                # One failing listener must not stop the others or the broker's notification.
                _log.exception("topic-list update callback failed for watcher %d", watcher_id)

    # -- listings --------------------------------------------------------------------------
    def get_topics(
        self,
        namespace: str,
        pattern: str | None = None,
        client_hash: str | None = None,
        mode: Mode | str = Mode.PERSISTENT,
    ) -> GetTopicsResult:
        """Answer `GetTopicsOfNamespace`: the namespace's user topics of `mode`, filtered by
        `pattern` when the configuration allows (`filtered`), their hash, and `changed=False`
        with no topics when `client_hash` equals that hash.

        Raises `TopicPatternError` for an invalid pattern that would be applied,
        `TopicNameError` for an invalid namespace.
        """
        validate_namespace(namespace)
        mode = Mode.coerce(mode)
        compiled: TopicsPattern | None = None
        if pattern is not None and pattern_applies(pattern, self.config):
            compiled = TopicsPattern.compile(
                pattern, self.config.topics_pattern_regex_implementation
            )
        key: _ListingKey = (
            compiled.input_pattern if compiled is not None else None,
            compiled.implementation if compiled is not None else "",
        )
        with self._lock:
            state = self._namespaces.get(namespace)
            topics: tuple[str, ...]
            if state is None:
                topics, topics_hash = (), EMPTY_HASH
            else:
                cache = state.listings[mode]
                listing = cache.get(key)
                if listing is None:
                    listing = self._build_listing(state, mode, compiled)
                    if self.config.max_cached_listings:
                        if len(cache) >= self.config.max_cached_listings:
                            del cache[next(iter(cache))]  # oldest first
                        cache[key] = listing
                topics, topics_hash = listing
        filtered = compiled is not None
        if client_hash is not None and client_hash == topics_hash:
            return GetTopicsResult((), filtered, topics_hash, False)
        return GetTopicsResult(topics, filtered, topics_hash, True)

    @staticmethod
    def _build_listing(state: _Namespace, mode: Mode, pattern: TopicsPattern | None) -> _Listing:
        domains = [domain for domain in TopicDomain if mode.includes(domain)]
        if len(domains) == 1 and (pattern is None or pattern.match_all):
            members = state.sets[domains[0]]
            return members.to_tuple(), members.hash
        parts = [_select(state, domain, pattern) for domain in domains]
        if len(parts) == 1:
            topics = tuple(parts[0])
        else:
            topics = tuple(java_sorted(itertools.chain.from_iterable(parts)))
        return topics, sorted_topics_hash(topics)

    # -- watchers --------------------------------------------------------------------------
    def watch(
        self,
        namespace: str,
        pattern: str,
        client_hash: str | None = None,
        *,
        connection: Hashable | None = None,
        on_update: UpdateCallback | None = None,
    ) -> WatchResult:
        """Create a watcher (`CommandWatchTopicList`) for the persistent topics of `namespace`
        matching `pattern`; return its id, the matching topics (none if `client_hash` is
        already their hash) and their hash.

        `connection` groups watchers for `close_connection`; `on_update(watcher_id)` is called
        (outside the service lock) whenever an update is queued, so a server can schedule a
        `poll_updates`. Raises `TopicListNotAllowedError` when evaluation is disabled or the
        pattern without scheme is longer than the maximum, `TopicPatternError` for a bad
        pattern, `TopicNameError` for a bad namespace.
        """
        validate_namespace(namespace)
        stripped = remove_domain_scheme(pattern)
        config = self.config
        if not config.enable_broker_side_subscription_pattern_evaluation:
            raise TopicListNotAllowedError(
                "Unable to create topic list watcher: Evaluating subscription patterns is disabled."
            )
        if java_length(stripped) > config.subscription_pattern_max_length:
            raise TopicListNotAllowedError(
                "Unable to create topic list watcher: "
                f"Pattern longer than maximum: {config.subscription_pattern_max_length}"
            )
        compiled = TopicsPattern.compile(pattern, config.topics_pattern_regex_implementation)
        with self._lock:
            state = self._namespaces.get(namespace)
            if state is None:
                state = self._namespaces[namespace] = _Namespace()
            watcher = _Watcher(
                watcher_id=next(self._ids),
                namespace=namespace,
                pattern=compiled,
                connection=connection,
                on_update=on_update,
                matching=SortedTopicSet(_select(state, TopicDomain.PERSISTENT, compiled)),
                capacity=config.watcher_queue_size,
            )
            self._watchers[watcher.watcher_id] = watcher
            state.watchers.add(compiled.prefix, watcher.watcher_id, watcher)
            if connection is not None:
                self._by_connection.setdefault(connection, set()).add(watcher.watcher_id)
            topics_hash = watcher.matching.hash
            topics = () if client_hash == topics_hash else watcher.matching.to_tuple()
        return WatchResult(watcher.watcher_id, topics, topics_hash)

    def unwatch(self, watcher_id: int) -> bool:
        """Close a watcher (`CommandWatchTopicListClose`) and drop its queued updates; False if
        there was none with this id."""
        with self._lock:
            return self._remove_watcher(watcher_id)

    def close_connection(self, connection: Hashable) -> int:
        """Close every watcher created with this `connection`; return how many."""
        with self._lock:
            ids = self._by_connection.pop(connection, set())
            return sum(self._remove_watcher(watcher_id) for watcher_id in sorted(ids))

    def _remove_watcher(self, watcher_id: int) -> bool:
        watcher = self._watchers.pop(watcher_id, None)
        if watcher is None:
            return False
        watcher.queue.clear()
        state = self._namespaces.get(watcher.namespace)
        if state is not None:
            state.watchers.remove(watcher.pattern.prefix, watcher_id)
            if state.is_empty():
                del self._namespaces[watcher.namespace]
        if watcher.connection is not None:
            ids = self._by_connection.get(watcher.connection)
            if ids is not None:
                ids.discard(watcher_id)
                if not ids:
                    del self._by_connection[watcher.connection]
        return True

    def poll_updates(
        self, watcher_id: int, max_updates: int | None = None
    ) -> list[TopicListUpdate]:
        """Take up to `max_updates` queued updates of a watcher, oldest first.

        If the watcher overflowed, the call that empties its queue appends the resync beacon
        (no topics, the current hash). Raises `UnknownWatcherError` for an unknown id.
        """
        if max_updates is not None and max_updates < 0:
            raise ValueError("max_updates must be >= 0")
        with self._lock:
            watcher = self._watchers.get(watcher_id)
            if watcher is None:
                raise UnknownWatcherError(watcher_id)
            queue = watcher.queue
            count = len(queue) if max_updates is None else min(max_updates, len(queue))
            updates = [queue.popleft() for _ in range(count)]
            if not queue and watcher.needs_resync:
                updates.append(TopicListUpdate(watcher_id, (), (), watcher.matching.hash))
                watcher.needs_resync = False
            return updates

    def watcher_info(self, watcher_id: int) -> WatcherInfo:
        """A snapshot of a watcher; raises `UnknownWatcherError` for an unknown id."""
        with self._lock:
            watcher = self._watchers.get(watcher_id)
            if watcher is None:
                raise UnknownWatcherError(watcher_id)
            return WatcherInfo(
                watcher_id=watcher_id,
                namespace=watcher.namespace,
                pattern=watcher.pattern.input_pattern,
                connection=watcher.connection,
                matching_topics=len(watcher.matching),
                queued_updates=len(watcher.queue),
                needs_resync=watcher.needs_resync,
                dropped_updates=watcher.dropped,
            )

    def watcher_ids(self, connection: Hashable | None = None) -> tuple[int, ...]:
        """The open watchers' ids, all or those of one connection, in creation order."""
        with self._lock:
            if connection is None:
                return tuple(self._watchers)
            return tuple(sorted(self._by_connection.get(connection, ())))


def _select(state: _Namespace, domain: TopicDomain, pattern: TopicsPattern | None) -> Iterable[str]:
    """The names of one domain of a namespace that match `pattern`, in Java order."""
    members = state.sets[domain]
    if pattern is None or pattern.match_all:
        return members
    # Only names that start with the literal prefix can match: bisect to them.
    candidates = (
        members.with_prefix(f"{domain}{SCHEME_SEPARATOR}{pattern.prefix}")
        if pattern.prefix
        else members
    )
    matches, subjects = pattern.matches_subject, state.subjects
    return [name for name in candidates if matches(subjects[name])]
