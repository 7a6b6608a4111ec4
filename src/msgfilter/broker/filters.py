"""The plugin interfaces: `EntryFilter`, `ConsumerFilter`, and `FilterChain`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from types import TracebackType
from typing import Any, ClassVar

from .config import FilterConfig
from .context import Entry, FilterContext
from .results import EntryDecision, FilterResult


class EntryFilter(ABC):
    """Decides, entry by entry, what a subscription's consumers receive (Pulsar PIP-105).

    Subclass it and implement `filter_entry`. A broker calls it for every entry it is about
    to dispatch, possibly from several threads at once, so keep per-call state local.

    Configuration: set the class attribute `config_type` to a `FilterConfig` subclass and
    accept an instance of it as the one constructor argument (it may default to None for
    the defaults). Loaders (`msgfilter.broker.create_filter`, `load_filters`) build the
    config from a mapping and validate it before calling the constructor. With
    `config_type` None the class is built with no argument.

    An entry filter may hold resources (caches, connections): `close` releases them. It is
    also a context manager that closes itself.
    """

    #: The configuration class the constructor takes, or None for no configuration.
    config_type: ClassVar[type[FilterConfig] | None] = None

    @abstractmethod
    def filter_entry(self, entry: Entry, context: FilterContext) -> FilterResult | None:
        """The verdict on `entry` as a whole: ACCEPT, REJECT or RESCHEDULE (None = ACCEPT).

        `context.entry_metadata` is `entry.metadata` when called through a `FilterChain`.
        Implementations should not raise because of what a message holds.
        """

    def decide(self, entry: Entry, context: FilterContext) -> EntryDecision:
        """The verdict on each message of `entry` (and on the entry).

        The default gives every message the `filter_entry` result. Filters that can judge
        the messages of a batch one by one override it.
        """
        return EntryDecision.uniform(self.filter_entry(entry, context), entry.size)

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release what the filter holds. Called once, when the broker unloads it."""

    def __enter__(self) -> EntryFilter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class ConsumerFilter(ABC):
    """A per-consumer test on single messages: `accept(message)` is True to deliver it.

    One is built for each consumer from its metadata and its subscription's properties
    (built-in entry filters offer ``consumer_filter(context)``). A consumer applies it to
    the messages of a batch the broker let through whole, as DataStax pulsar-jms clients
    re-apply selectors, or as RocketMQ clients re-check tags after the broker's hash check.
    `accept` must not raise because of what a message holds.
    """

    @abstractmethod
    def accept(self, message: Any) -> bool:
        """True when `message` is for this consumer."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the filter holds."""


class FilterChain(EntryFilter):
    """Entry filters run in order; the first answer that is not ACCEPT wins.

    That is Pulsar's rule (``EntryFilterSupport``): None counts as ACCEPT, and a filter
    after the first REJECT or RESCHEDULE is not called. `decide` applies the same rule to
    each message of a batch: a message gets the first non-ACCEPT result any filter gives
    it, and the entry's result follows from the messages' (`combine`). When every filter
    judges entries whole, both methods agree; with filters in `BatchMode.EXACT`, `decide`
    is the finer answer. An empty chain accepts everything. `close` closes every filter.
    """

    def __init__(self, filters: Iterable[EntryFilter] = ()) -> None:
        self.filters: tuple[EntryFilter, ...] = tuple(filters)
        for f in self.filters:
            if not isinstance(f, EntryFilter):
                raise TypeError(f"a FilterChain holds EntryFilters, not {type(f).__name__}")

    def __repr__(self) -> str:
        return f"FilterChain({list(self.filters)!r})"

    def __len__(self) -> int:
        return len(self.filters)

    def filter_entry(self, entry: Entry, context: FilterContext) -> FilterResult:
        ctx = context.for_entry(entry)
        for f in self.filters:
            result = f.filter_entry(entry, ctx)
            if result is not None and result is not FilterResult.ACCEPT:
                return result
        return FilterResult.ACCEPT

    def decide(self, entry: Entry, context: FilterContext) -> EntryDecision:
        ctx = context.for_entry(entry)
        results = [FilterResult.ACCEPT] * entry.size
        open_slots = entry.size
        for f in self.filters:
            if not open_slots:
                break
            decision = f.decide(entry, ctx)
            for i, r in enumerate(decision.message_results):
                if r is not FilterResult.ACCEPT and results[i] is FilterResult.ACCEPT:
                    results[i] = r
                    open_slots -= 1
        return EntryDecision.per_message(results)

    def close(self) -> None:
        errors: list[BaseException] = []
        for f in self.filters:
            try:
                f.close()
            except Exception as error:  # one failing close must not leak the others
                errors.append(error)
        if errors:
            raise errors[0]
