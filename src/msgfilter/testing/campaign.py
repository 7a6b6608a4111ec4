"""A fuzz campaign against a live broker: generated selectors and messages, the broker's
answer beside msgfilter's, and each disagreement shrunk to a case one can file.

Each (selector, message) has one of four outcomes: `delivered`, `not delivered`,
`refused` (the broker refused the selector; msgfilter: `compile` raised), and
`send failed` (the broker failed the send because the selector threw while it evaluated
it; msgfilter: `match_outcome` is an `EvaluationFailure`). msgfilter's answer is the
dialect's for the selector the broker evaluates (`driver.broker_selector`) on the
message the broker holds (`driver.carried`).

A disagreement the broker's own dialect (`driver.native_dialect`) shares is a
`departure`: the dialect under test documents it ("(ActiveMQ: ...)" in
jms-selectors.md), so it does not fail the campaign.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine import compile
from ..errors import EvaluationFailure, FilterError
from .drivers import BrokerDriver, Publication
from .shrinking import shrink_case

__all__ = [
    "CampaignResult",
    "Disagreement",
    "decode_message",
    "encode_message",
    "expected_outcome",
    "generate_cases",
    "observe",
    "replay_command",
    "run_campaign",
]

DELIVERED, NOT_DELIVERED, REFUSED, SEND_FAILED = (
    "delivered", "not delivered", "refused", "send failed",
)


def expected_outcome(dialect: str, broker_text: str, view: Mapping[str, object]) -> str:
    """msgfilter's answer, as one of the four outcomes."""
    try:
        selector = compile(broker_text, dialect)
    except FilterError:
        return REFUSED
    got = selector.match_outcome(view) if hasattr(selector, "match_outcome") else \
        selector.matches(view)
    if isinstance(got, EvaluationFailure):
        return SEND_FAILED
    return DELIVERED if got else NOT_DELIVERED


def encode_message(message: Mapping[str, object]) -> dict[str, Any]:
    """A message for JSON: strings, booleans and longs as they are, doubles as
    `{"double": text}` (so that NaN and infinities fit, and `1.0` stays a double)."""
    out: dict[str, Any] = {}
    for name, value in message.items():
        out[name] = {"double": repr(value)} if type(value) is float else value
    return out


def decode_message(data: Mapping[str, Any]) -> dict[str, object]:
    """The inverse of `encode_message`."""
    out: dict[str, object] = {}
    for name, value in data.items():
        if isinstance(value, dict) and set(value) == {"double"}:
            out[name] = float(value["double"])
        else:
            out[name] = value
    return out


class _Enough(Exception):
    """Raised in a Hypothesis test to end generation once enough cases are in."""


Cases = list[tuple[str, list[dict[str, object]]]]


def _distinct(strategy: Any, count: int, seed: int,
              progress: Callable[[int], None] | None = None) -> Cases:
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as seeded

    found: dict[str, tuple[str, list[dict[str, object]]]] = {}

    # Hypothesis draws small examples again and again: keep the first of each selector,
    # and stop (by raising) once `count` differ.
    @seeded(seed)
    @settings(max_examples=count * 20, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @given(strategy)
    def collect(case: tuple[str, list[dict[str, object]]]) -> None:
        if case[0] not in found:
            found[case[0]] = case
            if progress is not None and len(found) % 100 == 0:
                progress(len(found))
        if len(found) >= count:
            raise _Enough

    with contextlib.suppress(_Enough):
        collect()
    return list(found.values())[:count]


def generate_cases(
    count: int,
    seed: int,
    *,
    identifiers: Sequence[str],
    types: Sequence[str],
    max_depth: int = 2,
    max_messages: int = 4,
    invalid_share: float = 0.1,
    progress: Callable[[str], None] | None = None,
) -> Cases:
    """`count` distinct selectors, each with messages, the same for the same arguments:
    Hypothesis's `selector_cases`, and `invalid_share` of them near misses from
    `invalid_selectors` (spread evenly through the list). `progress` hears of every
    hundred."""
    from hypothesis import strategies as st

    from .message_cases import messages, selector_cases
    from .near_misses import invalid_selectors

    broken_count = round(count * invalid_share)

    def counted(found: int) -> None:
        if progress is not None:
            progress(f"generated {found}/{count - broken_count} valid selectors")

    valid = _distinct(
        selector_cases(identifiers=identifiers, types=types, max_depth=max_depth,
                       max_messages=max_messages),
        count - broken_count, seed, counted,
    )
    broken = _distinct(
        st.tuples(
            invalid_selectors(identifiers=identifiers, max_depth=max_depth),
            st.lists(messages(identifiers, types), min_size=1, max_size=max_messages),
        ),
        broken_count, seed,
    ) if broken_count else []
    cases: Cases = []
    for i, case in enumerate(valid):
        cases.append(case)
        if broken and (i + 1) * broken_count // max(len(valid), 1) > i * broken_count // max(
            len(valid), 1
        ):
            cases.append(broken.pop(0))
    return cases + broken


