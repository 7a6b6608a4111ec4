"""Index snapshots: save a `SubscriptionIndex` to a file and load it back, without pickle.

A broker's subscription store keeps its subscriptions across restarts. `pickle` would
do it, but unpickling executes what it reads; a snapshot holds only data (texts,
dialects, limits, keys of a few plain types) and loading it compiles the texts again
through `msgfilter.compile`, so a file can at worst fail to load, with a clear error.

    from msgfilter.index.snapshot import load, save
    save(index, "subscriptions.idx")          # a path (written atomically) or a binary file
    index = load("subscriptions.idx")

Only the public API of `SubscriptionIndex` is used: `dialect`, `items()`, `add_filters`,
and `Filter.text`, `.dialect`, `.limits`.

The format (version 1), all integers unsigned big-endian:

| offset | size | field |
|---|---|---|
| 0 | 7 | magic `b"MSGFIDX"` |
| 7 | 1 | format version, `1` |
| 8 | 8 | body length *n* in bytes |
| 16 | 4 | CRC32 (`zlib.crc32`) of the body |
| 20 | *n* | body: one JSON object, UTF-8 (ASCII only: every other character escaped) |

and nothing after the body. The body is
`{"dialect": D, "filters": [[dialect, text, limits, [key, ...]], ...], "order": [g, ...]}`:
the index's default dialect; each distinct (dialect, text, limits) once, in the order of
its first subscription, with its keys in insertion order (`limits` is `null` for the
default `Limits`, else an object of its fields); and `order`, for each subscription in
insertion order, the number of its entry in `filters`, so that the keys' order across
entries is kept. A key is a JSON string, integer, float, `true`/`false` or `null` for
the Python value of the same type, or a one-member object: `{"b": base64}` for `bytes`,
`{"t": [key, ...]}` for a tuple, `{"f": "nan" | "inf" | "-inf"}` for a float JSON cannot
write. Any other key type (or a subclass such as an `IntEnum`) makes `save` raise
`TypeError`.

Why JSON rather than a length-prefixed layout of our own: the bulk is selector text, which
JSON carries with little escaping; Python parses it in C (a hand-rolled layout would be
parsed in Python, slower, and with more code to get wrong on a hostile file); it carries
typed keys without a second encoding; and it can be read with any tool (`tail -c +21 f
| python -m json.tool`). The header and the CRC32 reject a foreign, truncated or corrupted
file before the JSON is parsed; the body is then checked member by member.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import json
import math
import os
import struct
import tempfile
import zlib
from collections.abc import Hashable
from typing import IO, Any

from ..engine import compile as _compile
from ..errors import FilterError
from ..filter import Filter
from ..limits import DEFAULT_LIMITS, Limits
from .collector import paused
from .subscriptions import SubscriptionIndex

__all__ = ["FORMAT_VERSION", "MAGIC", "SnapshotError", "dumps", "load", "loads", "save"]

#: The first bytes of every snapshot.
MAGIC = b"MSGFIDX"
#: The format version this module writes (and the newest it reads).
FORMAT_VERSION = 1

_HEADER = struct.Struct(">7sBQI")   # magic, version, body length, CRC32
_LIMIT_FIELDS = tuple(f.name for f in dataclasses.fields(Limits))
_KEY_TYPES = (str, int, float, bool, type(None), bytes, tuple)

PathOrFile = str | os.PathLike[str] | IO[bytes]


class SnapshotError(FilterError):
    """A snapshot that cannot be loaded: not a snapshot, written by a newer version,
    truncated, corrupted, or holding a selector that no longer compiles. The message
    names the file and what is wrong."""


# -- save -------------------------------------------------------------------------------------


def dumps(index: SubscriptionIndex) -> bytes:
    """The snapshot of `index` as bytes (see the module docstring for the format)."""
    if not isinstance(index, SubscriptionIndex):
        raise TypeError(f"expected a SubscriptionIndex, not {type(index).__name__}")
    # The lists made here are garbage-free: a collection would walk the whole heap of
    # compiled filters for nothing.
    with paused():
        return _dumps(index)


def _dumps(index: SubscriptionIndex) -> bytes:
    groups: dict[tuple[str, str, Limits], int] = {}
    filters: list[list[Any]] = []
    order: list[int] = []
    limits_forms: dict[Limits, Any] = {}
    for key, compiled in index.items():
        encoded = _encode_key(key)
        group = (compiled.dialect, compiled.text, compiled.limits)
        number = groups.get(group)
        if number is None:
            number = groups[group] = len(filters)
            limits = limits_forms.get(compiled.limits, limits_forms)
            if limits is limits_forms:
                limits = limits_forms[compiled.limits] = _encode_limits(compiled.limits)
            filters.append([compiled.dialect, compiled.text, limits, []])
        filters[number][3].append(encoded)
        order.append(number)
    body = json.dumps(
        {"dialect": index.dialect, "filters": filters, "order": order},
        ensure_ascii=True, allow_nan=False, separators=(",", ":"),
    ).encode("ascii")
    return _HEADER.pack(MAGIC, FORMAT_VERSION, len(body), zlib.crc32(body)) + body


def save(index: SubscriptionIndex, path_or_file: PathOrFile) -> None:
    """Write the snapshot of `index` to a path or a binary file.

    A path is written atomically (a temporary file in the same directory, flushed to
    disk, then renamed over it), so a crash leaves the old snapshot or the new one. A key
    of an unsupported type raises `TypeError` before anything is written."""
    data = dumps(index)
    if isinstance(path_or_file, str | os.PathLike):
        path = os.fspath(path_or_file)
        directory = os.path.dirname(os.path.abspath(path))
        fd, temporary = tempfile.mkstemp(prefix=".msgfidx-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return
    path_or_file.write(data)


def _encode_limits(limits: Limits) -> dict[str, int] | None:
    if limits == DEFAULT_LIMITS:
        return None
    return {name: getattr(limits, name) for name in _LIMIT_FIELDS}


def _encode_key(key: Hashable, top: Hashable = None, depth: int = 0) -> Any:
    """The JSON form of a key; TypeError for a key a snapshot cannot carry."""
    top = key if depth == 0 else top
    kind = type(key)
    if kind is str or kind is bool or key is None:
        return key
    if kind is int:
        if key.bit_length() > 13_000:  # type: ignore[attr-defined]
            # JSON readers (Python's too) refuse ints of more than 4300 digits.
            raise TypeError(f"subscription key {_short(top)}: an int of more than 13000 bits "
                            "cannot be saved in a snapshot; subscribe with str(key)")
        return key
    if kind is float:
        if math.isnan(key):  # type: ignore[arg-type]
            return {"f": "nan"}
        if math.isinf(key):  # type: ignore[arg-type]
            return {"f": "inf" if key > 0 else "-inf"}  # type: ignore[operator]
        return key
    if kind is bytes:
        return {"b": base64.b64encode(key).decode("ascii")}  # type: ignore[arg-type]
    if kind is tuple:
        if depth >= 64:
            raise TypeError(f"subscription key {_short(top)}: tuples nested deeper than 64 "
                            "cannot be saved in a snapshot")
        return {"t": [_encode_key(k, top, depth + 1) for k in key]}  # type: ignore[attr-defined]
    inner = "" if depth == 0 else f" (it holds {_short(key)}, of type {kind.__name__})"
    raise TypeError(
        f"subscription key {_short(top)} of type {type(top).__name__}{inner} cannot be saved "
        "in a snapshot: keys must be str, int, float, bool, None, bytes or tuples of these "
        "(of exactly these types, not subclasses); subscribe with such a key (for example "
        "str(key)), or keep this index with pickle"
    )


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


# -- load -------------------------------------------------------------------------------------


def load(path_or_file: PathOrFile) -> SubscriptionIndex:
    """The index saved in a path or a binary file by `save`.

    Raises `SnapshotError` (a `FilterError`, so a `ValueError`) naming the file for
    anything that is not a whole, intact snapshot of a version this code reads, or whose
    selectors no longer compile (naming the subscription). Nothing in the file is
    executed: it is parsed as JSON and its selectors compiled by `msgfilter.compile`."""
    if isinstance(path_or_file, str | os.PathLike):
        name = os.fspath(path_or_file)
        try:
            with open(name, "rb") as stream:
                data = stream.read()
        except OSError as error:
            raise SnapshotError(f"snapshot {name!r}: cannot be read: {error}") from None
    else:
        name = str(getattr(path_or_file, "name", "<stream>"))
        data = path_or_file.read()
        if not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"snapshot {name!r}: open the file in binary mode "
                            f"(read() returned {type(data).__name__})")
    return loads(bytes(data), name)


def loads(data: bytes, name: str = "<bytes>") -> SubscriptionIndex:
    """The index in the snapshot `data` (see `load`); `name` names it in errors."""
    body = _body(data, name)
    try:
        document = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _broken(name, f"its body is not valid JSON ({error})") from None
    try:
        dialect, groups, order = _parts(document, name)
    except RecursionError:
        raise _broken(name, "a key is nested too deeply") from None
    try:
        index = SubscriptionIndex(dialect)
    except FilterError as error:
        raise _broken(name, f"its default dialect {dialect!r} is unknown ({error})") from None
    keys = _keys(groups, order, name)
    with paused():
        compiled = _compiled(groups, name)
        index.add_filters(zip(keys, (compiled[number] for number in order), strict=True))
    return index


def _compiled(groups: list[Group], name: str) -> list[Filter]:
    """The filter of each group, compiled."""
    compiled: list[Filter] = []
    for group_dialect, text, limits, group_keys in groups:
        try:
            compiled.append(_compile(text, group_dialect, limits=limits))
        except FilterError as error:
            more = "" if len(group_keys) == 1 else f" (and {len(group_keys) - 1} more keys)"
            raise SnapshotError(
                f"snapshot {name!r}: subscription {_short(group_keys[0])}{more}: its "
                f"{group_dialect} selector {_short(text)} no longer compiles: {error}"
            ) from None
    return compiled


def _body(data: bytes, name: str) -> bytes:
    """The body of a snapshot, after the checks of its header and CRC32."""
    if len(data) < len(MAGIC) or not data.startswith(MAGIC):
        raise SnapshotError(f"snapshot {name!r}: not a msgfilter index snapshot (the file does "
                            f"not start with {MAGIC!r})")
    if len(data) < _HEADER.size:
        raise _broken(name, f"truncated: {len(data)} bytes, shorter than the "
                            f"{_HEADER.size}-byte header")
    _, version, length, crc = _HEADER.unpack_from(data)
    if version > FORMAT_VERSION:
        raise SnapshotError(
            f"snapshot {name!r}: format version {version} was written by a newer msgfilter; "
            f"this one reads versions up to {FORMAT_VERSION}: upgrade msgfilter to load it"
        )
    if version < 1:
        raise _broken(name, f"format version {version} does not exist")
    present = len(data) - _HEADER.size
    if present < length:
        raise _broken(name, f"truncated: the header announces a body of {length} bytes, "
                            f"{present} are present")
    if present > length:
        raise _broken(name, f"{present - length} unexpected bytes after the body")
    body = data[_HEADER.size:]
    if zlib.crc32(body) != crc:
        raise _broken(name, "checksum mismatch: the body is not what was written "
                            f"(CRC32 {zlib.crc32(body):08x}, expected {crc:08x})")
    return body


def _no_constant(word: str) -> None:
    raise ValueError(f"{word} is not JSON")


def _broken(name: str, what: str) -> SnapshotError:
    return SnapshotError(f"snapshot {name!r} is corrupt or incomplete: {what}")


Group = tuple[str, str, Limits, list[Hashable]]


def _parts(document: Any, name: str) -> tuple[str, list[Group], list[int]]:
    """The default dialect, the groups (keys decoded) and the order, checked."""
    if not isinstance(document, dict) or set(document) != {"dialect", "filters", "order"}:
        raise _broken(name, "its body is not an object of exactly 'dialect', 'filters' and "
                            "'order'")
    dialect, filters, order = document["dialect"], document["filters"], document["order"]
    if not isinstance(dialect, str):
        raise _broken(name, "'dialect' is not a string")
    if not isinstance(filters, list) or not isinstance(order, list):
        raise _broken(name, "'filters' and 'order' must be lists")
    groups: list[Group] = []
    for n, item in enumerate(filters):
        if (not isinstance(item, list) or len(item) != 4 or not isinstance(item[0], str)
                or not isinstance(item[1], str) or not isinstance(item[3], list)
                or not item[3]):
            raise _broken(name, f"filter entry {n} is not [dialect, text, limits, [key, ...]]")
        keys = [_decode_key(k, name, n) for k in item[3]]
        groups.append((item[0], item[1], _decode_limits(item[2], name, n), keys))
    return dialect, groups, order


def _keys(groups: list[Group], order: list[Any], name: str) -> list[Hashable]:
    """The keys in insertion order, from the groups and `order`."""
    positions = [0] * len(groups)
    keys: list[Hashable] = []
    for number in order:
        if type(number) is not int or not 0 <= number < len(groups):
            raise _broken(name, f"'order' holds {_short(number)}, not a filter entry number")
        group_keys = groups[number][3]
        if positions[number] >= len(group_keys):
            raise _broken(name, f"'order' names filter entry {number} more often than it "
                                "has keys")
        keys.append(group_keys[positions[number]])
        positions[number] += 1
    for number, (*_, group_keys) in enumerate(groups):
        if positions[number] != len(group_keys):
            raise _broken(name, f"'order' names filter entry {number} less often than it "
                                "has keys")
    if len(set(keys)) != len(keys):
        raise _broken(name, "a subscription key appears more than once")
    return keys


def _decode_limits(value: Any, name: str, n: int) -> Limits:
    if value is None:
        return DEFAULT_LIMITS
    if (not isinstance(value, dict) or set(value) != set(_LIMIT_FIELDS)
            or any(type(v) is not int or v < 0 for v in value.values())):
        raise _broken(name, f"filter entry {n}: limits are not an object of the non-negative "
                            f"integers {', '.join(_LIMIT_FIELDS)}")
    return Limits(**value)


def _decode_key(value: Any, name: str, n: int, depth: int = 0) -> Hashable:
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value  # type: ignore[no-any-return]
    if kind is dict and len(value) == 1:
        (tag, inner), = value.items()
        if tag == "t" and type(inner) is list:
            if depth >= 64:
                raise _broken(name, f"filter entry {n} holds a key nested deeper than 64")
            return tuple(_decode_key(k, name, n, depth + 1) for k in inner)
        if tag == "b" and type(inner) is str:
            try:
                return base64.b64decode(inner.encode("ascii"), validate=True)
            except (binascii.Error, UnicodeEncodeError):
                pass
        if tag == "f" and inner in ("nan", "inf", "-inf"):
            return float(inner)
    raise _broken(name, f"filter entry {n} holds a key {_short(value)} of no known form")
