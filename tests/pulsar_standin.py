"""A stand-in for a Pulsar broker on 127.0.0.1, just enough for a real client (tests only).

It speaks Pulsar's binary protocol for one non-partitioned topic: connect, lookup,
producers (every SEND's entry bytes are recorded in `received`, in order) and consumers
(the entries in `to_deliver` are sent as MESSAGE commands once the consumer asks for
them; acknowledgements are recorded in `acks`). Frames, per Pulsar:
``[u32 total][u32 command size][BaseCommand]`` and, for SEND and MESSAGE, the entry bytes
after the command. Every loop is bounded by the sockets' own timeouts; `close` ends them.
"""

from __future__ import annotations

import socket
import struct
import threading
from types import TracebackType

from pulsar_wire import pulsar_commands_pb2 as pc

# BaseCommand.Type numbers (PulsarApi.proto).
CONNECT, CONNECTED, SUBSCRIBE, PRODUCER, SEND, SEND_RECEIPT = 2, 3, 4, 5, 6, 7
MESSAGE, ACK, FLOW, SUCCESS = 9, 10, 11, 13
CLOSE_PRODUCER, CLOSE_CONSUMER, PRODUCER_SUCCESS, PING, PONG = 15, 16, 17, 18, 19
PARTITIONED_METADATA, PARTITIONED_METADATA_RESPONSE, LOOKUP, LOOKUP_RESPONSE = 21, 22, 23, 24

_U32 = struct.Struct(">I")


def _frame(command: pc.BaseCommand, entry: bytes = b"") -> bytes:
    raw = command.SerializeToString()
    return _U32.pack(4 + len(raw) + len(entry)) + _U32.pack(len(raw)) + raw + entry


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    parts = []
    while size:
        chunk = sock.recv(size)
        if not chunk:
            raise ConnectionError("closed")
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


class StandIn:
    """The stand-in broker; use as a context manager. `url` is what the client connects to."""

    def __init__(self, to_deliver: list[bytes] | None = None) -> None:
        self.to_deliver = list(to_deliver or [])
        self.received: list[bytes] = []
        self.acks: list[pc.CommandAck] = []
        self.errors: list[BaseException] = []
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.2)
        self.url = f"pulsar://127.0.0.1:{self._server.getsockname()[1]}"
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> StandIn:
        self._accepting.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._accepting.join(5)
        for thread in self._threads:
            thread.join(5)
        self._server.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(0.2)
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                while not self._stop.is_set():
                    try:
                        header = conn.recv(4, socket.MSG_PEEK)
                    except TimeoutError:
                        continue
                    if not header:
                        return
                    conn.settimeout(5)
                    total = _U32.unpack(_read_exactly(conn, 4))[0]
                    body = _read_exactly(conn, total)
                    conn.settimeout(0.2)
                    size = _U32.unpack(body[:4])[0]
                    command = pc.BaseCommand.FromString(body[4 : 4 + size])
                    for reply in self._handle(command, body[4 + size :]):
                        conn.sendall(reply)
        except (ConnectionError, OSError):
            return
        except Exception as error:  # reported by the test, never lost in a thread
            self.errors.append(error)

    def _handle(self, c: pc.BaseCommand, entry: bytes) -> list[bytes]:
        out = pc.BaseCommand
        if c.type == CONNECT:
            version = min(c.connect.protocol_version, 19)
            return [_frame(out(type=CONNECTED, connected=pc.CommandConnected(
                server_version="msgfilter-standin", protocol_version=version,
                max_message_size=5 * 1024 * 1024)))]
        if c.type == PING:
            return [_frame(out(type=PONG, pong=pc.CommandPong()))]
        if c.type == PARTITIONED_METADATA:
            return [_frame(out(type=PARTITIONED_METADATA_RESPONSE,
                               partitionMetadataResponse=pc.CommandPartitionedTopicMetadataResponse(
                                   partitions=0, request_id=c.partitionMetadata.request_id,
                                   response=0)))]
        if c.type == LOOKUP:
            lookup = pc.CommandLookupTopicResponse(
                brokerServiceUrl=self.url, response=1, request_id=c.lookupTopic.request_id,
                authoritative=True)
            return [_frame(out(type=LOOKUP_RESPONSE, lookupTopicResponse=lookup))]
        if c.type == PRODUCER:
            return [_frame(out(type=PRODUCER_SUCCESS, producer_success=pc.CommandProducerSuccess(
                request_id=c.producer.request_id,
                producer_name=c.producer.producer_name or "standin-producer")))]
        if c.type == SEND:
            with self._lock:
                self.received.append(entry)
                entry_id = len(self.received) - 1
            send = c.send
            return [_frame(out(type=SEND_RECEIPT, send_receipt=pc.CommandSendReceipt(
                producer_id=send.producer_id, sequence_id=send.sequence_id,
                message_id=pc.MessageIdData(ledgerId=1, entryId=entry_id),
                highest_sequence_id=send.highest_sequence_id)))]
        if c.type == SUBSCRIBE:
            return [_frame(out(type=SUCCESS, success=pc.CommandSuccess(
                request_id=c.subscribe.request_id)))]
        if c.type == FLOW:
            frames = []
            with self._lock:
                pending, self.to_deliver = self.to_deliver, []
            for entry_id, data in enumerate(pending):
                frames.append(_frame(out(type=MESSAGE, message=pc.CommandMessage(
                    consumer_id=c.flow.consumer_id,
                    message_id=pc.MessageIdData(ledgerId=2, entryId=entry_id))), data))
            return frames
        if c.type == ACK:
            self.acks.append(c.ack)
            return []
        if c.type == CLOSE_PRODUCER:
            return [_frame(out(type=SUCCESS, success=pc.CommandSuccess(
                request_id=c.close_producer.request_id)))]
        if c.type == CLOSE_CONSUMER:
            return [_frame(out(type=SUCCESS, success=pc.CommandSuccess(
                request_id=c.close_consumer.request_id)))]
        return []