def observe(driver: BrokerDriver, text: str, message: Mapping[str, object]) -> str:
    """The broker's outcome for one selector and one message, alone."""
    (refusal,) = driver.subscribe([text])
    if refusal is not None:
        return REFUSED
    delivery = driver.publish([Publication(0, message)])
    if 0 in delivery.refused:
        return SEND_FAILED
    return DELIVERED if 0 in delivery.received[0] else NOT_DELIVERED


@dataclass
class Disagreement:
    """One shrunk case: what msgfilter and the broker answered, and the original."""

    kind: str
    selector: str
    message: dict[str, object]
    msgfilter: str
    broker: str
    original_selector: str
    original_message: dict[str, object]
    probes: int

    def as_json(self, replay: str) -> dict[str, Any]:
        return {
            "kind": self.kind, "selector": self.selector,
            "message": encode_message(self.message),
            "msgfilter": self.msgfilter, "broker": self.broker,
            "original": {"selector": self.original_selector,
                         "message": encode_message(self.original_message)},
            "shrink_probes": self.probes, "replay": replay,
        }


@dataclass
class CampaignResult:
    selectors: int = 0
    cases: int = 0
    agreements: int = 0
    uncarried: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    departures: Counter[str] = field(default_factory=Counter)
    disagreements: Counter[str] = field(default_factory=Counter)
    shrunk: list[Disagreement] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> str:
        rate = self.selectors / self.seconds if self.seconds else 0.0
        lines = [
            f"{self.selectors} selectors, {self.cases} cases in {self.seconds:.1f} s "
            f"({rate:.0f} selectors/s): {self.agreements} agree, "
            f"{sum(self.departures.values())} documented departures, "
            f"{sum(self.disagreements.values())} disagree"
            + (f"; {self.uncarried} selectors the wire cannot carry" if self.uncarried else ""),
            "  outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items())),
        ]
        lines += [f"  departure: {kind}: {count}" for kind, count in self.departures.items()]
        lines += [f"  disagreement: {kind}: {count}"
                  for kind, count in self.disagreements.items()]
        return "\n".join(lines)


def _kind(mine: str, theirs: str) -> str:
    return f"msgfilter {mine}, broker {theirs}"


