"""filter_topics: system topics out, the pattern applied only when the broker would."""

from __future__ import annotations

import pytest

from msgfilter.topics import (
    TopicListConfig,
    TopicListing,
    TopicPatternError,
    TopicsPattern,
    filter_system_topics,
    filter_topics,
)
from msgfilter.topics.listing import java_length

NAMES = [
    "persistent://t/ns/orders",
    "persistent://t/ns/__change_events",
    "persistent://t/ns/orders-partition-0",
    "non-persistent://t/ns/orders-tmp",
    "persistent://t/ns/payments",
    "persistent://t/ns/orders-sub__transaction_pending_ack",
]
USER = [NAMES[0], NAMES[2], NAMES[3], NAMES[4]]


def test_system_topics_always_go() -> None:
    assert filter_system_topics(NAMES) == USER
    assert filter_topics(NAMES) == TopicListing(tuple(USER), False)


def test_pattern_applied() -> None:
    result = filter_topics(NAMES, "persistent://t/ns/orders.*")
    assert result.filtered
    assert result.topics == (NAMES[0], NAMES[2], NAMES[3])
    topics, filtered = result  # unpackable
    assert (topics, filtered) == (result.topics, True)


def test_compiled_pattern_accepted() -> None:
    pattern = TopicsPattern.compile("t/ns/pay.*")
    assert filter_topics(NAMES, pattern) == TopicListing((NAMES[4],), True)


def test_pattern_longer_than_the_maximum_is_not_applied() -> None:
    prefix = "persistent://t/ns/"
    at_limit = prefix + "o" * (50 - len(prefix) - 2) + ".*"
    assert len(at_limit) == 50
    assert filter_topics(NAMES, at_limit).filtered
    too_long = prefix + "o" * (51 - len(prefix) - 2) + ".*"
    result = filter_topics(NAMES, too_long)
    assert result == TopicListing(tuple(USER), False)  # unfiltered, system topics still out


def test_configured_maximum_and_switch() -> None:
    short = TopicListConfig(subscription_pattern_max_length=5)
    assert not filter_topics(NAMES, "t/ns/.*", config=short).filtered
    off = TopicListConfig(enable_broker_side_subscription_pattern_evaluation=False)
    assert filter_topics(NAMES, "t/ns/x", config=off) == TopicListing(tuple(USER), False)


def test_an_unapplied_pattern_is_not_even_compiled() -> None:
    off = TopicListConfig(enable_broker_side_subscription_pattern_evaluation=False)
    assert not filter_topics(NAMES, "t/ns/(", config=off).filtered
    with pytest.raises(TopicPatternError):
        filter_topics(NAMES, "t/ns/(")


def test_re2_from_the_configuration() -> None:
    config = TopicListConfig(topics_pattern_regex_implementation="re2")
    # Refused by the re subset, fine for RE2.
    assert filter_topics(NAMES, "t/ns/(o+)+rders", config=config).topics == (NAMES[0], NAMES[2])


def test_length_is_counted_in_utf16_units_like_java() -> None:
    assert java_length("abc") == 3
    assert java_length("é") == 1
    assert java_length("\U0001f600") == 2
    config = TopicListConfig(subscription_pattern_max_length=3)
    assert len("ab\U0001f600") == 3  # but 4 UTF-16 units
    assert filter_topics([], "ab\U0001f600", config=config).filtered is False
    assert filter_topics([], "ab\u00e9", config=config).filtered is True


@pytest.mark.parametrize(
    "kwargs",
    [
        {"subscription_pattern_max_length": -1},
        {"watcher_queue_size": 0},
        {"max_cached_listings": -1},
        {"topics_pattern_regex_implementation": "pcre"},
    ],
)
def test_config_validation(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        TopicListConfig(**kwargs)  # type: ignore[arg-type]


def test_config_defaults_mirror_the_broker() -> None:
    config = TopicListConfig()
    assert config.enable_broker_side_subscription_pattern_evaluation is True
    assert config.subscription_pattern_max_length == 50
    with pytest.raises(AttributeError):
        config.subscription_pattern_max_length = 10  # type: ignore[misc]
