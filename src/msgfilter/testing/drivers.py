"""What a campaign asks of a live broker: the `BrokerDriver` protocol and its answers.

A driver opens subscriptions with selectors and learns which the broker accepted,
publishes a batch of messages, and tells what each subscription received and which sends
the broker refused. Every subscription gets a destination of its own, and a message is
published to one subscription's destination: where a selector's evaluation throws,
ActiveMQ fails the *send* (the message reaches no subscriber of that destination), so a
shared destination would let one selector hide every other's answer.

Drivers: `StompDriver` (`msgfilter.testing.stomp_driver`) and `AmqpDriver`
(`msgfilter.testing.amqp_driver`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["SET_AT_SEND", "BrokerDriver", "BrokerUnavailable", "Delivery", "Publication"]

#: Header fields the client or broker sets on each message as it is sent (a fresh id, the
#: clock, the destination): no campaign can know them beforehand, so selectors must not
#: name them (ActiveMQ 5.17 over STOMP: `JMSTimestamp = 0`, `JMSMessageID IS NULL` and
#: `JMSDestination IS NULL` are all FALSE).
SET_AT_SEND: frozenset[str] = frozenset({"JMSMessageID", "JMSTimestamp", "JMSDestination"})


class BrokerUnavailable(Exception):
    """The broker could not be reached, or stopped answering (not a selector's fault)."""


@dataclass(frozen=True, slots=True)
class Publication:
    """One message for the destination of subscription `subscription`."""

    subscription: int
    message: Mapping[str, object]


@dataclass(slots=True)
class Delivery:
    """What came of one `publish`: for each subscription the indexes (into the batch) of
    the messages it received, and the broker's reason for each send it refused."""

    received: list[set[int]]
    refused: dict[int, str] = field(default_factory=dict)


class BrokerDriver(Protocol):
    """A live broker, as a campaign drives it. Use it as a context manager."""

    #: The dialect that is the broker's own selector code (`activemq` for ActiveMQ).
    native_dialect: str

    def __enter__(self) -> BrokerDriver: ...

    def __exit__(self, *exc_info: object) -> None: ...

    def broker_selector(self, text: str) -> str:
        """The selector the broker evaluates when a client subscribes with `text` (ActiveMQ's
        STOMP prefixes `convert_string_expressions:`)."""
        ...

    def carried(self, message: Mapping[str, object]) -> dict[str, object]:
        """`message` as the broker holds it once sent: the header values a sent message gets
        (priority and the like), then each value the wire can carry, as it arrives. Values
        the wire cannot carry are left out: to the broker those names are absent."""
        ...

    def subscribe(self, selectors: Sequence[str]) -> list[str | None]:
        """Open one subscription per selector (as a client writes it: the driver adds what
        the broker's conventions add), each on its own destination (any earlier ones are
        closed first). For each: None when the broker accepted it, else the
        broker's reason for refusing it."""
        ...

    def publish(self, batch: Sequence[Publication]) -> Delivery:
        """Send every message to its subscription's destination and wait until all that the
        broker delivers has arrived."""
        ...
