"""The typed reader runtime: how pulsar-jms messages are read, lazily and memoised, by the
typed evaluators (`msgfilter.pulsar_jms.evaluator`) and by plain filters (`TypedView`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from types import MappingProxyType

from ..message import Message
from .headers import ABSENT, DERIVED_HEADERS, decode_name, typed_value
from .values import KNOWN_TYPES, SYSTEM_TYPE_OF, TYPE_SUFFIX, JsmTypeError

_NO_HEADERS: Mapping[str, object] = MappingProxyType({})


class DecodeMemo:
    """Decoded typed values by declared type, then by text: ``memo.by_type[type].get(text)``.

    `by_type` is a plain dict holding every type of `KNOWN_TYPES` from the start, so a
    typed evaluator reads it with two subscripts and a get, no (type, text) tuple built
    and no ``__missing__`` hook (a dict subclass's subscript costs half as much again). A
    type outside `KNOWN_TYPES` is never held: reading it raises KeyError, which sends a
    typed evaluator down its careful path."""

    __slots__ = ("by_type", "size")

    def __init__(self) -> None:
        self.by_type: dict[str, dict[str, object]] = {t: {} for t in KNOWN_TYPES}
        #: How many values it holds, over all types.
        self.size = 0

    def get(self, declared: str, raw: str) -> object:
        """The value kept for (`declared`, `raw`), or `ABSENT`."""
        by_text = self.by_type.get(declared)
        return ABSENT if by_text is None else by_text.get(raw, ABSENT)

    def remember(self, declared: str, raw: str, value: object, limit: int) -> None:
        """Keep `value` for (`declared`, `raw`) of a known type, starting over once
        `limit` are kept."""
        by_text = self.by_type.get(declared)
        if by_text is None:
            return
        if self.size >= limit:
            for held in self.by_type.values():
                held.clear()
            self.size = 0
        by_text[raw] = value
        self.size += 1


class Reads:
    """The `R` a typed evaluator reads one decision's messages through (see
    `msgfilter.pulsar_jms.evaluator`): the reader's memo, the
    destination, and `failed`, the name whose typed value did not parse (set by the
    read that raised; the caller resets it); `raised` stays True once any read raised."""

    __slots__ = ("_java", "_reader", "destination", "failed", "memo", "raised")

    def __init__(self, reader: TypedReader, destination: str | None) -> None:
        self._reader = reader
        self._java = reader.java
        self.memo = reader.memo.by_type
        self.destination = destination
        self.failed: str | None = None
        self.raised = False

    def read(self, props: Mapping[str, object], heads: Mapping[str, object], name: str) -> object:
        """What the broker's selector sees under `name` (None for nothing)."""
        try:
            value = decode_name(props, heads, name, self.destination, self._java)
        except JsmTypeError:
            self.failed = name
            self.raised = True
            raise
        return None if value is ABSENT else value

    def decode(self, declared: str, raw: object, name: str) -> object:
        """`raw` decoded as `declared`, remembered in the memo (JsmTypeError if it does
        not parse). A value that is not text (None: only the companion is there) reads
        as it is, as `read` gives it."""
        if not isinstance(raw, str):
            return raw
        try:
            return self._reader.decoded(raw, declared, name)
        except JsmTypeError:
            self.failed = name
            self.raised = True
            raise


class TypedReader:
    """Reads pulsar-jms messages for one set of compiled selectors, decoding lazily.

    `view(message)` is the mapping a selector reads: a typed property is decoded only
    when the selector reads it (pulsar-jms's broker does the same), so a bad typed value
    that evaluation never reaches goes unnoticed. Decoded values are remembered per reader
    by (type, text), so a value seen before costs one lookup. A value that does not parse
    raises `JsmTypeError` from the read, which makes the evaluation fail, and the view
    remembers it in `TypedView.failed`.

    One reader per compiled filter set (it is thread-safe: its memo only grows and is
    cleared when full); one view per message or reused with `TypedView.rebind`.
    """

    __slots__ = ("companions", "java", "memo")

    #: Decoded values kept per reader before the memo starts over.
    MEMO_SIZE = 1 << 16

    def __init__(self, names: Collection[str], *, java: bool = False) -> None:
        #: The names read as plain properties on the fast path, with their companions
        #: (read-only, as are `java` and `memo`).
        self.companions = {n: n + TYPE_SUFFIX for n in names if n not in DERIVED_HEADERS}
        #: Whether numbers read as `msgfilter.java.types` wrappers (see `decode_properties`).
        self.java = java
        #: The decoded values by (type, text); see `DecodeMemo`.
        self.memo = DecodeMemo()

    def reads(self, destination: str | None = None) -> Reads:
        """The `Reads` for typed evaluators judging messages sent to `destination`."""
        return Reads(self, destination)

    def view(
        self,
        message: Message,
        destination: str | None = None,
    ) -> TypedView:
        """The lazy view of `message` (its `properties` and `headers`)."""
        return TypedView(self, message.properties, message.headers, destination)

    def decoded(self, raw: str, declared: str, name: str) -> object:
        """`raw` decoded as `declared`, through the memo (JsmTypeError when it does not parse)."""
        memo = self.memo
        value = memo.get(declared, raw)
        if value is ABSENT:
            value = typed_value(raw, declared, name, self.java)
            memo.remember(declared, raw, value, self.MEMO_SIZE)
        return value


class TypedView(Mapping[str, object]):
    """One message as a selector reads it through a `TypedReader` (see there)."""

    __slots__ = ("_companions", "_destination", "_heads", "_props", "_reader", "failed")

    def __init__(
        self,
        reader: TypedReader,
        props: Mapping[str, object],
        heads: Mapping[str, object],
        destination: str | None,
    ) -> None:
        self._reader = reader
        self._companions = reader.companions
        self._props = props
        # None when there are no headers: the fast path tests it once per read.
        self._heads = heads or None
        self._destination = destination
        #: The name whose typed value did not parse, once a read failed.
        self.failed: str | None = None

    def rebind(self, message: Message) -> None:
        """Make this view show `message` (one view object for a whole batch)."""
        self._props = message.properties
        self._heads = message.headers or None
        self.failed = None

    def get(self, name: str, default: object = None) -> object:
        companion = self._companions.get(name)
        heads = self._heads
        if companion is not None and (heads is None or name not in heads):
            # The common case: a plain property, perhaps with a companion type.
            props = self._props
            raw = props.get(name)
            if not isinstance(raw, str):
                return default if raw is None else raw
            declared = props.get(companion)
            if not isinstance(declared, str):
                declared = SYSTEM_TYPE_OF.get(name)
                if declared is None:
                    return raw
            if declared == "string":
                return raw
            value = self._reader.memo.get(declared, raw)
            if value is not ABSENT:
                return value
            try:
                return self._reader.decoded(raw, declared, name)
            except JsmTypeError:
                self.failed = name
                raise
        try:
            value = decode_name(
                self._props, heads or _NO_HEADERS, name, self._destination, self._reader.java
            )
        except JsmTypeError:
            self.failed = name
            raise
        return default if value is ABSENT else value

    def __getitem__(self, name: str) -> object:
        value = self.get(name, ABSENT)
        if value is ABSENT:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        names = self._props.keys() | (self._heads or _NO_HEADERS).keys() | DERIVED_HEADERS
        return iter([n for n in names if self.get(n, ABSENT) is not ABSENT])

    def __len__(self) -> int:
        return sum(1 for _ in self)
