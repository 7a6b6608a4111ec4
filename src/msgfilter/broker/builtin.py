"""The built-in entry filters: pulsar-jms selectors, Pulsar tags, RocketMQ tags and SQL92.

Every built-in compiles its expressions through `msgfilter.compile` (shared by the engine's
cache) once per distinct subscription / consumer setting, never per message, and remembers
expressions that fail to compile so that they are not retried for every entry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from cachetools import LRUCache

from .. import dialects
from ..batch import BatchMode
from ..engine import compile as compile_filter
from ..errors import FilterError
from ..filter import Filter
from ..jsmtype import TYPED_READS, JsmTypeError, Reads, TypedReader, jms_destination
from ..message import Message
from ..selector import SelectorFilter
from ..semantics.model import ValueModel
from ..tags import RocketMQTagFilter, message_tag_code, pulsar_tag_filter
from .config import FilterConfig
from .context import Entry, FilterContext
from .errors import FilterConfigError
from .filters import ConsumerFilter, EntryFilter
from .results import RESULTS, EntryDecision, FilterResult, decision_of_marks

# --- keys ----------------------------------------------------------------------------------

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
ROCKETMQ_EXPRESSION = "rocketmq.expression"
ROCKETMQ_EXPRESSION_TYPE = "rocketmq.expression.type"
#: Consumer metadata key prefixes of the Pulsar tag filter.
ANYTAG_PREFIX = "anytag"
ALLTAG_PREFIX = "alltag"

#: The value models of the dialects a `JmsSelectorConfig.dialect` may name.
_SELECTOR_MODELS = frozenset({ValueModel.JMS, ValueModel.ROCKETMQ})
#: PIP-419 expression types that are not msgfilter dialect names (compared in any case).
_PIP419_TYPES = {"": dialects.DEFAULT, "SQL92": dialects.DEFAULT}
#: RocketMQ's expression types (``ExpressionType``, compared exactly as RocketMQ does)
#: and the dialect of each.
_ROCKETMQ_TYPES = {"": "rocketmq-tag", "TAG": "rocketmq-tag", "SQL92": "rocketmq"}

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_MISSING: Any = object()


class _Memo(Generic[K, V]):
    """A thread-safe bounded memo: what a filter builds once per distinct setting."""

    def __init__(self, maxsize: int = 1024) -> None:
        self._cache: LRUCache[K, V] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def get(self, key: K, build: Callable[[], V]) -> V:
        with self._lock:
            found = self._cache.get(key, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[no-any-return]
        value = build()
        with self._lock:
            return self._cache.setdefault(key, value)

    def clear(self) -> None:
        with self._lock:
            self._cache.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache)


def expression_dialect(type_name: str | None) -> str:
    """The msgfilter dialect of a PIP-419 style expression type.

    ``SQL92`` (any case), None or "" is the ``jms`` dialect; any dialect name that
    `msgfilter.compile` knows stands for itself. Raises FilterError otherwise.
    """
    if type_name is None:
        return dialects.DEFAULT
    alias = _PIP419_TYPES.get(type_name.upper())
    if alias is not None:
        return alias
    if type_name in dialects.by_name():
        return type_name
    known = ", ".join(["SQL92", *sorted(dialects.names())])
    raise FilterError(f"unknown expression type {type_name!r} (known: {known})")


def _decide_flags(
    flags: list[bool], mode: BatchMode, reject: FilterResult
) -> EntryDecision:
    """Per-message match flags -> a decision, by batch mode."""
    if mode is BatchMode.ANY:
        accepted = not flags or any(flags)
        return EntryDecision.uniform(FilterResult.ACCEPT if accepted else reject, len(flags))
    return EntryDecision.per_message(FilterResult.ACCEPT if f else reject for f in flags)


class PredicateConsumerFilter(ConsumerFilter):
    """A `ConsumerFilter` from a callable (for example a compiled `Filter`'s ``matches``)."""

    def __init__(self, test: Callable[[Any], object], description: str = "") -> None:
        self._test = test
        self.description = description

    def accept(self, message: Any) -> bool:
        return bool(self._test(message))

    def __repr__(self) -> str:
        return f"PredicateConsumerFilter({self.description or self._test!r})"


ACCEPT_ALL: ConsumerFilter = PredicateConsumerFilter(lambda _message: True, "accept all")


# --- pulsar-jms selectors ------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class _Check:
    """One compiled selector and whether it reads the typed (decoded) view.

    `test` is its evaluator: when typed, `test(view, props, headers, R, memo)` over a
    message's parts (`SelectorFilter.typed_matches`), which answers False and sets
    `R.failed` where a typed read fails; else `filter.matches` of the message as it is.
    `test_all(messages, R, memo)` is the typed `test` of each message of a sequence
    (`SelectorFilter.typed_matches_all`), None when not typed.
    """

    filter: Filter
    typed: bool
    test: Callable[..., bool]
    test_all: Callable[..., list[int]] | None = None


def _check(f: Filter, typed: bool) -> _Check:
    if not typed:
        return _Check(f, False, f.matches)
    if isinstance(f, SelectorFilter):
        return _Check(f, True, f.typed_matches(TYPED_READS), f.typed_matches_all(TYPED_READS))
    test = _eager_test(f)

    def test_all(messages: tuple[Message, ...], reads: Reads, memo: Any) -> list[int]:
        return [test(m._view, m._props, m._heads, reads, memo) for m in messages]

    return _Check(f, True, test, test_all)


def _eager_test(f: Filter) -> Callable[..., bool]:
    """A typed test for a filter without a typed evaluator (not an SQL selector): its
    names decoded before it runs."""
    names, matches = f.identifiers, f.matches

    def test(shown: Any, props: Any, heads: Any, reads: Reads, memo: Any) -> bool:
        try:
            view = {n: reads.read(props, heads, n) for n in names}
        except JsmTypeError:
            return False
        return matches({n: v for n, v in view.items() if v is not None})

    return test


# A typed evaluator's answers for a sequence (True / False) are these codes as they are.
_SUBSCRIPTION_MISS, _MATCH, _CONSUMER_MISS, _ERROR = range(4)
#: bytes.translate tables from those codes to `EntryDecision` marks, per reject action:
#: _SUBSCRIPTION_MISS and _ERROR are REJECT, _MATCH ACCEPT, _CONSUMER_MISS the action.
_MARKS_OF_CODES = {
    action: bytes.maketrans(
        bytes(range(4)),
        bytes(RESULTS.index(r) for r in (FilterResult.REJECT, FilterResult.ACCEPT, action,
                                         FilterResult.REJECT)),
    )
    for action in RESULTS
}


@dataclass(frozen=True, slots=True)
class _JmsPlan:
    """What one subscription + consumer setting compiles to.

    `reader` decodes typed properties for the selectors that read the typed view, each
    where evaluation reads it, with its own memo.
    """

    subscription: tuple[_Check, ...]
    consumer: _Check | None
    reject: FilterResult
    names: frozenset[str]
    typed: bool
    reader: TypedReader

    def judge(self, message: Message, destination: str | None) -> int:
        """_MATCH, _SUBSCRIPTION_MISS, _CONSUMER_MISS or _ERROR for one message, judged as
        pulsar-jms judges a single message: the subscription selectors first (a mismatch
        ends it), then the consumer selector."""
        return self.judge_all((message,), destination)[0]

    def judge_all(
        self,
        messages: tuple[Message, ...],
        destination: str | None,
        *,
        batch: bool = False,
        reads: Reads | None = None,
    ) -> list[int]:
        """`judge` for each message. With `batch` (a batch judged whole, pulsar-jms's
        ANY), each message is judged as pulsar-jms's batch loop does: the consumer
        selector first, then the subscription selectors, both always evaluated, so that
        an error in either is seen. `reads`: the `Reads` to judge through (new if
        None); its `raised` then tells whether any code can be _ERROR."""
        if reads is None:
            reads = self.reader.reads(destination)
        memo = reads.memo
        consumer = self.consumer
        if (
            len(self.subscription) == 1
            and self.subscription[0].typed
            and (consumer is None or (consumer.typed and not batch))
        ):
            return self._sequential(messages, reads)
        codes: list[int] = []
        append = codes.append

        def run(check: _Check, m: Message) -> bool:
            if check.typed:
                return check.test(m._view, m._props, m._heads, reads, memo)
            return check.test(m)

        for m in messages:
            code = _MATCH
            if batch and consumer is not None:
                if not run(consumer, m):
                    code = _CONSUMER_MISS
                    if reads.failed is not None:
                        reads.failed = None
                        append(_ERROR)
                        continue
                last_done = True
            else:
                last_done = False
            for check in self.subscription:
                if not run(check, m):
                    code = _SUBSCRIPTION_MISS
                    if reads.failed is not None:
                        reads.failed = None
                        code = _ERROR
                    break
            if code == _MATCH and consumer is not None and not last_done and not run(consumer, m):
                code = _CONSUMER_MISS
                if reads.failed is not None:
                    reads.failed = None
                    code = _ERROR
            append(code)
        return codes

    def _sequential(self, messages: tuple[Message, ...], reads: Reads) -> list[int]:
        """judge_all for one subscription test, then (not a batch judged whole) the
        consumer's: the common case, kept lean since this loop is the filter's cost."""
        memo = reads.memo
        first = self.subscription[0]
        test = first.test
        consumer = self.consumer
        if first.test_all is not None:
            # True and False are _MATCH and _SUBSCRIPTION_MISS.
            codes: list[int] = first.test_all(messages, reads, memo)
            if reads.failed is None:
                if consumer is not None:
                    # Then the consumer's selector on the messages that passed (evaluation
                    # has no side effects: each message's code is as if judged alone).
                    last_test = consumer.test
                    for index, code in enumerate(codes):
                        if code:
                            m = messages[index]
                            if not last_test(m._view, m._props, m._heads, reads, memo):
                                codes[index] = (
                                    _CONSUMER_MISS if reads.failed is None else _ERROR
                                )
                                reads.failed = None
                return codes
            # Rare: a read failed somewhere: judge again one by one to find where (the
            # typed reads are memoised, and evaluation has no side effects).
            reads.failed = None
        last = consumer.test if consumer is not None else None
        codes = []
        append = codes.append
        for m in messages:
            shown, props, heads = m._view, m._props, m._heads
            if not test(shown, props, heads, reads, memo):
                append(_SUBSCRIPTION_MISS if reads.failed is None else _ERROR)
                reads.failed = None
            elif last is None or last(shown, props, heads, reads, memo):
                append(_MATCH)
            else:
                append(_CONSUMER_MISS if reads.failed is None else _ERROR)
                reads.failed = None
        return codes


def _text(value: object) -> str:
    """A property value as selector text: "" when absent."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise FilterError(f"a selector is text, not {type(value).__name__}")
    return value


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
    evaluated through a `msgfilter.jsmtype.TypedReader` (typed ``_jsmtype`` values,
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
        self._plans: _Memo[tuple[object, ...], _JmsPlan | FilterResult] = _Memo()

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
            return plan.judge(message, destination) == _MATCH

        return PredicateConsumerFilter(accept, "jms selectors")

    def close(self) -> None:
        self._plans.clear()

    # -- internals --

    @staticmethod
    def _batch_result(codes: list[int], plan: _JmsPlan, errors: bool = True) -> FilterResult:
        """The entry's result from its codes; `errors` False: no read failed, so no code
        is _ERROR (scanning a thousand codes for it compares each: 20 µs)."""
        if not codes:
            return FilterResult.ACCEPT
        if errors and _ERROR in codes:
            return FilterResult.REJECT
        # _SUBSCRIPTION_MISS is the only falsy code: `any` scans in C.
        if plan.subscription and not any(codes):
            return FilterResult.REJECT
        if _MATCH in codes:
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
            checks: list[_Check] = []
            text = _text(sub_selector)
            if text:
                checks.append(_check(compile_filter(text, cfg.dialect), typed))
            if expression is not None:
                dialect = expression_dialect(_text(expression_type) or None)
                f = compile_filter(_text(expression), dialect)
                # Only the JMS value model reads pulsar-jms's typed view.
                checks.append(_check(f, typed and f.model is ValueModel.JMS))
            consumer_text = _text(consumer_selector)
            consumer = (
                _check(compile_filter(consumer_text, cfg.dialect), typed)
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
            tuple(checks), consumer, reject, frozenset(names), typed, TypedReader(names)
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
        text = _text(props.get(JMS_SELECTOR))
        if text:
            compile_filter(text, cfg.dialect)
    expression = props.get(cfg.expression_key)
    if expression is not None:
        dialect = expression_dialect(_text(props.get(cfg.expression_type_key)) or None)
        compile_filter(_text(expression), dialect)
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
    text = _text(metadata.get(JMS_SELECTOR))
    if text:
        compile_filter(text, cfg.dialect)
    action = metadata.get(JMS_REJECT_ACTION)
    if action is not None and action not in ("drop", "reschedule"):
        raise FilterConfigError(
            f"consumer metadata {JMS_REJECT_ACTION}={action!r}: expected drop or reschedule"
        )


# --- Pulsar tags ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PulsarTagConfig(FilterConfig):
    """Settings of `PulsarTagEntryFilter` (all optional).

    - `batch_mode`: ``any`` (default: a batch with one matching message is delivered
      whole) or ``exact``.
    - `reject_action`: the result for a message without the consumer's tags: ``reject``
      (default) or ``reschedule`` (for shared subscriptions whose consumers ask for
      different tags).
    - `on_invalid`: the result when the consumer metadata cannot be read as tags.
    """

    batch_mode: BatchMode = BatchMode.ANY
    reject_action: FilterResult = FilterResult.REJECT
    on_invalid: FilterResult = FilterResult.RESCHEDULE

    def validate(self) -> None:
        if self.reject_action is FilterResult.ACCEPT:
            raise FilterConfigError("PulsarTagConfig.reject_action cannot be accept")


def _tag_items(metadata: Mapping[str, object]) -> tuple[tuple[str, object], ...]:
    return tuple(
        sorted(
            (k, v)
            for k, v in metadata.items()
            if isinstance(k, str) and k.startswith((ANYTAG_PREFIX, ALLTAG_PREFIX))
        )
    )


class PulsarTagEntryFilter(EntryFilter):
    """Pulsar tag filtering from consumer metadata (``anytag*`` / ``alltag*`` keys).

    A message's tags are its properties whose key starts with ``tag``; it matches when it
    has one of the consumer's anytag values (if any are given) and all of its alltag
    values (see `msgfilter.tags.pulsar_tag_filter`). A consumer without tag keys, or no
    consumer at all, receives everything. A message that does not match gets
    `PulsarTagConfig.reject_action`.
    """

    config_type = PulsarTagConfig

    def __init__(self, config: PulsarTagConfig | None = None) -> None:
        self.config = config if config is not None else PulsarTagConfig()
        self._filters: _Memo[tuple[tuple[str, object], ...], Filter | FilterResult] = _Memo()

    def __repr__(self) -> str:
        return f"PulsarTagEntryFilter({self.config!r})"

    def _filter(self, context: FilterContext, *, strict: bool) -> Filter | FilterResult | None:
        if context.consumer_metadata is None:
            return None
        items = _tag_items(context.consumer_metadata)
        if not items:
            return None

        def build() -> Filter:
            built = pulsar_tag_filter(dict(items))  # type: ignore[arg-type]
            # Through the engine's cache, so equal tag sets share one compiled filter.
            return compile_filter(built.unparse(), built.dialect)

        if strict:
            return build()

        def build_or_policy() -> Filter | FilterResult:
            try:
                return build()
            except FilterError:
                return self.config.on_invalid

        return self._filters.get(items, build_or_policy)

    def filter_entry(self, entry: Entry, context: FilterContext) -> FilterResult:
        return self.decide(entry, context).result

    def decide(self, entry: Entry, context: FilterContext) -> EntryDecision:
        f = self._filter(context, strict=False)
        if f is None:
            return EntryDecision.uniform(FilterResult.ACCEPT, entry.size)
        if isinstance(f, FilterResult):
            return EntryDecision.uniform(f, entry.size)
        return _decide_flags(
            list(map(f.matches, entry.messages)),
            self.config.batch_mode,
            self.config.reject_action,
        )

    def consumer_filter(self, context: FilterContext) -> ConsumerFilter:
        """The consumer's tag test on single messages (raises FilterError if unreadable)."""
        f = self._filter(context, strict=True)
        if f is None or isinstance(f, FilterResult):
            return ACCEPT_ALL
        return PredicateConsumerFilter(f.matches, f.text)

    def close(self) -> None:
        self._filters.clear()


# --- RocketMQ tags and SQL92 ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RocketMQConfig(FilterConfig):
    """Settings of `RocketMQEntryFilter` (all optional).

    - `expression_key`, `expression_type_key`: where the subscription expression and its
      type (``TAG``, the default, or ``SQL92``: RocketMQ's ``ExpressionType``) are read,
      in the consumer metadata first, then in the subscription properties.
    - `exact_tags`: true (default) compares tag strings, as the client's re-check does;
      false compares Java hash codes only, as the broker's consume-queue check does (a
      hash collision then gets through).
    - `batch_mode`, `reject_action`, `on_invalid`: as for `PulsarTagConfig`.
    """

    expression_key: str = ROCKETMQ_EXPRESSION
    expression_type_key: str = ROCKETMQ_EXPRESSION_TYPE
    exact_tags: bool = True
    batch_mode: BatchMode = BatchMode.ANY
    reject_action: FilterResult = FilterResult.REJECT
    on_invalid: FilterResult = FilterResult.RESCHEDULE

    def validate(self) -> None:
        if self.reject_action is FilterResult.ACCEPT:
            raise FilterConfigError("RocketMQConfig.reject_action cannot be accept")
        if not self.expression_key or not self.expression_type_key:
            raise FilterConfigError("RocketMQConfig: property keys must not be empty")


def rocketmq_dialect(expression_type: str | None) -> str:
    """The msgfilter dialect of a RocketMQ expression type (``ExpressionType``).

    None, "" and ``TAG`` are tag expressions (``rocketmq-tag``); ``SQL92`` is the
    ``rocketmq`` dialect; both exact-case, as RocketMQ compares them. Raises FilterError
    for any other type.
    """
    found = _ROCKETMQ_TYPES.get("" if expression_type is None else expression_type)
    if found is not None:
        return found
    raise FilterError(f"unknown RocketMQ expression type {expression_type!r} (TAG or SQL92)")


class RocketMQEntryFilter(EntryFilter):
    """RocketMQ subscription filtering: a tag expression (``A || B``) or an SQL92 one.

    The expression and its type come from the consumer metadata or the subscription
    properties (`RocketMQConfig`). Without an expression, everything is delivered. A tag
    expression matches a message by its ``TAGS`` (`msgfilter.Message.tags`): exactly, or
    by hash code with ``exact_tags=false``; ``*`` and an empty expression match all
    messages, untagged ones included. An SQL92 expression is evaluated in the ``rocketmq``
    dialect. A non-matching message gets `RocketMQConfig.reject_action`.
    """

    config_type = RocketMQConfig

    def __init__(self, config: RocketMQConfig | None = None) -> None:
        self.config = config if config is not None else RocketMQConfig()
        self._tests: _Memo[tuple[object, object], Callable[[Any], bool] | FilterResult | None] = (
            _Memo()
        )

    def __repr__(self) -> str:
        return f"RocketMQEntryFilter({self.config!r})"

    def _setting(self, context: FilterContext, key: str) -> object:
        meta = context.consumer_metadata
        if meta is not None and key in meta:
            return meta[key]
        return context.subscription_properties.get(key)

    def _compiled(self, context: FilterContext) -> Filter | None:
        expression = self._setting(context, self.config.expression_key)
        if expression is None:
            return None
        expression_type = self._setting(context, self.config.expression_type_key)
        if expression_type is not None and not isinstance(expression_type, str):
            raise FilterError("a RocketMQ expression type is text")
        return compile_filter(_text(expression), rocketmq_dialect(expression_type))

    def _test(self, context: FilterContext) -> Callable[[Any], bool] | FilterResult | None:
        key = (
            self._setting(context, self.config.expression_key),
            self._setting(context, self.config.expression_type_key),
        )

        def build() -> Callable[[Any], bool] | FilterResult | None:
            try:
                f = self._compiled(context)
            except FilterError:
                return self.config.on_invalid
            if f is None:
                return None
            if isinstance(f, RocketMQTagFilter) and not self.config.exact_tags:
                by_code = f.matches_code
                return lambda message: by_code(message_tag_code(message))
            return f.matches

        return self._tests.get(key, build)

    def filter_entry(self, entry: Entry, context: FilterContext) -> FilterResult:
        return self.decide(entry, context).result

    def decide(self, entry: Entry, context: FilterContext) -> EntryDecision:
        test = self._test(context)
        if test is None:
            return EntryDecision.uniform(FilterResult.ACCEPT, entry.size)
        if isinstance(test, FilterResult):
            return EntryDecision.uniform(test, entry.size)
        return _decide_flags(
            list(map(test, entry.messages)), self.config.batch_mode, self.config.reject_action
        )

    def consumer_filter(self, context: FilterContext) -> ConsumerFilter:
        """The client-side test: exact tags (or the SQL92 expression). Raises FilterError."""
        f = self._compiled(context)
        if f is None:
            return ACCEPT_ALL
        return PredicateConsumerFilter(f.matches, f.text)

    def close(self) -> None:
        self._tests.clear()


#: The built-in entry filters by name, for `msgfilter.broker.load_filters`.
BUILTIN_FILTERS: Mapping[str, type[EntryFilter]] = MappingProxyType(
    {
        "jms": JmsSelectorFilter,
        "pulsar-tag": PulsarTagEntryFilter,
        "rocketmq": RocketMQEntryFilter,
    }
)
