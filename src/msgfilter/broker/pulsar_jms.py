"""The pulsar-jms built-in entry filter (its ``JMSFilter``): JMS selectors stored in
subscription properties and consumer metadata, judged on pulsar-jms's typed view of each
message (`msgfilter.pulsar_jms`).

Every built-in compiles its expressions through `msgfilter.compile` (shared by the engine's
cache) once per distinct subscription / consumer setting, never per message, and remembers
expressions that fail to compile so that they are not retried for every entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import dialects
from ..engine import compile as compile_filter
from ..errors import FilterError
from ..message import Message
from ..pulsar_jms.headers import jms_destination
from ..pulsar_jms.judge import ERROR, MATCH, Check, Judge, check_of
from ..pulsar_jms.reader import TypedReader
from ..semantics.model import ValueModel
from .batches import BatchMode
from .config import FilterConfig
from .context import Entry, FilterContext
from .errors import FilterConfigError
from .filters import ConsumerFilter, EntryFilter
from .results import RESULTS, EntryDecision, FilterResult, decision_of_marks
from .shared import ACCEPT_ALL, Memo, PredicateConsumerFilter, expression_dialect, selector_text

#: Subscription property and consumer metadata: "true" turns pulsar-jms filtering on.
JMS_FILTERING = "jms.filtering"
#: Subscription property (with ``jms.filtering=true``) or consumer metadata: the selector.
JMS_SELECTOR = "jms.selector"
#: Consumer metadata: ``drop`` (REJECT) or ``reschedule`` (the default) for a message the
#: consumer's selector does not match.
JMS_REJECT_ACTION = "jms.selector.reject.action"
#: Consumer metadata: "true" makes a consumer-selector mismatch a REJECT whatever the action.
JMS_FORCE_DROP_REJECTED = "jms.force.drop.rejected"
#: Consumer metadata: "queue" or "topic", how ``JMSDestination`` shows the topic.
JMS_DESTINATION_TYPE = "jms.destination.type"
#: Default subscription property of a PIP-419 style expression.
FILTER_EXPRESSION = "filter.expression"
#: Default subscription property naming its type: ``SQL92`` or a msgfilter dialect.
FILTER_EXPRESSION_TYPE = "filter.expression.type"
#: Default keys of a RocketMQ subscription expression and its type (``TAG`` / ``SQL92``).

#: The value models of the dialects a `JmsSelectorConfig.dialect` may name.
_SELECTOR_MODELS = frozenset({ValueModel.JMS, ValueModel.ROCKETMQ})

@dataclass(frozen=True, slots=True)
class JmsSelectorConfig(FilterConfig):
    """Settings of `JmsSelectorFilter` (all optional).

    - `dialect`: the dialect of ``jms.selector`` texts (``jms``, or ``rocketmq``).
    - `batch_mode`: ``any`` (default, as pulsar-jms: a batch is delivered whole when one
      message passes) or ``exact`` (each message judged on its own; see `decide`).
    - `on_invalid_selector`: the result for entries whose stored selector does not compile
      (default ``reschedule``, as pulsar-jms, which retries later).
    - `typed_properties`: decode ``_jsmtype`` companions and derive JMS headers (default
      true); false evaluates selectors on the message as it is.
    - `expression_key`, `expression_type_key`: the subscription properties of a PIP-419
      style expression and its type (``SQL92`` or a msgfilter dialect name).
    """

    dialect: str = dialects.DEFAULT
    batch_mode: BatchMode = BatchMode.ANY
    on_invalid_selector: FilterResult = FilterResult.RESCHEDULE
    typed_properties: bool = True
    expression_key: str = FILTER_EXPRESSION
    expression_type_key: str = FILTER_EXPRESSION_TYPE

    def validate(self) -> None:
        found = dialects.by_name().get(self.dialect) if isinstance(self.dialect, str) else None
        if found is None or found.model not in _SELECTOR_MODELS:
            known = (d.name for d in dialects.all_dialects() if d.model in _SELECTOR_MODELS)
            raise FilterConfigError(
                f"JmsSelectorConfig.dialect: {self.dialect!r} is not a selector dialect "
                f"({', '.join(known)})"
            )
        if not self.expression_key or not self.expression_type_key:
            raise FilterConfigError("JmsSelectorConfig: property keys must not be empty")



#: bytes.translate tables from the judge's codes to `EntryDecision` marks, per reject
#: action: SUBSCRIPTION_MISS and ERROR are REJECT, MATCH ACCEPT, CONSUMER_MISS the action.
_MARKS_OF_CODES = {
    action: bytes.maketrans(
        bytes(range(4)),
        bytes(RESULTS.index(r) for r in (FilterResult.REJECT, FilterResult.ACCEPT, action,
                                         FilterResult.REJECT)),
    )
    for action in RESULTS
}


@dataclass(frozen=True, slots=True)
class _JmsPlan(Judge):
    """The judge of one subscription + consumer setting, and the result for a message
    the consumer's selector does not match."""

    reject: FilterResult


