"""Java's rules for strings: `String.hashCode`, `String.compareTo` order and `String.trim`.

A Java string is a sequence of UTF-16 code units: a character above U+FFFF is two units (a
surrogate pair). A Python str holds code points, so these functions look at its UTF-16
encoding; a lone surrogate in the str is kept as the single unit Java would hold.
"""

from __future__ import annotations

import struct

#: The characters Java's `String.trim()` (and `Double.valueOf`) removes from both ends:
#: every char <= U+0020, not Unicode spaces such as U+00A0.
JAVA_WHITESPACE = "".join(map(chr, range(0x21)))

_MASK = 0xFFFFFFFF
_SIGN = 0x80000000
_CHUNK = 64


def utf16_units(text: str) -> tuple[int, ...] | bytes:
    """The UTF-16 code units of `text` (bytes for an ASCII text: one unit per byte)."""
    if text.isascii():
        return text.encode("ascii")
    data = text.encode("utf-16-be", "surrogatepass")
    return struct.unpack(f">{len(data) // 2}H", data)


def utf16_length(text: str) -> int:
    """`String.length()`: UTF-16 code units, so a character above U+FFFF counts twice."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf8_bytes(text: str) -> bytes:
    """`text.getBytes(UTF_8)` as Java does it: a lone surrogate becomes `?`."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A Python str may hold a surrogate pair as two code points; Java sees one character.
        joined = text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
        return joined.encode("utf-8", "replace")


def utf16_key(text: str) -> str:
    """A key whose (code point) order is Java's `String.compareTo` order for `text`.

    Java compares UTF-16 code units, so a character above U+FFFF (a surrogate pair, units
    D800-DFFF) sorts before U+E000-U+FFFF, unlike Python's code-point order. The key spells
    such characters as their two surrogates; every other string is its own key, so the
    usual all-BMP case costs nothing. Same order as
    `text.encode("utf-16-be", "surrogatepass")`.
    """
    if text.isascii() or max(text) < _ASTRAL:
        return text
    return "".join([_surrogates(ch) for ch in text])


_ASTRAL = "\U00010000"


def _surrogates(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return ch
    code -= 0x10000
    return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))


def string_hash(text: str) -> int:
    """Java's `String.hashCode()`: over UTF-16 units, 32-bit wrap-around, signed."""
    units = utf16_units(text)
    h = 0
    # Reduce once per chunk, not once per unit: Python ints of a few hundred bits cost less
    # than a mask per character, and reducing keeps them that small for long strings.
    for start in range(0, len(units), _CHUNK):
        for unit in units[start : start + _CHUNK]:
            h = 31 * h + unit
        h &= _MASK
    return h - (1 << 32) if h & _SIGN else h


def java_trim(text: str) -> str:
    """`text` trimmed as Java's `String.trim()` does (chars <= U+0020, not Unicode spaces)."""
    return text.strip(JAVA_WHITESPACE)
