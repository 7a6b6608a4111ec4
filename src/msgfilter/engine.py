"""`compile()`: text -> Filter, for every dialect, through one cache."""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from . import dialects
from .errors import FilterError
from .filter import Filter, register_compiler
from .limits import DEFAULT_LIMITS, Limits

#: Default number of compiled filters kept (most recently used).
CACHE_SIZE = 4096


# functools' LRU (in C, thread-safe): a compile served by its shape costs a few tens of
# µs, and a cache written in Python (cachetools) was a third of that. A build that raises
# is not kept.
@functools.lru_cache(maxsize=CACHE_SIZE)
def _cached(dialect: str, text: str, limits: Limits) -> Filter:
    return dialects.get(dialect).build(text, limits)


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
    if not isinstance(text, str):
        raise FilterError(f"a filter expression is text, not {type(text).__name__}")
    # Two threads asking for one new text at once may both build it (equal filters).
    return _cached(dialect, text, limits or DEFAULT_LIMITS)


register_compiler(compile)


def cache_info() -> CacheInfo:
    """Hits, misses, capacity and current size of the compile cache."""
    info = _cached.cache_info()
    return CacheInfo(info.hits, info.misses, CACHE_SIZE, info.currsize)


def purge() -> None:
    """Empty the compile cache (filters already handed out stay valid)."""
    _cached.cache_clear()


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