class JmsSelectorFilter(EntryFilter):
    """JMS selectors with DataStax pulsar-jms's conventions (its ``JMSFilter``).

    Where selectors come from:

    - subscription properties ``jms.filtering=true`` and ``jms.selector``: the
      subscription selector; a message it does not match is REJECTed (acknowledged);
    - consumer metadata ``jms.selector``, honoured when the subscription has a selector or
      the consumer metadata has ``jms.filtering=true``: a message it does not match gets
      the consumer's reject action: REJECT when ``jms.selector.reject.action=drop`` or
      ``jms.force.drop.rejected=true``, RESCHEDULE otherwise (queue semantics: another
      consumer may take it);
    - a PIP-419 style pair of subscription properties (`JmsSelectorConfig.expression_key`,
      default ``filter.expression``, and its type, default ``SQL92``): one more
      subscription-level expression, in the dialect its type names.

    Without any selector every entry is ACCEPTed; marker entries always are. Messages are
    evaluated through a `msgfilter.pulsar_jms.reader.TypedReader` (typed ``_jsmtype`` values,
    derived JMS headers) for selectors in the ``jms`` dialect, which decodes a typed
    property only when evaluation reads it, as pulsar-jms does; a typed value that does
    not parse, when read, makes the message an evaluation error, which REJECTs it.

    Batches, in `BatchMode.ANY` (pulsar-jms): an evaluation error anywhere REJECTs the
    entry; if every message fails the subscription selector, REJECT; if any message
    matches everything, ACCEPT the whole batch (the consumer applies `consumer_filter` to
    the rest); otherwise the reject action. In `BatchMode.EXACT`, `decide` judges each
    message by the rules for a single message, and `filter_entry` ACCEPTs the entry when
    any message is kept.

    A stored selector that does not compile gives `JmsSelectorConfig.on_invalid_selector`
    (RESCHEDULE) for the entries it would judge; `validate_subscription_properties` and
    `validate_consumer_metadata` refuse such selectors up front.
    """

    config_type = JmsSelectorConfig

    def __init__(self, config: JmsSelectorConfig | None = None) -> None:
        self.config = config if config is not None else JmsSelectorConfig()
        self._plans: Memo[tuple[object, ...], _JmsPlan | FilterResult] = Memo()

    def __repr__(self) -> str:
        return f"JmsSelectorFilter({self.config!r})"

    def filter_entry(self, entry: Entry, context: FilterContext) -> FilterResult:
        return self.decide(entry, context).result

    def decide(self, entry: Entry, context: FilterContext) -> EntryDecision:
        plan = self._plan(context)
        if isinstance(plan, FilterResult):
            return EntryDecision.uniform(plan, entry.size)
        if entry.metadata.marker:
            return EntryDecision.uniform(FilterResult.ACCEPT, entry.size)
        reads = plan.reader.reads(self._destination(plan, context))
        whole = entry.is_batch and self.config.batch_mode is not BatchMode.EXACT
        codes = plan.judge_all(entry.messages, reads.destination, batch=whole, reads=reads)
        if not whole:
            # Codes to marks in C.
            return decision_of_marks(bytes(codes).translate(_MARKS_OF_CODES[plan.reject]))
        return EntryDecision.uniform(self._batch_result(codes, plan, reads.raised), entry.size)

    def consumer_filter(self, context: FilterContext) -> ConsumerFilter:
        """The test a consumer re-applies to the messages of a batch delivered whole.

        It accepts a message that passes the subscription selectors and the consumer's
        selector. Raises FilterError when one of them does not compile.
        """
        plan = self._build_plan(self._key(context), strict=True)
        if isinstance(plan, FilterResult):
            return ACCEPT_ALL
        destination = self._destination(plan, context)

        def accept(message: Any) -> bool:
            if not isinstance(message, Message):
                # A mapping is a message's properties; anything else has none.
                message = Message(message if isinstance(message, Mapping) else None)
            return plan.judge(message, destination) == MATCH

        return PredicateConsumerFilter(accept, "jms selectors")

    def close(self) -> None:
        self._plans.clear()

    # -- internals --

    @staticmethod
    def _batch_result(codes: list[int], plan: _JmsPlan, errors: bool = True) -> FilterResult:
        """The entry's result from its codes; `errors` False: no read failed, so no code
        is ERROR (scanning a thousand codes for it compares each: 20 µs)."""
        if not codes:
            return FilterResult.ACCEPT
        if errors and ERROR in codes:
            return FilterResult.REJECT
        # SUBSCRIPTION_MISS is the only falsy code: `any` scans in C.
        if plan.subscription and not any(codes):
            return FilterResult.REJECT
        if MATCH in codes:
            return FilterResult.ACCEPT
        return plan.reject

    @staticmethod
    def _destination(plan: _JmsPlan, context: FilterContext) -> str | None:
        if "JMSDestination" not in plan.names or not context.topic:
            return None
        return jms_destination(context.topic, context.consumer_get(JMS_DESTINATION_TYPE))

    def _key(self, context: FilterContext) -> tuple[object, ...]:
        sub = context.subscription_properties
        meta: Mapping[str, object] = context.consumer_metadata or {}
        sub_selector = sub.get(JMS_SELECTOR) if sub.get(JMS_FILTERING) == "true" else None
        active = bool(sub_selector) or meta.get(JMS_FILTERING) == "true"
        consumer_selector = meta.get(JMS_SELECTOR) if active else None
        drop = meta.get(JMS_REJECT_ACTION) == "drop" or meta.get(JMS_FORCE_DROP_REJECTED) == "true"
        return (
            sub_selector,
            sub.get(self.config.expression_key),
            sub.get(self.config.expression_type_key),
            consumer_selector,
            FilterResult.REJECT if drop else FilterResult.RESCHEDULE,
        )

    def _plan(self, context: FilterContext) -> _JmsPlan | FilterResult:
        key = self._key(context)
        return self._plans.get(key, lambda: self._build_plan(key, strict=False))

    def _build_plan(self, key: tuple[object, ...], *, strict: bool) -> _JmsPlan | FilterResult:
        sub_selector, expression, expression_type, consumer_selector, reject = key
        assert isinstance(reject, FilterResult)
        cfg = self.config
        typed = cfg.typed_properties
        try:
            checks: list[Check] = []
            text = selector_text(sub_selector)
            if text:
                checks.append(check_of(compile_filter(text, cfg.dialect), typed))
            if expression is not None:
                dialect = expression_dialect(selector_text(expression_type) or None)
                f = compile_filter(selector_text(expression), dialect)
                # Only the JMS value model reads pulsar-jms's typed view.
                checks.append(check_of(f, typed and f.model is ValueModel.JMS))
            consumer_text = selector_text(consumer_selector)
            consumer = (
                check_of(compile_filter(consumer_text, cfg.dialect), typed)
                if consumer_text
                else None
            )
        except FilterError:
            if strict:
                raise
            return cfg.on_invalid_selector
        if not checks and consumer is None:
            return FilterResult.ACCEPT
        names: set[str] = set()
        for check in (*checks, consumer):
            if check is not None and check.typed:
                names |= check.filter.identifiers
        return _JmsPlan(
            tuple(checks), consumer, frozenset(names), typed, TypedReader(names), reject
        )


