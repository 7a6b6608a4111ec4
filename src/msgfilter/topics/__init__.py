"""Pulsar PIP-145 topic lists: regex topic patterns, list hashes, listings and watchers.

- `TopicsPattern.compile(regex, implementation="re" | "re2")`: a topic regex as Pulsar applies
  it (domain scheme removed, full match of `tenant/ns/local` without partition suffix).
- `topics_hash(names)`: Pulsar's `TopicList.calculateHash`.
- `filter_topics(names, pattern)`: a broker's listing filter (system topics out, pattern in
  when allowed, `filtered` says which).
- `TopicListService`: listings with hashes and watchers with ordered, bounded update queues.
- `PatternTopicsTracker`: the client's set, kept by polling or by watcher updates, with
  missed-update detection through the hash.

See docs/topics.md.
"""

from msgfilter.topics.config import DEFAULT_CONFIG, TopicListConfig
from msgfilter.topics.errors import (
    TopicListNotAllowedError,
    TopicNameError,
    TopicPatternError,
    UnknownWatcherError,
    UnsafePatternError,
)
from msgfilter.topics.hashing import java_sort_key, java_sorted, topics_hash
from msgfilter.topics.listing import filter_system_topics, filter_topics
from msgfilter.topics.messages import (
    EMPTY_HASH,
    GetTopicsResult,
    TopicListing,
    TopicListUpdate,
    WatchResult,
)
from msgfilter.topics.names import (
    Mode,
    TopicDomain,
    TopicName,
    is_system_topic,
    parse_topic_name,
    partition_index,
)
from msgfilter.topics.pattern import Implementation, TopicsPattern, remove_domain_scheme
from msgfilter.topics.safety import MAX_CHOICE_POINTS, check_backtracking_safety
from msgfilter.topics.service import TopicListService, WatcherInfo
from msgfilter.topics.sorted_set import SortedTopicSet
from msgfilter.topics.tracker import PatternTopicsTracker, TopicsChange

__all__ = [
    "DEFAULT_CONFIG",
    "EMPTY_HASH",
    "MAX_CHOICE_POINTS",
    "GetTopicsResult",
    "Implementation",
    "Mode",
    "PatternTopicsTracker",
    "SortedTopicSet",
    "TopicDomain",
    "TopicListConfig",
    "TopicListNotAllowedError",
    "TopicListService",
    "TopicListUpdate",
    "TopicListing",
    "TopicName",
    "TopicNameError",
    "TopicPatternError",
    "TopicsChange",
    "TopicsPattern",
    "UnknownWatcherError",
    "UnsafePatternError",
    "WatchResult",
    "WatcherInfo",
    "check_backtracking_safety",
    "filter_system_topics",
    "filter_topics",
    "is_system_topic",
    "java_sort_key",
    "java_sorted",
    "parse_topic_name",
    "partition_index",
    "remove_domain_scheme",
    "topics_hash",
]
