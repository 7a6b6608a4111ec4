"""How pulsar-jms judges messages against one subscription's selectors and a consumer's:
the compiled checks (typed evaluators, see `msgfilter.pulsar_jms.evaluator`) and the
per-message codes its broker filter turns into results (`msgfilter.broker.pulsar_jms`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..filter import Filter
from ..message import Message
from ..selector import SelectorFilter
from .evaluator import TYPED_READS
from .reader import Reads, TypedReader
from .values import JsmTypeError


@dataclass(frozen=True, slots=True)
class Check:
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


def check_of(f: Filter, typed: bool) -> Check:
    if not typed:
        return Check(f, False, f.matches)
    if isinstance(f, SelectorFilter):
        return Check(f, True, f.typed_matches(TYPED_READS), f.typed_matches_all(TYPED_READS))
    test = eager_test(f)

    def test_all(messages: tuple[Message, ...], reads: Reads, memo: Any) -> list[int]:
        return [test(m.view_dict, m.property_dict, m.header_dict, reads, memo) for m in messages]

    return Check(f, True, test, test_all)


def eager_test(f: Filter) -> Callable[..., bool]:
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
SUBSCRIPTION_MISS, MATCH, CONSUMER_MISS, ERROR = range(4)


@dataclass(frozen=True, slots=True)
class Judge:
    """The checks one subscription + consumer setting compiles to, and how they judge.

    `reader` decodes typed properties for the selectors that read the typed view, each
    where evaluation reads it, with its own memo.
    """

    subscription: tuple[Check, ...]
    consumer: Check | None
    names: frozenset[str]
    typed: bool
    reader: TypedReader

    def judge(self, message: Message, destination: str | None) -> int:
        """MATCH, SUBSCRIPTION_MISS, CONSUMER_MISS or ERROR for one message, judged as
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
        None); its `raised` then tells whether any code can be ERROR."""
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

        def run(check: Check, m: Message) -> bool:
            if check.typed:
                return check.test(m.view_dict, m.property_dict, m.header_dict, reads, memo)
            return check.test(m)

        for m in messages:
            code = MATCH
            if batch and consumer is not None:
                if not run(consumer, m):
                    code = CONSUMER_MISS
                    if reads.failed is not None:
                        reads.failed = None
                        append(ERROR)
                        continue
                last_done = True
            else:
                last_done = False
            for check in self.subscription:
                if not run(check, m):
                    code = SUBSCRIPTION_MISS
                    if reads.failed is not None:
                        reads.failed = None
                        code = ERROR
                    break
            if code == MATCH and consumer is not None and not last_done and not run(consumer, m):
                code = CONSUMER_MISS
                if reads.failed is not None:
                    reads.failed = None
                    code = ERROR
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
            # True and False are MATCH and SUBSCRIPTION_MISS.
            codes: list[int] = first.test_all(messages, reads, memo)
            if reads.failed is None:
                if consumer is not None:
                    # Then the consumer's selector on the messages that passed (evaluation
                    # has no side effects: each message's code is as if judged alone).
                    last_test = consumer.test
                    for index, code in enumerate(codes):
                        if code:
                            m = messages[index]
                            shown, props, heads = m.view_dict, m.property_dict, m.header_dict
                            if not last_test(shown, props, heads, reads, memo):
                                codes[index] = (
                                    CONSUMER_MISS if reads.failed is None else ERROR
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
            shown, props, heads = m.view_dict, m.property_dict, m.header_dict
            if not test(shown, props, heads, reads, memo):
                append(SUBSCRIPTION_MISS if reads.failed is None else ERROR)
                reads.failed = None
            elif last is None or last(shown, props, heads, reads, memo):
                append(MATCH)
            else:
                append(CONSUMER_MISS if reads.failed is None else ERROR)
                reads.failed = None
        return codes