def validate_subscription_properties(
    props: Mapping[str, str], config: JmsSelectorConfig | None = None
) -> None:
    """Refuse subscription properties whose selectors would not compile.

    Call it where a subscription is created. Checks ``jms.selector`` when
    ``jms.filtering=true``, and the PIP-419 style expression and its type. Raises the
    compile error (`FilterSyntaxError`, `FilterTypeError`, `FilterLimitError`, all
    `FilterError`) or FilterError for an unknown expression type.
    """
    cfg = config or JmsSelectorConfig()
    if props.get(JMS_FILTERING) == "true":
        text = selector_text(props.get(JMS_SELECTOR))
        if text:
            compile_filter(text, cfg.dialect)
    expression = props.get(cfg.expression_key)
    if expression is not None:
        dialect = expression_dialect(selector_text(props.get(cfg.expression_type_key)) or None)
        compile_filter(selector_text(expression), dialect)
    elif props.get(cfg.expression_type_key) is not None:
        raise FilterError(
            f"subscription property {cfg.expression_type_key!r} is set "
            f"without {cfg.expression_key!r}"
        )


def validate_consumer_metadata(
    metadata: Mapping[str, str], config: JmsSelectorConfig | None = None
) -> None:
    """Refuse consumer metadata with a selector that does not compile or an unknown action.

    Call it where a consumer connects. Raises the compile error, or `FilterConfigError`
    when ``jms.selector.reject.action`` is neither ``drop`` nor ``reschedule``.
    """
    cfg = config or JmsSelectorConfig()
    text = selector_text(metadata.get(JMS_SELECTOR))
    if text:
        compile_filter(text, cfg.dialect)
    action = metadata.get(JMS_REJECT_ACTION)
    if action is not None and action not in ("drop", "reschedule"):
        raise FilterConfigError(
            f"consumer metadata {JMS_REJECT_ACTION}={action!r}: expected drop or reschedule"
        )