@dataclass
class _Campaign:
    driver: BrokerDriver
    dialect: str
    result: CampaignResult
    shrink_budget: int
    max_shrunk: int
    seen: set[tuple[str, str]] = field(default_factory=set)

    def expected(self, text: str, message: Mapping[str, object]) -> tuple[str, str]:
        broker_text = self.driver.broker_selector(text)
        view = self.driver.carried(message)
        return (expected_outcome(self.dialect, broker_text, view),
                expected_outcome(self.driver.native_dialect, broker_text, view))

    def judge(self, text: str, message: dict[str, object], theirs: str) -> None:
        mine, native = self.expected(text, message)
        self.result.cases += 1
        self.result.outcomes[theirs] += 1
        if mine == theirs:
            self.result.agreements += 1
        elif native == theirs:
            self.result.departures[_kind(mine, theirs)] += 1
        else:
            kind = _kind(mine, theirs)
            self.result.disagreements[kind] += 1
            self.shrink(kind, text, message)

    def shrink(self, kind: str, text: str, message: dict[str, object]) -> None:
        if len(self.result.shrunk) >= self.max_shrunk:
            return

        def still_fails(candidate: str, smaller: dict[str, object]) -> bool:
            try:
                mine, native = self.expected(candidate, smaller)
            except ValueError:
                return False
            theirs = observe(self.driver, candidate, smaller)
            return _kind(mine, theirs) == kind and native != theirs

        (small_text, small_message), probes = shrink_case(
            (text, message), still_fails, dialects=(self.dialect, "jms"),
            budget=self.shrink_budget,
        )
        key = (small_text, repr(sorted(small_message.items())))
        if key in self.seen:
            return
        self.seen.add(key)
        mine, _ = self.expected(small_text, small_message)
        self.result.shrunk.append(Disagreement(
            kind, small_text, small_message, mine, observe(self.driver, small_text, small_message),
            text, message, probes,
        ))

    def batch(self, cases: Sequence[tuple[str, list[dict[str, object]]]]) -> None:
        carried: list[tuple[str, list[dict[str, object]]]] = []
        for text, messages in cases:
            try:
                self.driver.broker_selector(text)
            except ValueError:
                self.result.uncarried += 1
                continue
            carried.append((text, messages))
        self.result.selectors += len(cases)
        refusals = self.driver.subscribe([t for t, _ in carried])
        # A refused selector is one case, whatever its messages: none are sent for it.
        sent = [(i, m) for i, (_, messages) in enumerate(carried) if refusals[i] is None
                for m in messages]
        delivery = self.driver.publish([Publication(i, m) for i, m in sent])
        # Judged after the batch: shrinking drives the broker with subscriptions of its own.
        judged = [(text, messages[0], REFUSED) for (text, messages), refusal
                  in zip(carried, refusals, strict=True) if refusal is not None]
        for number, (i, message) in enumerate(sent):
            if number in delivery.refused:
                theirs = SEND_FAILED
            else:
                theirs = DELIVERED if number in delivery.received[i] else NOT_DELIVERED
            judged.append((carried[i][0], message, theirs))
        for text, message, theirs in judged:
            self.judge(text, message, theirs)


def run_campaign(
    driver: BrokerDriver,
    dialect: str,
    cases: Sequence[tuple[str, list[dict[str, object]]]],
    *,
    batch_size: int = 100,
    shrink_budget: int = 200,
    max_shrunk: int = 50,
    progress: Callable[[str], None] | None = None,
) -> CampaignResult:
    """Run `cases` (from `generate_cases`) through `driver` in batches of `batch_size`
    subscriptions open at once, shrinking up to `max_shrunk` disagreements."""
    result = CampaignResult()
    campaign = _Campaign(driver, dialect, result, shrink_budget, max_shrunk)
    started = time.monotonic()
    for start in range(0, len(cases), batch_size):
        campaign.batch(cases[start:start + batch_size])
        result.seconds = time.monotonic() - started
        if progress is not None:
            progress(
                f"{result.selectors}/{len(cases)} selectors, {result.cases} cases, "
                f"{sum(result.disagreements.values())} disagreements "
                f"({result.selectors / max(result.seconds, 1e-9):.0f} selectors/s)"
            )
    result.seconds = time.monotonic() - started
    return result


def replay_command(address: str, dialect: str, selector: str,
                   message: Mapping[str, object], protocol: str = "stomp",
                   options: Sequence[str] = ()) -> str:
    """The command line that runs one case again."""
    return shlex.join([
        "msgfilter", "fuzz-broker", f"--{protocol}", address, "--dialect", dialect, *options,
        "--selector", selector, "--message", json.dumps(encode_message(message)),
    ])
