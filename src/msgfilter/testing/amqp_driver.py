"""A `BrokerDriver` over AMQP 1.0 (`python-qpid-proton`): Artemis, Qpid Broker-J, and
ActiveMQ Classic with its AMQP transport. The selector travels as the JMS selector filter
(`apache.org:selector-filter:string`) on the receiver's source.

AMQP carries typed values: `int` goes as a long, `float` as a double, `bool` as a
boolean, `str` as a string, and `msgfilter.java.types` values as their Java type (`Int`
as an int, `Short`, `Byte`, `Float`). A value of no Java type, an `int` beyond the long
range and a string with a lone surrogate are left out. The header fields a selector can
name come from the message header and properties: `JMSPriority` is the priority (an
int 0..9; default 4), `JMSType` the subject, `JMSCorrelationID` the correlation id,
`JMSDeliveryMode` the durable flag. The broker sets JMSMessageID and JMSTimestamp itself:
they are not carried.

A refused selector shows as the broker detaching the receiver (or attaching it without
the filter: then the selector would be ignored, which counts as refused too). A send
the broker rejects (an evaluation error, where the broker fails sends for those) is a
REJECTED delivery.
"""

from __future__ import annotations

import contextlib
import itertools
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ..java.types import Byte, Double, Float, Int, Long, Short
from .drivers import BrokerUnavailable, Delivery, Publication
from .oracle import ACTIVEMQ_HEADER_DEFAULTS

__all__ = ["AMQP_DEFAULTS", "SELECTOR_FILTER", "AmqpDriver"]

#: The descriptor of the JMS selector filter (AMQP JMS mapping).
SELECTOR_FILTER = "apache.org:selector-filter:string"

#: The header values of a message sent over AMQP with no header set (ActiveMQ's reading).
AMQP_DEFAULTS: Mapping[str, object] = {**ACTIVEMQ_HEADER_DEFAULTS, "JMSPriority": 4}

_LONG = (-(2**63), 2**63)


def _carried_value(value: object) -> object | None:
    """`value` as AMQP carries it to a JMS broker, or None where it cannot."""
    if type(value) in (bool, float, Int, Short, Byte, Float, Double):
        return value
    if type(value) is str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return None
        return value
    if type(value) in (int, Long) and _LONG[0] <= value < _LONG[1]:  # type: ignore[operator]
        return value
    return None  # BigDecimal, None, bytes, lists ...: no AMQP JMS property


def _wire_value(value: object) -> object:
    import proton

    kind = type(value)
    if kind is Int:
        return proton.int32(int(value))  # type: ignore[call-overload]
    if kind is Short:
        return proton.short(int(value))  # type: ignore[call-overload]
    if kind is Byte:
        return proton.byte(int(value))  # type: ignore[call-overload]
    if kind is Float:
        return proton.float32(float(value))  # type: ignore[arg-type]
    if kind is Long:
        return int(value)  # type: ignore[call-overload]
    if kind is Double:
        return float(value)  # type: ignore[arg-type]
    return value


