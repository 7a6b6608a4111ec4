"""Tag filters: RocketMQ tag expressions and Pulsar anytag / alltag filters.

    >>> import msgfilter
    >>> f = msgfilter.compile("TagA || TagB", dialect="rocketmq-tag")
    >>> f.matches({"TAGS": "TagA"}), f.matches_code(2598919), sorted(f.tag_codes)
    (True, True, [2598919, 2598920])
    >>> g = msgfilter.compile("anytag: a, b; alltag: eu", dialect="pulsar-tag")
    >>> g.matches({"tag1": "b", "tag2": "eu"})
    True

Modules: `codes` (Java `String.hashCode`, a message's tag), `rocketmq` (expression parsing
and `RocketMQTagFilter`), `pulsar` (`PulsarTagFilter`, `pulsar_tag_filter`) and
`pulsar_text` (the `pulsar-tag` text syntax).
"""

from .codes import java_trim, message_tag, message_tag_code, tag_code
from .pulsar import PulsarTagFilter, message_tags, pulsar_tag_filter
from .pulsar_text import parse_pulsar_tags, unparse_pulsar_tags
from .rocketmq import SUB_ALL, RocketMQTagFilter, parse_tag_expression, unparse_tags

__all__ = [
    "SUB_ALL",
    "PulsarTagFilter",
    "RocketMQTagFilter",
    "java_trim",
    "message_tag",
    "message_tag_code",
    "message_tags",
    "parse_pulsar_tags",
    "parse_tag_expression",
    "pulsar_tag_filter",
    "tag_code",
    "unparse_pulsar_tags",
    "unparse_tags",
]
