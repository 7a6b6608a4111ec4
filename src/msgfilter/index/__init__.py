"""Many subscriptions, one message: which of them want it (`SubscriptionIndex`).

Modules: `canonical` (the key forms of values per value model), `keys` (which conjunct
of a checked tree keys a filter, per model), `clauses` (clause plans: every keyable
conjunct per OR branch), `clause_store` and `clusters` (the clause tables `match` looks
up), `store` (the tag postings), `subscriptions` (`SubscriptionIndex`), `columnar`
(`match_table`, its pairs from `table_clauses` and `table_candidates`), `explain`,
`snapshot` (save and load without pickle).
"""

from .subscriptions import SubscriptionIndex

__all__ = ["SubscriptionIndex"]
