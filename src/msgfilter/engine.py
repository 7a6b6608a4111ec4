"""`compile()`: text -> Filter, for every dialect, through one cache."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import NamedTuple

from cachetools import LRUCache

from .errors import FilterError
from .filter import Filter
from .limits import DEFAULT_LIMITS, Limits

Factory = Callable[[str, str, Limits], Filter]


def _selector(text: str, dialect: str, limits: Limits) -> Filter:
    from .selector import SelectorFilter

    return SelectorFilter(text, dialect, limits)


def _rocketmq_tag(text: str, dialect: str, limits: Limits) -> Filter:
    from .tags import RocketMQTagFilter

    built: Filter = RocketMQTagFilter(text, limits)
    return built


def _pulsar_tag(text: str, dialect: str, limits: Limits) -> Filter:
    from .tags import PulsarTagFilter

    built: Filter = PulsarTagFilter.from_text(text, limits)
    return built


#: Dialect name -> how to build its filters. Modules load on first use.
DIALECTS: dict[str, Factory] = {
    "jms": _selector,
    "rocketmq": _selector,
    "activemq": _selector,
    "rocketmq-tag": _rocketmq_tag,
    "pulsar-tag": _pulsar_tag,
}

#: Default number of compiled filters kept (most recently used).
CACHE_SIZE = 4096

_cache: LRUCache[tuple[str, str, Limits], Filter] = LRUCache(maxsize=CACHE_SIZE)
_lock = threading.Lock()
_hits = 0
_misses = 0


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    maxsize: int
    currsize: int


def compile(text: str, dialect: str = "jms", *, limits: Limits | None = None) -> Filter:
    """The filter for `text` in `dialect`, compiled once and then served from the cache.

    Raises `FilterSyntaxError`, `FilterTypeError` or `FilterLimitError` (all
    `FilterError`, all `ValueError`) for text the dialect rejects; failures are not
    cached.
    """
    global _hits, _misses
    if not isinstance(text, str):
        raise FilterError(f"a filter expression is text, not {type(text).__name__}")
    key = (dialect, text, limits or DEFAULT_LIMITS)
    with _lock:
        found = _cache.get(key)
        if found is not None:
            _hits += 1
            return found
        _misses += 1
    factory = DIALECTS.get(dialect)
    if factory is None:
        known = ", ".join(sorted(DIALECTS))
        raise FilterError(f"unknown dialect {dialect!r} (known: {known})")
    built = factory(text, dialect, key[2])
    with _lock:
        # Another thread may have built the same filter meanwhile: keep one of them.
        return _cache.setdefault(key, built)


def cache_info() -> CacheInfo:
    """Hits, misses, capacity and current size of the compile cache."""
    with _lock:
        return CacheInfo(_hits, _misses, int(_cache.maxsize), int(_cache.currsize))


def purge() -> None:
    """Empty the compile cache (filters already handed out stay valid)."""
    global _hits, _misses
    with _lock:
        _cache.clear()
        _hits = _misses = 0
