"""The Pulsar tag built-in entry filter: anytag / alltag consumer metadata (PIP-419)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..engine import compile as compile_filter
from ..errors import FilterError
from ..filter import Filter
from ..tags import pulsar_tag_filter
from .batches import BatchMode
from .config import FilterConfig
from .context import Entry, FilterContext
from .errors import FilterConfigError
from .filters import ConsumerFilter, EntryFilter
from .results import EntryDecision, FilterResult
from .shared import ACCEPT_ALL, Memo, PredicateConsumerFilter, decide_flags

#: Consumer metadata key prefixes of the Pulsar tag filter.
ANYTAG_PREFIX = "anytag"
ALLTAG_PREFIX = "alltag"

@dataclass(frozen=True, slots=True)
class PulsarTagConfig(FilterConfig):
    """Settings of `PulsarTagEntryFilter` (all optional).

    - `batch_mode`: ``any`` (default: a batch with one matching message is delivered
      whole) or ``exact``.
    - `reject_action`: the result for a message without the consumer's tags: ``reject``
      (default) or ``reschedule`` (for shared subscriptions whose consumers ask for
      different tags).
    - `on_invalid`: the result when the consumer metadata cannot be read as tags.
    """

    batch_mode: BatchMode = BatchMode.ANY
    reject_action: FilterResult = FilterResult.REJECT
    on_invalid: FilterResult = FilterResult.RESCHEDULE

    def validate(self) -> None:
        if self.reject_action is FilterResult.ACCEPT:
            raise FilterConfigError("PulsarTagConfig.reject_action cannot be accept")


def _tag_items(metadata: Mapping[str, object]) -> tuple[tuple[str, object], ...]:
    return tuple(
        sorted(
            (k, v)
            for k, v in metadata.items()
            if isinstance(k, str) and k.startswith((ANYTAG_PREFIX, ALLTAG_PREFIX))
        )
    )


class PulsarTagEntryFilter(EntryFilter):
    """Pulsar tag filtering from consumer metadata (``anytag*`` / ``alltag*`` keys).

    A message's tags are its properties whose key starts with ``tag``; it matches when it
    has one of the consumer's anytag values (if any are given) and all of its alltag
    values (see `msgfilter.tags.pulsar_tag_filter`). A consumer without tag keys, or no
    consumer at all, receives everything. A message that does not match gets
    `PulsarTagConfig.reject_action`.
    """

    config_type = PulsarTagConfig

    def __init__(self, config: PulsarTagConfig | None = None) -> None:
        self.config = config if config is not None else PulsarTagConfig()
        self._filters: Memo[tuple[tuple[str, object], ...], Filter | FilterResult] = Memo()

    def __repr__(self) -> str:
        return f"PulsarTagEntryFilter({self.config!r})"

    def _filter(self, context: FilterContext, *, strict: bool) -> Filter | FilterResult | None:
        if context.consumer_metadata is None:
            return None
        items = _tag_items(context.consumer_metadata)
        if not items:
            return None

        def build() -> Filter:
            built = pulsar_tag_filter(dict(items))  # type: ignore[arg-type]
            # Through the engine's cache, so equal tag sets share one compiled filter.
            return compile_filter(built.unparse(), built.dialect)

        if strict:
            return build()

        def build_or_policy() -> Filter | FilterResult:
            try:
                return build()
            except FilterError:
                return self.config.on_invalid

        return self._filters.get(items, build_or_policy)

    def filter_entry(self, entry: Entry, context: FilterContext) -> FilterResult:
        return self.decide(entry, context).result

    def decide(self, entry: Entry, context: FilterContext) -> EntryDecision:
        f = self._filter(context, strict=False)
        if f is None:
            return EntryDecision.uniform(FilterResult.ACCEPT, entry.size)
        if isinstance(f, FilterResult):
            return EntryDecision.uniform(f, entry.size)
        return decide_flags(
            list(map(f.matches, entry.messages)),
            self.config.batch_mode,
            self.config.reject_action,
        )

    def consumer_filter(self, context: FilterContext) -> ConsumerFilter:
        """The consumer's tag test on single messages (raises FilterError if unreadable)."""
        f = self._filter(context, strict=True)
        if f is None or isinstance(f, FilterResult):
            return ACCEPT_ALL
        return PredicateConsumerFilter(f.matches, f.text)

    def close(self) -> None:
        self._filters.clear()

