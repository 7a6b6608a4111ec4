"""Errors of the topic-list feature, all under `msgfilter.errors.FilterError` (a ValueError)."""

from __future__ import annotations

from msgfilter.errors import FilterError


class TopicPatternError(FilterError):
    """A topic regex cannot be used: bad syntax, an unknown domain, or an unsafe construct.

    `pattern` is the regex as given; `offset` is the 0-based position of the fault in it when
    the regex engine reported one, else None.
    """

    def __init__(self, message: str, pattern: str, offset: int | None = None) -> None:
        self.message = message
        self.pattern = pattern
        self.offset = offset
        where = f" at position {offset}" if offset is not None else ""
        super().__init__(f"{message}{where} in topic pattern {pattern!r}")

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.message, self.pattern, self.offset))


class UnsafePatternError(TopicPatternError):
    """The `re` implementation refused a construct that a backtracking engine may run in
    exponential (or high-degree polynomial) time; `implementation="re2"` accepts it."""


class TopicNameError(FilterError):
    """A topic or namespace name is not valid (Pulsar's `IllegalArgumentException`)."""


class TopicListNotAllowedError(FilterError):
    """A topic-list watcher was refused, as Pulsar answers `ServerError.NotAllowedError`:
    broker-side pattern evaluation is disabled or the pattern is longer than the maximum."""


class UnknownWatcherError(KeyError):
    """No watcher has this id (never created, or already closed)."""

    def __str__(self) -> str:
        return f"no topic-list watcher with id {self.args[0]!r}"
