"""The older name of `msgfilter.broker.batches` (a Pulsar broker's batched entries: judging
their messages, rebuilding the batch), kept for the imports the guides show."""

from .broker.batches import (
    BatchDecision,
    BatchMode,
    BatchOutcome,
    Placeholder,
    Predicate,
    Rebatched,
    as_predicate,
    filter_batch,
    rebatch,
)

__all__ = [
    "BatchDecision",
    "BatchMode",
    "BatchOutcome",
    "Placeholder",
    "Predicate",
    "Rebatched",
    "as_predicate",
    "filter_batch",
    "rebatch",
]
