"""What goes wrong reading a stored Pulsar entry."""

from __future__ import annotations


class EntryFormatError(ValueError):
    """The bytes are not a well-formed Pulsar entry.

    `what` says what is wrong, `offset` where: the byte offset in the entry, or, for a
    fault inside the (decompressed) batch payload, in that payload, as `where` says
    (``"entry"`` or ``"payload"``). Raised for a bad checksum, a size that runs past the
    end, metadata protobuf cannot read or that lacks a required field, a message count
    that disagrees with the payload, an unknown compression, a payload that does not
    decompress to its declared size, or a declared size above the cap. Nothing is ever
    half-returned: a decoder either returns the whole entry or raises this.
    """

    def __init__(self, what: str, offset: int, where: str = "entry") -> None:
        self.what = what
        self.offset = offset
        self.where = where
        super().__init__(f"{what} (at byte {offset} of the {where})")

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.what, self.offset, self.where))


class EncryptedEntryError(ValueError):
    """The entry's payload is encrypted (``encryption_keys`` present): it is never decoded.

    Its metadata is still readable with `msgfilter.pulsar.decode_metadata`.
    """
