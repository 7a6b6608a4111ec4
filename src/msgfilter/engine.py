"""`compile()`: text -> Filter, for every dialect, through one cache."""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

from cachetools import LRUCache

from . import dialects
from .errors import FilterError
from .filter import Filter, register_compiler
from .limits import DEFAULT_LIMITS, Limits

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


def compile(
    text: str, dialect: str = dialects.DEFAULT, *, limits: Limits | None = None
) -> Filter:
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
    built = dialects.get(dialect).build(text, key[2])
    with _lock:
        # Another thread may have built the same filter meanwhile: keep one of them.
        return _cache.setdefault(key, built)


register_compiler(compile)


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


def compile_unshaped(
    text: str, dialect: str = dialects.DEFAULT, *, limits: Limits | None = None
) -> Filter:
    """The filter for `text` built by the whole pipeline: neither the compile cache nor
    the shape cache (`msgfilter.shapes`) is read or filled. For tests that compare a
    filter served by its shape's template with the one the pipeline builds; tag dialects
    have no shapes and are built as `compile` builds them."""
    if not isinstance(text, str):
        raise FilterError(f"a filter expression is text, not {type(text).__name__}")
    found = dialects.get(dialect)
    if found.grammar is None:
        return found.build(text, limits or DEFAULT_LIMITS)
    build: Any = found.build
    built: Filter = build(text, limits or DEFAULT_LIMITS, use_shapes=False)
    return built
