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
* Live brokers: the `BrokerDriver` protocol with `StompDriver` (stomp.py) and
  `AmqpDriver` (python-qpid-proton), `generate_cases()` and `run_campaign()` (what
  `msgfilter fuzz-broker` runs), `observe()` and `expected_outcome()` for one case, and
  `shrink_case()`. The drivers need the `broker` extra.

docs/fuzzing.md shows how to fuzz a broker with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .amqp_driver import AmqpDriver
from .campaign import (
    CampaignResult,
    Disagreement,
    expected_outcome,
    generate_cases,
    observe,
    run_campaign,
)
from .drivers import BrokerDriver, BrokerUnavailable, Delivery, Publication
from .oracle import ACTIVEMQ_HEADER_DEFAULTS, oracle_answer, oracle_case, oracle_view
from .reference import ReferenceFilter, reference_evaluate, reference_filter
from .shrinking import shrink_case
from .stomp_driver import StompDriver

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
    "AmqpDriver",
    "BrokerDriver",
    "BrokerUnavailable",
    "CampaignResult",
    "Delivery",
    "Disagreement",
    "Publication",
    "ReferenceFilter",
    "StompDriver",
    "amqp_messages",
    "amqp_selectors",
    "expected_outcome",
    "expressions",
    "generate_cases",
    "identifiers",
    "invalid_selectors",
    "messages",
    "observe",
    "oracle_answer",
    "oracle_case",
    "oracle_view",
    "property_settings",
    "reference_evaluate",
    "reference_filter",
    "run_campaign",
    "selector_cases",
    "selectors",
    "shrink_case",
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
