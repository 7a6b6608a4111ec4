"""msgfilter: broker-side message filtering.

    >>> import msgfilter
    >>> f = msgfilter.compile("color = 'red' AND weight > 2.5")
    >>> f.matches({"color": "red", "weight": 3.0})
    True
"""

from .broker import (
    ConsumerFilter,
    Entry,
    EntryDecision,
    EntryFilter,
    FilterChain,
    FilterContext,
    FilterLoadError,
    FilterResult,
    Position,
)
from .broker.batches import BatchMode, filter_batch, rebatch
from .engine import CacheInfo, cache_info, compile, purge
from .errors import (
    EvaluationFailure,
    FilterError,
    FilterLimitError,
    FilterPositionError,
    FilterSyntaxError,
    FilterTypeError,
)
from .filter import Filter
from .index import SubscriptionIndex
from .limits import Limits
from .message import Message

__all__ = [
    "BatchMode",
    "CacheInfo",
    "ConsumerFilter",
    "Entry",
    "EntryDecision",
    "EntryFilter",
    "EvaluationFailure",
    "Filter",
    "FilterChain",
    "FilterContext",
    "FilterError",
    "FilterLimitError",
    "FilterLoadError",
    "FilterPositionError",
    "FilterResult",
    "FilterSyntaxError",
    "FilterTypeError",
    "Limits",
    "Message",
    "Position",
    "SubscriptionIndex",
    "cache_info",
    "compile",
    "filter_batch",
    "purge",
    "rebatch",
]

__version__ = "0.1.0"
