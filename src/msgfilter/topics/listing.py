"""`filter_topics`: the filtering a broker applies to a namespace listing (`TopicList`)."""

from __future__ import annotations

from collections.abc import Iterable

from msgfilter.topics.config import DEFAULT_CONFIG, TopicListConfig
from msgfilter.topics.messages import TopicListing
from msgfilter.topics.names import is_system_topic
from msgfilter.topics.pattern import TopicsPattern


def java_length(text: str) -> int:
    """Java's `String.length()`: UTF-16 code units, so a character above U+FFFF counts 2."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def pattern_applies(pattern: str, config: TopicListConfig = DEFAULT_CONFIG) -> bool:
    """Whether a broker with `config` filters a listing by `pattern` (as sent by the client)."""
    return (
        config.enable_broker_side_subscription_pattern_evaluation
        and java_length(pattern) <= config.subscription_pattern_max_length
    )


def filter_system_topics(topics: Iterable[str]) -> list[str]:
    """The names that are not system topics (`TopicList.filterSystemTopic`), in order."""
    return [name for name in topics if not is_system_topic(name)]


def filter_topics(
    topics: Iterable[str],
    pattern: str | TopicsPattern | None = None,
    *,
    config: TopicListConfig = DEFAULT_CONFIG,
) -> TopicListing:
    """Filter a listing the way a Pulsar broker answers `GetTopicsOfNamespace`.

    System topics are always removed. The pattern is applied only when broker-side evaluation
    is enabled and the pattern (its text as sent, scheme included) is at most
    `subscription_pattern_max_length` long; otherwise the names come back unfiltered with
    `filtered=False` and the client must filter them itself. Names keep their order and form.
    Raises `TopicPatternError` for an invalid pattern that would have been applied.
    """
    kept = filter_system_topics(topics)
    if pattern is None:
        return TopicListing(tuple(kept), False)
    text = pattern.input_pattern if isinstance(pattern, TopicsPattern) else pattern
    if not pattern_applies(text, config):
        return TopicListing(tuple(kept), False)
    if not isinstance(pattern, TopicsPattern):
        pattern = TopicsPattern.compile(pattern, config.topics_pattern_regex_implementation)
    return TopicListing(tuple(pattern.filter(kept)), True)
