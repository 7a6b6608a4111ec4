"""`TopicListConfig`: the broker settings that govern topic listings and watchers."""

from __future__ import annotations

from dataclasses import dataclass

from msgfilter.topics.pattern import IMPLEMENTATIONS, Implementation


@dataclass(frozen=True, slots=True)
class TopicListConfig:
    """Settings named after Pulsar's `ServiceConfiguration` flags (spec/brokers.md B.3).

    - `enable_broker_side_subscription_pattern_evaluation` (Pulsar default true): when false,
      listings are never filtered (`filtered=False`) and watchers are refused.
    - `subscription_pattern_max_length` (Pulsar default 50): longer patterns are not applied
      to listings and refuse watchers. Lengths are Java `String.length()` (UTF-16 units).
    - `topics_pattern_regex_implementation`: `"re"` (safe subset, always available) or
      `"re2"` (linear time, needs `google-re2`); Pulsar's `topicsPatternRegexImplementation`.
    - `watcher_queue_size`: updates buffered per watcher before it overflows (Pulsar's
      `TOPIC_LIST_UPDATE_MAX_QUEUE_SIZE` is 10 000); see `TopicListService`.
    - `max_cached_listings`: filtered listings (with their hash) kept per namespace and mode.
    """

    enable_broker_side_subscription_pattern_evaluation: bool = True
    subscription_pattern_max_length: int = 50
    topics_pattern_regex_implementation: Implementation = "re"
    watcher_queue_size: int = 10_000
    max_cached_listings: int = 1024

    def __post_init__(self) -> None:
        if self.subscription_pattern_max_length < 0:
            raise ValueError("subscription_pattern_max_length must be >= 0")
        if self.watcher_queue_size < 1:
            raise ValueError("watcher_queue_size must be >= 1")
        if self.max_cached_listings < 0:
            raise ValueError("max_cached_listings must be >= 0")
        if self.topics_pattern_regex_implementation not in IMPLEMENTATIONS:
            raise ValueError(
                "topics_pattern_regex_implementation must be one of "
                f"{IMPLEMENTATIONS}, not {self.topics_pattern_regex_implementation!r}"
            )


DEFAULT_CONFIG = TopicListConfig()
