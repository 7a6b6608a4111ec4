"""The campaign runner's parts that need no broker: generation, the outcome msgfilter
gives, the message codec, shrinking, and the command's refusals (exit status 2)."""

from __future__ import annotations

import math

import pytest

import msgfilter
from msgfilter.cli import main
from msgfilter.testing.campaign import (
    DELIVERED,
    NOT_DELIVERED,
    REFUSED,
    SEND_FAILED,
    decode_message,
    encode_message,
    expected_outcome,
    generate_cases,
)
from msgfilter.testing.drivers import BrokerUnavailable
from msgfilter.testing.shrinking import shrink_case

NAMES = ["a", "b", "s", "JMSType", "JMSPriority"]
TYPES = ["long", "double", "string", "boolean"]


def test_generation_is_deterministic_and_distinct() -> None:
    first = generate_cases(20, 5, identifiers=NAMES, types=TYPES)
    assert first == generate_cases(20, 5, identifiers=NAMES, types=TYPES)
    assert first[:5] != generate_cases(5, 6, identifiers=NAMES, types=TYPES)
    texts = [text for text, _ in first]
    assert len(texts) == len(set(texts)) == 20
    assert all(messages for _, messages in first)
    # A tenth are near misses (which the jms dialect mostly refuses), spread out.
    refused = []
    for i, text in enumerate(texts):
        try:
            msgfilter.compile(text)
        except msgfilter.FilterError:
            refused.append(i)
    assert 1 <= len(refused) <= 2 and refused[0] >= 5


def test_the_four_outcomes() -> None:
    assert expected_outcome("activemq", "a = 1", {"a": 1}) == DELIVERED
    assert expected_outcome("activemq", "a = 1", {"a": 2}) == NOT_DELIVERED
    assert expected_outcome("activemq", "a = = 1", {}) == REFUSED
    assert expected_outcome("activemq", "a / 1 = 1", {"a": "x"}) == SEND_FAILED
    assert expected_outcome("jms", "a / 1 = 1", {"a": "x"}) == NOT_DELIVERED


def test_messages_round_trip_through_json() -> None:
    message = {"a": 1, "d": 1.0, "n": math.nan, "i": -math.inf, "s": "x", "t": True}
    back = decode_message(encode_message(message))
    assert back.keys() == message.keys()
    assert type(back["a"]) is int and type(back["d"]) is float and math.isnan(back["n"])  # type: ignore[arg-type]
    assert back["i"] == -math.inf and back["s"] == "x" and back["t"] is True


def test_shrinking_keeps_the_failure_and_the_spelling() -> None:
    text = "a = 1 AND (b > 0x10 OR s LIKE 'x%')"
    message = {"a": 1, "b": 17, "s": "xyz", "extra": "long text"}

    # "Fails" while the selector is valid, still has the hex literal, and matches.
    def still_fails(candidate: str, smaller: dict[str, object]) -> bool:
        try:
            selector = msgfilter.compile(candidate)
        except msgfilter.FilterError:
            return False
        return "0x10" in candidate and selector.matches(smaller)

    (small, small_message), tried = shrink_case((text, message), still_fails)
    assert small == "b > 0x10"
    assert small_message == {"b": 17}
    assert 0 < tried <= 200


def test_shrinking_stops_at_its_budget() -> None:
    calls = []

    def never(candidate: str, smaller: dict[str, object]) -> bool:
        calls.append(candidate)
        return False

    _, tried = shrink_case(("a = 1 AND b = 2 AND c = 3", {"a": "xxxxxxxx"}), never, budget=5)
    assert tried == len(calls) == 5


def test_the_command_refuses_what_it_cannot_run(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("stomp")
    assert main(["fuzz-broker", "--stomp", "127.0.0.1:1", "--selectors", "5"]) == 2
    assert "cannot connect" in capsys.readouterr().err
    assert main(["fuzz-broker", "--stomp", "nowhere", "--selectors", "5"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err
    assert main(["fuzz-broker", "--stomp", "h:1", "--selectors", "0"]) == 2
    assert main(["fuzz-broker", "--stomp", "h:1", "--message", "{}"]) == 2
    assert main(["fuzz-broker", "--stomp", "h:1", "--identifiers", "a,JMSTimestamp"]) == 2
    assert "JMSTimestamp: set on each message" in capsys.readouterr().err
    from msgfilter.testing.stomp_driver import StompDriver

    with pytest.raises(BrokerUnavailable), StompDriver("127.0.0.1", 1):
        pass