class AmqpDriver:
    """Subscriptions and sends over one AMQP 1.0 connection.

    `address` is how a destination is named from a topic name (`topic://{}` for ActiveMQ
    and Artemis's default AMQP acceptor); `header_defaults` and `native_dialect` are the
    broker's conventions (ActiveMQ's by default).
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        native_dialect: str = "activemq",
        header_defaults: Mapping[str, object] = AMQP_DEFAULTS,
        address: str = "topic://{}",
        timeout: float = 10.0,
        user: str | None = None,
        password: str | None = None,
    ) -> None:
        self.url = f"amqp://{host}:{port}"
        self.native_dialect = native_dialect
        self.header_defaults = dict(header_defaults)
        self.address = address
        self.timeout = timeout
        self.credentials = (user, password)
        self.connection: Any = None
        self.run = uuid.uuid4().hex[:12]
        self.rounds = itertools.count()
        self.sentinels = itertools.count()
        self.receivers: list[Any] = []
        self.destinations: list[str] = []
        self.senders: dict[str, Any] = {}

    # -- the wire ------------------------------------------------------------------

    def broker_selector(self, text: str) -> str:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError("an AMQP string cannot carry a lone surrogate") from error
        return text

    def carried(self, message: Mapping[str, object]) -> dict[str, object]:
        view: dict[str, object] = dict(self.header_defaults)
        view.update(self._header_fields(message))
        for name, value in message.items():
            if name.startswith("JMS"):
                continue
            carried = _carried_value(value)
            if carried is not None:
                view[name] = carried
        return view

    def _header_fields(self, message: Mapping[str, object]) -> dict[str, object]:
        fields: dict[str, object] = {}
        priority = message.get("JMSPriority")
        if type(priority) is int and 0 <= priority <= 9:
            fields["JMSPriority"] = priority
        for name in ("JMSType", "JMSCorrelationID"):
            value = message.get(name)
            if type(value) is str and _carried_value(value) is not None:
                fields[name] = value
        if message.get("JMSDeliveryMode") in ("PERSISTENT", "NON_PERSISTENT"):
            fields["JMSDeliveryMode"] = message["JMSDeliveryMode"]
        return fields

    def amqp_message(self, message: Mapping[str, object], number: int) -> Any:
        """The proton `Message` sent for `message` (its number in a property whose name
        is no identifier, so that no selector can read it)."""
        import proton

        fields = self._header_fields(message)
        properties: dict[str, object] = {"msgfilter-n": number}
        for name, value in message.items():
            carried = None if name.startswith("JMS") else _carried_value(value)
            if carried is not None:
                properties[name] = _wire_value(carried)
        amqp = proton.Message(properties=properties, body="")
        if "JMSPriority" in fields:
            amqp.priority = cast(int, fields["JMSPriority"])
        if "JMSType" in fields:
            amqp.subject = str(fields["JMSType"])
        if "JMSCorrelationID" in fields:
            amqp.correlation_id = str(fields["JMSCorrelationID"])
        amqp.durable = fields.get("JMSDeliveryMode") == "PERSISTENT"
        return amqp

    # -- the connection --------------------------------------------------------------

    def __enter__(self) -> AmqpDriver:
        from proton.utils import BlockingConnection

        user, password = self.credentials
        options: dict[str, Any] = {}
        if user is not None:
            options.update(user=user, password=password, allowed_mechs="PLAIN")
        try:
            self.connection = BlockingConnection(self.url, timeout=self.timeout, reconnect=False,
                                                 **options)
        except Exception as error:  # proton raises ConnectionException, Timeout, OSError
            raise BrokerUnavailable(f"cannot connect to an AMQP broker at {self.url}: {error}") \
                from error
        self.control = self.address.format(f"msgfilter.fuzz.{self.run}.control")
        self.control_receiver = self._call(self.connection.create_receiver, self.control,
                                           credit=100)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.connection is not None:
            # Closing a connection that already failed may raise: it is closed either way.
            with contextlib.suppress(Exception):
                self.connection.close()
            self.connection = None

    def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        from proton import Timeout
        from proton.utils import ConnectionClosed

        try:
            return method(*args, **kwargs)
        except (Timeout, ConnectionClosed) as error:
            raise BrokerUnavailable(f"the AMQP broker stopped answering: {error}") from error

    def subscribe(self, selectors: Sequence[str]) -> list[str | None]:
        from proton.reactor import Selector
        from proton.utils import LinkDetached

        self._close_receivers()
        number = next(self.rounds)
        self.destinations = [self.address.format(f"msgfilter.fuzz.{self.run}.{number}.{i}")
                             for i in range(len(selectors))]
        answers: list[str | None] = []
        for destination, text in zip(self.destinations, selectors, strict=True):
            try:
                receiver = self._call(self.connection.create_receiver, destination,
                                      credit=1000, options=Selector(text))
            except LinkDetached as error:
                self.receivers.append(None)
                answers.append(str(error) or "the broker detached the receiver")
                continue
            refusal = self._refusal(receiver)
            if refusal is not None:
                with contextlib.suppress(Exception):
                    receiver.close()
                self.receivers.append(None)
                answers.append(refusal)
                continue
            self.receivers.append(receiver)
            answers.append(None)
        return answers

    def _refusal(self, receiver: Any) -> str | None:
        """Why the broker did not take the selector, or None when it did. A broker refuses
        by attaching with no filter (or no source) and detaching at once with an error; one
        that ignores filters attaches without it and stays."""
        from proton import Endpoint, Timeout, symbol
        from proton.utils import LinkDetached

        taken = receiver.link.remote_source.filter
        taken.rewind()
        if taken.next() and symbol("selector") in (taken.get_object() or {}):
            return None
        link = receiver.link
        with contextlib.suppress(Timeout, LinkDetached):
            self.connection.wait(lambda: link.state & Endpoint.REMOTE_CLOSED, timeout=0.5)
        condition = link.remote_condition
        if link.state & Endpoint.REMOTE_CLOSED:
            return (condition.description if condition is not None else "") or \
                "the broker detached the receiver"
        return "the broker attached the receiver without the selector filter"

    def _close_receivers(self) -> None:
        for receiver in self.receivers:
            if receiver is not None:
                with contextlib.suppress(Exception):
                    receiver.close()
        self.receivers = []

    def _sender(self, destination: str) -> Any:
        sender = self.senders.get(destination)
        if sender is None:
            sender = self._call(self.connection.create_sender, destination)
            self.senders[destination] = sender
        return sender

    def publish(self, batch: Sequence[Publication]) -> Delivery:
        from proton import Delivery as AmqpDelivery

        deliveries = []
        for number, publication in enumerate(batch):
            sender = self._sender(self.destinations[publication.subscription])
            deliveries.append(sender.link.send(self.amqp_message(publication.message, number)))
        self._call(self.connection.wait, lambda: all(d.remote_state for d in deliveries),
                   msg="waiting for the broker to settle the sends", timeout=self.timeout)
        refused: dict[int, str] = {}
        for number, delivery in enumerate(deliveries):
            if delivery.remote_state in (AmqpDelivery.REJECTED, AmqpDelivery.RELEASED):
                condition = delivery.remote.condition
                refused[number] = (condition.description if condition is not None else "") \
                    or f"the broker answered {delivery.remote_state}"
            delivery.settle()
        # One connection dispatches in order: once the control message is in, every
        # message the sends above delivered is in too.
        end = -1 - next(self.sentinels)
        control = self._sender(self.control)
        self._call(control.send, self.amqp_message({}, end))
        while True:
            message = self._call(self.control_receiver.receive, timeout=self.timeout)
            self.control_receiver.accept()
            if message.properties.get("msgfilter-n") == end:
                break
        received: list[set[int]] = [set() for _ in self.destinations]
        for i, receiver in enumerate(self.receivers):
            while receiver is not None and receiver.fetcher.has_message:
                message = receiver.fetcher.pop()
                receiver.accept()
                received[i].add(int(message.properties["msgfilter-n"]))
        for sender in list(self.senders.values()):
            if sender is not control:
                with contextlib.suppress(Exception):
                    sender.close()
        self.senders = {self.control: control}
        return Delivery(received, refused)
