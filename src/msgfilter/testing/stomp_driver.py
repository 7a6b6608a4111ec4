"""A `BrokerDriver` over STOMP 1.2 (`stomp.py`): ActiveMQ Classic, Artemis, and any broker
that takes a `selector` header on SUBSCRIBE.

STOMP carries strings only: every property arrives as a String, so a number or a
boolean is sent as its Java text (`1.5`, `true`) and a value of no Java type is left out.
A header value cannot hold NUL, and a lone surrogate has no UTF-8: those are left out
too (a selector holding one cannot be sent: `Uncarried`).

ActiveMQ's conventions are the defaults: it prefixes every STOMP selector with
`convert_string_expressions:` (numeric comparisons then read numeric strings as
numbers), a message sent without a `priority` header has JMSPriority 4, and the header
fields a selector can name come from the STOMP headers `priority`, `type` and
`correlation-id`. Where a selector throws while the broker evaluates it, ActiveMQ answers
the SEND with an ERROR frame (the send failed; no subscriber got it).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from ..java.text import value_text
from ..java.types import JavaFloating, JavaInteger
from .drivers import BrokerUnavailable, Delivery, Publication
from .oracle import ACTIVEMQ_HEADER_DEFAULTS

__all__ = [
    "ACTIVEMQ_STOMP_DEFAULTS",
    "ACTIVEMQ_STOMP_PREFIX",
    "STOMP_HEADER_FIELDS",
    "StompDriver",
    "Uncarried",
]

#: What ActiveMQ puts before every selector a STOMP client subscribes with.
ACTIVEMQ_STOMP_PREFIX = "convert_string_expressions:"

#: The header values of a message an ActiveMQ STOMP client sends with no header set.
ACTIVEMQ_STOMP_DEFAULTS: Mapping[str, object] = {**ACTIVEMQ_HEADER_DEFAULTS, "JMSPriority": 4}

#: The JMS header fields a STOMP frame sets, and the STOMP header that sets each.
STOMP_HEADER_FIELDS: Mapping[str, str] = {
    "JMSPriority": "priority", "JMSType": "type", "JMSCorrelationID": "correlation-id",
}

# STOMP frame headers that are no property: the broker reads them, or STOMP itself does.
_RESERVED = frozenset({
    "destination", "receipt", "content-length", "content-type", "transaction", "priority",
    "type", "correlation-id", "expires", "persistent", "reply-to", "subscription",
    "message-id", "ack", "id", "selector", "redelivered", "timestamp", "receipt-id",
})
_NUMBER_HEADER = "msgfilter-n"  # not an identifier: no selector can name it
_CONTROL = "control"


class Uncarried(ValueError):
    """A selector the wire cannot carry (a NUL or a lone surrogate in a STOMP header)."""


def _wire_text(value: object) -> str | None:
    """A property value as a STOMP header carries it, or None where it cannot."""
    # Exact classes, as the dialects type values: a subclass of int or str is no Java value.
    if isinstance(value, JavaInteger | JavaFloating) or type(value) in (bool, float, str) or (
        type(value) is int and -(2**63) <= value < 2**63
    ):
        text = value_text(value)
    else:
        return None
    return text if _carries(text) else None


def _carries(text: str) -> bool:
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Listener:
    """Collects the frames of one connection (stomp.py calls it on its receiver thread)."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.receipts: set[str] = set()
        self.errors: dict[str, str] = {}
        self.messages: list[tuple[str, int]] = []  # (subscription id, message number)
        self.other_errors: list[str] = []
        self.disconnected = False

    def on_receipt(self, frame: Any) -> None:
        with self.lock:
            self.receipts.add(frame.headers.get("receipt-id", ""))
            self.lock.notify_all()

    def on_error(self, frame: Any) -> None:
        reason = frame.headers.get("message", "") or frame.body.split("\n", 1)[0]
        with self.lock:
            receipt = frame.headers.get("receipt-id")
            if receipt is None:
                self.other_errors.append(reason)
            else:
                self.errors[receipt] = reason
            self.lock.notify_all()

    def on_message(self, frame: Any) -> None:
        number = frame.headers.get(_NUMBER_HEADER, "-1")
        with self.lock:
            self.messages.append((frame.headers.get("subscription", ""), int(number)))
            self.lock.notify_all()

    def on_disconnected(self) -> None:
        with self.lock:
            self.disconnected = True
            self.lock.notify_all()

    def wait(self, done: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self.lock:
            while not done():
                if self.disconnected:
                    raise BrokerUnavailable("the broker closed the STOMP connection")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrokerUnavailable(f"the broker did not answer within {timeout:g} s")
                self.lock.wait(left)


class StompDriver:
    """Subscriptions and sends over one STOMP 1.2 connection.

    `selector_prefix` and `header_defaults` are the broker's conventions (ActiveMQ's by
    default; give `""` and the broker's own for another broker); `native_dialect` names
    the dialect that is the broker's own selector code.
    """

    def __init__(
        self,
        host: str,
        port: int,
        *,
        native_dialect: str = "activemq",
        selector_prefix: str = ACTIVEMQ_STOMP_PREFIX,
        header_defaults: Mapping[str, object] = ACTIVEMQ_STOMP_DEFAULTS,
        timeout: float = 10.0,
        login: str | None = None,
        passcode: str | None = None,
    ) -> None:
        self.host, self.port = host, port
        self.native_dialect = native_dialect
        self.selector_prefix = selector_prefix
        self.header_defaults = dict(header_defaults)
        self.timeout = timeout
        self.credentials = (login, passcode)
        self.listener = _Listener()
        self.connection: Any = None
        self.run = uuid.uuid4().hex[:12]
        self.rounds = itertools.count()
        self.open: list[str] = []
        self.destinations: list[str] = []
        self.receipts = itertools.count()
        self.pending: list[str] = []
        self.ids: list[str] = []
        self.control = f"/topic/msgfilter.fuzz.{self.run}.{_CONTROL}"

    # -- the wire ------------------------------------------------------------------

    def broker_selector(self, text: str) -> str:
        if not _carries(text):
            raise Uncarried("a STOMP header cannot carry this selector (NUL or lone surrogate)")
        return self.selector_prefix + text

    def carried(self, message: Mapping[str, object]) -> dict[str, object]:
        view: dict[str, object] = dict(self.header_defaults)
        for name, text in self._headers(message).items():
            field = next((f for f, h in STOMP_HEADER_FIELDS.items() if h == name), None)
            if field == "JMSPriority":
                view[field] = int(text)
            else:
                view[field or name] = text
        return view

    def _headers(self, message: Mapping[str, object]) -> dict[str, str]:
        headers: dict[str, str] = {}
        for name, value in message.items():
            if name == "JMSPriority":
                # The broker reads the header with Integer.parseInt (anything else drops
                # the connection) and clamps it to 0..9.
                if type(value) is int and -(2**31) <= value < 2**31:
                    headers["priority"] = str(min(max(value, 0), 9))
                continue
            header = STOMP_HEADER_FIELDS.get(name)
            if header is None and (name.startswith("JMS") or name in _RESERVED
                                   or name.startswith("activemq.") or not _carries(name)):
                continue  # a header field STOMP does not set, or a frame header
            text = _wire_text(value)
            if text is not None:
                headers[header or name] = text
        return headers

    # -- the connection --------------------------------------------------------------

    def __enter__(self) -> StompDriver:
        import stomp  # the `broker` extra

        self.connection = stomp.Connection12(
            [(self.host, self.port)], heartbeats=(0, 0), reconnect_attempts_max=1,
            auto_content_length=False,
        )
        self.connection.set_listener("msgfilter", self.listener)
        login, passcode = self.credentials
        try:
            self.connection.connect(login, passcode, wait=True)
        except Exception as error:  # stomp.py raises its own ConnectFailedException
            raise BrokerUnavailable(
                f"cannot connect to a STOMP broker at {self.host}:{self.port}: {error}"
            ) from error
        self._call("subscribe", self.control, id=_CONTROL, ack="auto")
        self._settle()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.connection is not None:
            with contextlib.suppress(Exception):
                self.connection.disconnect()
            self.connection = None

    def _call(self, method: str, *args: object, **kwargs: Any) -> None:
        # Every frame asks for a receipt: the broker answers RECEIPT, or ERROR with why.
        receipt = f"r{next(self.receipts)}"
        headers = dict(kwargs.pop("headers", {}))
        headers["receipt"] = receipt
        getattr(self.connection, method)(*args, headers=headers, **kwargs)
        self.pending.append(receipt)

    def _settle(self) -> list[str | None]:
        """Wait for the answer to every frame sent since the last call, in order."""
        pending, self.pending = self.pending, []
        listener = self.listener
        listener.wait(lambda: all(r in listener.receipts or r in listener.errors
                                  for r in pending), self.timeout)
        with listener.lock:
            return [listener.errors.get(r) for r in pending]

    def subscribe(self, selectors: Sequence[str]) -> list[str | None]:
        self._close_subscriptions()
        self.pending = []
        number = next(self.rounds)
        self.destinations = [f"/topic/msgfilter.fuzz.{self.run}.{number}.{i}"
                             for i in range(len(selectors))]
        ids = [f"{number}.{i}" for i in range(len(selectors))]
        for destination, sid, text in zip(self.destinations, ids, selectors, strict=True):
            self._call("subscribe", destination, id=sid, ack="auto",
                       headers={"selector": text})
        answers = self._settle()
        self.open = [sid for sid, answer in zip(ids, answers, strict=True) if answer is None]
        self.ids = ids
        return answers

    def _close_subscriptions(self) -> None:
        self.pending = []
        for sid in self.open:
            self._call("unsubscribe", id=sid)
        self._settle()
        self.open = []

    def publish(self, batch: Sequence[Publication]) -> Delivery:
        listener = self.listener
        with listener.lock:
            listener.messages.clear()
        self.pending = []
        for number, publication in enumerate(batch):
            headers = self._headers(publication.message)
            headers[_NUMBER_HEADER] = str(number)
            self._call("send", self.destinations[publication.subscription], "",
                       headers=headers)
        answers = self._settle()
        # One connection dispatches in order: once the control message is in, every
        # message the sends above delivered is in too.
        end = -1 - next(self.receipts)
        self.connection.send(self.control, "", headers={_NUMBER_HEADER: str(end)})
        listener.wait(lambda: (_CONTROL, end) in listener.messages, self.timeout)
        position = {sid: i for i, sid in enumerate(self.ids)}
        received: list[set[int]] = [set() for _ in self.destinations]
        with listener.lock:
            for sid, number in listener.messages:
                if sid in position:
                    received[position[sid]].add(number)
        refused = {n: reason for n, reason in enumerate(answers) if reason is not None}
        return Delivery(received, refused)
