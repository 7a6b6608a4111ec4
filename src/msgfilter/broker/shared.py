"""What the built-in entry filters share: a bounded memo of what they compile per
setting, the consumer filter of a callable, the PIP-419 expression types, and how
per-message flags become a decision."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from cachetools import LRUCache

from .. import dialects
from ..errors import FilterError
from .batches import BatchMode
from .filters import ConsumerFilter
from .results import EntryDecision, FilterResult

#: PIP-419 expression types that are not msgfilter dialect names (compared in any case).
_PIP419_TYPES = {"": dialects.DEFAULT, "SQL92": dialects.DEFAULT}

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_MISSING: Any = object()


class Memo(Generic[K, V]):
    """A thread-safe bounded memo: what a filter builds once per distinct setting."""

    def __init__(self, maxsize: int = 1024) -> None:
        self._cache: LRUCache[K, V] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def get(self, key: K, build: Callable[[], V]) -> V:
        with self._lock:
            found = self._cache.get(key, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[no-any-return]
        value = build()
        with self._lock:
            return self._cache.setdefault(key, value)

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache)


def expression_dialect(type_name: str | None) -> str:
    """The msgfilter dialect of a PIP-419 style expression type.

    ``SQL92`` (any case), None or "" is the ``jms`` dialect; any dialect name that
    `msgfilter.compile` knows stands for itself. Raises FilterError otherwise.
    """
    if type_name is None:
        return dialects.DEFAULT
    alias = _PIP419_TYPES.get(type_name.upper())
    if alias is not None:
        return alias
    if type_name in dialects.by_name():
        return type_name
    known = ", ".join(["SQL92", *sorted(dialects.names())])
    raise FilterError(f"unknown expression type {type_name!r} (known: {known})")


def decide_flags(
    flags: list[bool], mode: BatchMode, reject: FilterResult
) -> EntryDecision:
    """Per-message match flags -> a decision, by batch mode."""
    if mode is BatchMode.ANY:
        accepted = not flags or any(flags)
        return EntryDecision.uniform(FilterResult.ACCEPT if accepted else reject, len(flags))
    return EntryDecision.per_message(FilterResult.ACCEPT if f else reject for f in flags)


class PredicateConsumerFilter(ConsumerFilter):
    """A `ConsumerFilter` from a callable (for example a compiled `Filter`'s ``matches``)."""

    def __init__(self, test: Callable[[Any], object], description: str = "") -> None:
        self._test = test
        self.description = description

    def accept(self, message: Any) -> bool:
        return bool(self._test(message))

    def __repr__(self) -> str:
        return f"PredicateConsumerFilter({self.description or self._test!r})"


ACCEPT_ALL: ConsumerFilter = PredicateConsumerFilter(lambda _message: True, "accept all")


def selector_text(value: object) -> str:
    """A property value as selector text: "" when absent."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FilterError(f"a selector is text, not {type(value).__name__}")
    return value

