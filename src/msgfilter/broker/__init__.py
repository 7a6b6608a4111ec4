"""The broker API: entry filters, their context and results, built-ins, and loaders.

A broker (or proxy, or consumer) that dispatches entries to a subscription asks an
`EntryFilter`, or a `FilterChain` of them, what to do with each entry:

    >>> from msgfilter.broker import Entry, FilterContext, JmsSelectorFilter, Position
    >>> f = JmsSelectorFilter()
    >>> ctx = FilterContext("sub", {"jms.filtering": "true", "jms.selector": "color = 'red'"})
    >>> f.filter_entry(Entry.single(Position(1, 0), {"color": "blue"}), ctx)
    <FilterResult.REJECT: 'reject'>

Modules: `results` (`FilterResult`, `EntryDecision`), `context` (`Entry`, `Position`,
`EntryMetadata`, `FilterContext`), `filters` (`EntryFilter`, `ConsumerFilter`,
`FilterChain`), `config` (`FilterConfig`), one module per built-in filter (`pulsar_jms`
with the subscription-time validators, `pulsar_tags`, `rocketmq`; `shared` what they
share; `builtin` the registry of them by name), `loading` (class paths, entry points,
definition files), `fanout` (`fan_out`: every subscription of a `SubscriptionIndex` on one entry).
Batches: see `msgfilter.broker.batches`. The guide is docs/broker.md.
"""

from .batches import (
    BatchDecision,
    BatchMode,
    BatchOutcome,
    Placeholder,
    Rebatched,
    filter_batch,
    rebatch,
)
from .builtin import BUILTIN_FILTERS
from .config import FilterConfig
from .context import Entry, EntryMetadata, FilterContext, Position
from .errors import FilterConfigError, FilterLoadError
from .fanout import Fanout, fan_out
from .filters import ConsumerFilter, EntryFilter, FilterChain
from .loading import (
    DEFINITION_FILE,
    ENTRY_POINT_GROUP,
    FilterDefinition,
    available_filters,
    create_filter,
    entry_point_definitions,
    find_definitions,
    load_class,
    load_filters,
    read_definition,
)
from .pulsar_jms import (
    JmsSelectorConfig,
    JmsSelectorFilter,
    validate_consumer_metadata,
    validate_subscription_properties,
)
from .pulsar_tags import PulsarTagConfig, PulsarTagEntryFilter
from .results import EntryDecision, FilterResult, combine
from .rocketmq import RocketMQConfig, RocketMQEntryFilter, rocketmq_dialect
from .shared import PredicateConsumerFilter, expression_dialect

__all__ = [
    "BUILTIN_FILTERS",
    "DEFINITION_FILE",
    "ENTRY_POINT_GROUP",
    "BatchDecision",
    "BatchMode",
    "BatchOutcome",
    "ConsumerFilter",
    "Entry",
    "EntryDecision",
    "EntryFilter",
    "EntryMetadata",
    "Fanout",
    "FilterChain",
    "FilterConfig",
    "FilterConfigError",
    "FilterContext",
    "FilterDefinition",
    "FilterLoadError",
    "FilterResult",
    "JmsSelectorConfig",
    "JmsSelectorFilter",
    "Placeholder",
    "Position",
    "PredicateConsumerFilter",
    "PulsarTagConfig",
    "PulsarTagEntryFilter",
    "Rebatched",
    "RocketMQConfig",
    "RocketMQEntryFilter",
    "available_filters",
    "combine",
    "create_filter",
    "entry_point_definitions",
    "expression_dialect",
    "fan_out",
    "filter_batch",
    "find_definitions",
    "load_class",
    "load_filters",
    "read_definition",
    "rebatch",
    "rocketmq_dialect",
    "validate_consumer_metadata",
    "validate_subscription_properties",
]
