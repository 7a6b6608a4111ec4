"""Hypothesis strategies: selectors, near-miss selectors, messages, tags and topic names,
one module per topic (`vocabulary`, `profiles`, `selector_texts`, `near_misses`,
`message_cases`, `tags_and_topics`, `amqp_cases`), gathered here.

Valid selectors are built from typed pieces (condition, number, string, boolean, any
value), so every one passes the `jms` dialect's static rules by construction: NOT only
before conditions (J17), no condition in an ordering or BETWEEN (J18), conditions where
one is required (J20), no string or boolean literal in an ordering or BETWEEN (J27), no
NULL in a comparison (J28), an identifier left of IN (J34), a one-character escape (J35),
and 9223372036854775808 only after a unary minus (J10). Simple choices come first in
every list, so failing examples shrink to short, readable selectors.

    from hypothesis import given
    from msgfilter.testing import reference_evaluate, selector_cases

    @given(selector_cases())
    def test_broker_agrees(case):
        text, messages = case
        for message in messages:
            assert my_broker(text, message) == reference_evaluate(text, message)
"""

from __future__ import annotations

from .amqp_cases import AMQP_NAMES, amqp_messages, amqp_selectors
from .message_cases import messages, selector_cases
from .near_misses import invalid_selectors
from .profiles import EXAMPLES_VARIABLE, PROFILE_VARIABLE, property_settings
from .selector_texts import expressions, selectors
from .tags_and_topics import tag_expressions, topic_names, topic_patterns
from .vocabulary import DEFAULT_IDENTIFIERS, VALUE_KINDS, identifiers

__all__ = [
    "AMQP_NAMES",
    "DEFAULT_IDENTIFIERS",
    "EXAMPLES_VARIABLE",
    "PROFILE_VARIABLE",
    "VALUE_KINDS",
    "amqp_messages",
    "amqp_selectors",
    "expressions",
    "identifiers",
    "invalid_selectors",
    "messages",
    "property_settings",
    "selector_cases",
    "selectors",
    "tag_expressions",
    "topic_names",
    "topic_patterns",
]
