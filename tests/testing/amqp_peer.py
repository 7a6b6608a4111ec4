"""A stand-in AMQP 1.0 peer (proton's Container) for the AMQP driver's tests: no broker.

It plays the part of a JMS broker on the wire: receivers attach with a selector filter
(refused ones are detached with an error, as brokers do; with `drop_filters` it attaches
them without the filter, as a broker that ignores filters would), senders publish to a
topic address, and each message is judged by the selectors of that address with
msgfilter's own `activemq` dialect: delivered, not delivered, or the send REJECTED where
the selector throws. It records the filters and the typed application properties it got.
What this tests is the driver's wire (attach, filter, settlement, dispatch, the end
signal), not any broker's selector rules.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from proton import Condition, Described, symbol
from proton.handlers import MessagingHandler
from proton.reactor import ApplicationEvent, Container, EventInjector

import msgfilter
from msgfilter import EvaluationFailure, FilterError

SELECTOR_FILTER = symbol("apache.org:selector-filter:string")


class _Closer:
    def __init__(self, link: Any) -> None:
        self.link = link

    def on_timer_task(self, event: Any) -> None:
        self.link.close()


def filter_map(data: Any) -> dict[Any, Any]:
    """A terminus's filter map (empty without one)."""
    data.rewind()
    return data.get_object() if data.next() else {}


class _Handler(MessagingHandler):  # type: ignore[misc]
    def __init__(self, url: str, drop_filters: bool) -> None:
        super().__init__(auto_accept=False, auto_settle=True)
        self.url = url
        self.drop_filters = drop_filters
        self.consumers: dict[str, list[tuple[Any, Any]]] = {}
        self.filters: list[object] = []
        self.properties: list[dict[str, object]] = []
        self.ready = threading.Event()

    def on_start(self, event: Any) -> None:
        self.container = event.container
        self.acceptor = event.container.listen(self.url)
        self.ready.set()

    def on_link_opening(self, event: Any) -> None:
        link = event.link
        if link.is_receiver:  # the client's sender
            link.target.address = link.remote_target.address
            link.open()
            link.flow(10_000)
            return
        address = link.remote_source.address
        link.source.address = address
        wanted = filter_map(link.remote_source.filter)
        described = (wanted or {}).get(symbol("selector"))
        text = described.value if isinstance(described, Described) else None
        self.filters.append(described)
        selector = None
        if text is not None:
            try:
                selector = msgfilter.compile(text, "activemq")
            except FilterError as error:
                # Attached with no filter, then detached with the reason, as brokers do.
                link.open()
                link.condition = Condition("amqp:invalid-field", f"invalid selector: {error}")
                event.container.schedule(0, _Closer(link))
                return
            if not self.drop_filters:
                link.source.filter.put_dict(
                    {symbol("selector"): Described(SELECTOR_FILTER, text)}
                )
        link.open()
        self.consumers.setdefault(address, []).append((link, selector))

    def on_link_closing(self, event: Any) -> None:
        for links in self.consumers.values():
            links[:] = [(link, s) for link, s in links if link is not event.link]
        event.link.close()

    def on_message(self, event: Any) -> None:
        message = event.message
        self.properties.append(dict(message.properties or {}))
        view: dict[str, object] = {"JMSPriority": message.priority,
                                   "JMSDeliveryMode": "PERSISTENT" if message.durable
                                   else "NON_PERSISTENT"}
        if message.subject is not None:
            view["JMSType"] = message.subject
        if message.correlation_id is not None:
            view["JMSCorrelationID"] = message.correlation_id
        view.update(message.properties or {})
        matched = []
        for link, selector in self.consumers.get(event.link.remote_target.address, []):
            got = True if selector is None else selector.match_outcome(view)
            if isinstance(got, EvaluationFailure):
                event.delivery.local.condition = Condition("amqp:internal-error", got.message)
                self.reject(event.delivery)
                return
            if got:
                matched.append(link)
        for link in matched:
            link.send(message)
        self.accept(event.delivery)

    def on_stop_peer(self, event: Any) -> None:
        self.acceptor.close()
        self.container.stop()


class AmqpPeer:
    """Runs the peer in a thread on a free loopback port; a context manager."""

    def __init__(self, drop_filters: bool = False) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.handler = _Handler(f"127.0.0.1:{self.port}", drop_filters)
        self.injector = EventInjector()
        self.container = Container(self.handler)
        self.container.selectable(self.injector)
        self.thread = threading.Thread(target=self.container.run, daemon=True)

    def __enter__(self) -> AmqpPeer:
        self.thread.start()
        if not self.handler.ready.wait(10):
            raise RuntimeError("the AMQP peer did not start")
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.injector.trigger(ApplicationEvent("stop_peer"))
        self.thread.join(10)
        self.injector.close()
