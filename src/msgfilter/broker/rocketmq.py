"""The RocketMQ built-in entry filter: a subscription's tag expression or SQL92 filter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..engine import compile as compile_filter
from ..errors import FilterError
from ..filter import Filter
from ..tags import RocketMQTagFilter, message_tag_code
from .batches import BatchMode
from .config import FilterConfig
from .context import Entry, FilterContext
from .errors import FilterConfigError
from .filters import ConsumerFilter, EntryFilter
from .results import EntryDecision, FilterResult
from .shared import ACCEPT_ALL, Memo, PredicateConsumerFilter, decide_flags, selector_text

ROCKETMQ_EXPRESSION = "rocketmq.expression"
ROCKETMQ_EXPRESSION_TYPE = "rocketmq.expression.type"
#: RocketMQ's expression types (``ExpressionType``, compared exactly as RocketMQ does)
#: and the dialect of each.
_ROCKETMQ_TYPES = {"": "rocketmq-tag", "TAG": "rocketmq-tag", "SQL92": "rocketmq"}

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
        self._tests: Memo[tuple[object, object], Callable[[Any], bool] | FilterResult | None] = (
            Memo()
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
        return compile_filter(selector_text(expression), rocketmq_dialect(expression_type))

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
        return decide_flags(
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


