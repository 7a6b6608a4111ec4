"""The AMQP 1.0 driver. No broker with AMQP is at hand here (Debian's ActiveMQ leaves out
its AMQP transport), so its wire is tested as far as it goes without one: the messages it
encodes, decoded by proton again, and its links, filters, settlements and end signal
against a stand-in proton peer (`amqp_peer.py`) that judges with msgfilter itself."""

from __future__ import annotations

import math

import pytest

proton = pytest.importorskip("proton")

from amqp_peer import AmqpPeer  # noqa: E402

from msgfilter.cli import main  # noqa: E402
from msgfilter.jtypes import Byte, Float, Int, Short  # noqa: E402
from msgfilter.testing.amqp_driver import SELECTOR_FILTER, AmqpDriver  # noqa: E402
from msgfilter.testing.campaign import generate_cases, run_campaign  # noqa: E402
from msgfilter.testing.drivers import BrokerUnavailable, Publication  # noqa: E402


def _decoded(message: object) -> object:
    again = proton.Message()
    again.decode(message.encode())  # type: ignore[attr-defined]
    return again


def test_values_travel_typed() -> None:
    driver = AmqpDriver("127.0.0.1", 1)
    sent = _decoded(driver.amqp_message({
        "l": 5, "d": 1.5, "n": math.nan, "t": True, "s": "x\x00y", "i": Int(7), "h": Short(3),
        "b": Byte(-1), "f": Float(1.1), "big": 2**63, "none": None, "raw": b"x",
        "lone": "\ud800", "JMSPriority": 7, "JMSType": "T", "JMSCorrelationID": "c",
        "JMSDeliveryMode": "PERSISTENT", "JMSMessageID": "ID:1",
    }, 3))
    props = sent.properties  # type: ignore[attr-defined]
    assert type(props["l"]) is int and props["l"] == 5
    assert type(props["d"]) is float and math.isnan(props["n"])
    assert props["t"] is True and props["s"] == "x\x00y"
    assert type(props["i"]) is proton.int32 and type(props["h"]) is proton.short
    assert type(props["b"]) is proton.byte and type(props["f"]) is proton.float32
    assert props["msgfilter-n"] == 3
    for left_out in ("big", "none", "raw", "lone", "JMSPriority", "JMSMessageID"):
        assert left_out not in props
    assert sent.priority == 7 and sent.subject == "T"  # type: ignore[attr-defined]
    assert sent.correlation_id == "c" and sent.durable  # type: ignore[attr-defined]


def test_the_message_the_broker_holds() -> None:
    view = AmqpDriver("127.0.0.1", 1).carried(
        {"a": 1, "JMSPriority": 12, "JMSType": 5, "raw": b"x", "i": Int(2)}
    )
    assert view["JMSPriority"] == 4  # 12 is no JMS priority: not sent, the default
    assert "JMSType" not in view and "raw" not in view
    assert view["a"] == 1 and type(view["i"]) is Int
    assert view["JMSDeliveryMode"] == "NON_PERSISTENT"


def test_subscribe_publish_and_the_end_signal_over_the_wire() -> None:
    with AmqpPeer() as peer, AmqpDriver("127.0.0.1", peer.port) as driver:
        answers = driver.subscribe(["a = 1", "a = = 1", "a / 1 = 1", "JMSType = 'T'"])
        assert answers[0] is None and answers[2] is None and answers[3] is None
        assert "invalid selector" in answers[1]  # type: ignore[operator]
        assert proton.Described(proton.symbol(SELECTOR_FILTER), "a = 1") in peer.handler.filters
        delivery = driver.publish([
            Publication(0, {"a": 1}), Publication(0, {"a": 2}), Publication(2, {"a": "x"}),
            Publication(2, {}), Publication(3, {"JMSType": "T"}), Publication(0, {"a": 1}),
        ])
        assert delivery.received == [{0, 5}, set(), set(), {4}]
        assert set(delivery.refused) == {2}
        assert "x" in delivery.refused[2]  # the reason the peer gave
        # A second round closes the first one's receivers.
        assert driver.subscribe(["a = 2"]) == [None]
        assert driver.publish([Publication(0, {"a": 2})]).received == [{0}]


def test_a_receiver_attached_without_the_filter_is_refused() -> None:
    with AmqpPeer(drop_filters=True) as peer, AmqpDriver("127.0.0.1", peer.port) as driver:
        (answer,) = driver.subscribe(["a = 1"])
        assert answer is not None and "without the selector filter" in answer


def test_a_campaign_runs_over_amqp() -> None:
    cases = generate_cases(12, 11, identifiers=["a", "b", "s"], types=["long", "string"])
    with AmqpPeer() as peer, AmqpDriver("127.0.0.1", peer.port) as driver:
        result = run_campaign(driver, "activemq", cases, batch_size=5)
    # The peer judges with the activemq dialect: every case must agree, and each
    # selector either delivered, or not, or was refused, over the real wire.
    assert result.disagreements == {}, result.shrunk
    assert result.selectors == 12 and result.agreements == result.cases


def test_no_amqp_broker() -> None:
    with pytest.raises(BrokerUnavailable), AmqpDriver("127.0.0.1", 1, timeout=2):
        pass
    assert main(["fuzz-broker", "--amqp", "127.0.0.1:1", "--timeout", "2",
                 "--selectors", "3"]) == 2
