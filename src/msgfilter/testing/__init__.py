"""Tools for testing msgfilter and brokers: Hypothesis strategies, and a reference
evaluator to use as an oracle.

* `reference_evaluate(text, message)` / `reference_filter(text)`: a deliberately slow,
  simple tree-walking evaluator written from jms-selectors.md, independent of the
  compiled engine (it shares only the error classes with it).
* `selectors()`, `expressions()`, `invalid_selectors()`, `messages()`,
  `selector_cases()`, `identifiers()`, `tag_expressions()`, `topic_names()`,
  `topic_patterns()`, `amqp_selectors()`, `amqp_messages()`: Hypothesis strategies;
  `property_settings()` with the `msgfilter-ci` and `msgfilter-fuzz` profiles. These
  need `hypothesis`; the reference evaluator and the oracle helpers do not.
* `oracle_case()`, `oracle_answer()`, `oracle_view()`: JSON Lines for external oracles
  such as the ActiveMQ selector oracle, and the message such an oracle evaluates.

docs/fuzzing.md shows how to fuzz a broker with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .oracle import ACTIVEMQ_HEADER_DEFAULTS, oracle_answer, oracle_case, oracle_view
from .reference import ReferenceFilter, reference_evaluate, reference_filter

if TYPE_CHECKING:
    from .strategies import (
        AMQP_NAMES,
        DEFAULT_IDENTIFIERS,
        EXAMPLES_VARIABLE,
        PROFILE_VARIABLE,
        VALUE_KINDS,
        amqp_messages,
        amqp_selectors,
        expressions,
        identifiers,
        invalid_selectors,
        messages,
        property_settings,
        selector_cases,
        selectors,
        tag_expressions,
        topic_names,
        topic_patterns,
    )

__all__ = [
    "ACTIVEMQ_HEADER_DEFAULTS",
    "AMQP_NAMES",
    "DEFAULT_IDENTIFIERS",
    "EXAMPLES_VARIABLE",
    "PROFILE_VARIABLE",
    "VALUE_KINDS",
    "ReferenceFilter",
    "amqp_messages",
    "amqp_selectors",
    "expressions",
    "identifiers",
    "invalid_selectors",
    "messages",
    "oracle_answer",
    "oracle_case",
    "oracle_view",
    "property_settings",
    "reference_evaluate",
    "reference_filter",
    "selector_cases",
    "selectors",
    "tag_expressions",
    "topic_names",
    "topic_patterns",
]


def __getattr__(name: str) -> Any:
    # The strategies import Hypothesis, a test-time dependency: load them on first use
    # so that the reference evaluator works without it. Only names not yet defined here
    # (the strategies) get this far.
    if name in __all__:
        from . import strategies

        return getattr(strategies, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
