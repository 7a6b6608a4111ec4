"""Many subscriptions, one message: which of them want it (`SubscriptionIndex`).

Modules: `canonical` (the key forms of values per value model), `keys` (which conjuncts
of a checked tree key a filter), `store` (postings and their structures), `subscriptions`
(`SubscriptionIndex`), `columnar` (`match_table`), `explain`.
"""

from .subscriptions import SubscriptionIndex

__all__ = ["SubscriptionIndex"]
