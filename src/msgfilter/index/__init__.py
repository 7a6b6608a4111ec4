"""Many subscriptions, one message: which of them want it (`SubscriptionIndex`).

Modules: `canonical` (the key forms of values per value model), `keys` (which conjunct
of a checked tree keys a filter, per model), `clauses` (clause plans: every keyable
conjunct per OR branch), `clause_store` (the clause tables `match` looks up), `store` and
`legacy` (the single-probe postings `match_table` reads), `subscriptions`
(`SubscriptionIndex`), `columnar` (`match_table`), `explain`, `snapshot` (save and load
without pickle).
"""

from .subscriptions import SubscriptionIndex

__all__ = ["SubscriptionIndex"]
