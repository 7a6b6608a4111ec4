"""What lowering to Spark raises."""

from __future__ import annotations


class NotNativeError(ValueError):
    """The filter (or a part of it) has no native Spark form; see `explain`."""


class Fallback(Exception):
    """Raised while lowering: this filter must be evaluated by the per-message UDF."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
