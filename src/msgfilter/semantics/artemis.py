"""Rules of the `artemis` dialect that ActiveMQ's do not cover: what ActiveMQ Artemis does
to a selector's text before parsing it, and where its header identifiers read from.

Artemis evaluates with ActiveMQ's Java types and conversion ladder, with two conversions
of its own (`semantics.activemq`, `artemis=True`). Around that (docs/artemis.md):

- a JMS consumer's selector is rewritten by the JMS client before the broker sees it
  (SelectorTranslator): the identifiers JMSDeliveryMode, JMSPriority, JMSTimestamp,
  JMSMessageID, JMSExpiration and JMSXGroupID become AMQDurable, AMQPriority, AMQTimestamp,
  AMQUserID, AMQExpiration and AMQGroupID, and the string literals 'PERSISTENT' and
  'NON_PERSISTENT' become 'DURABLE' and 'NON_DURABLE' wherever they stand;
- the broker trims the text (String.trim); what is left empty is no filter at all;
- leading `convert_string_expressions:`, `hyphenated_props:` and their `no_` forms switch
  string conversion and hyphenated identifiers on and off, in any number and order;
- a name starting with `AMQ` that is one of the broker's header fields reads that field
  (FilterImpl), anything else (or a field without a value) reads the property of that name.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import java
from ..java.types import Int, Long
from ..syntax import nodes as n
from .activemq import prop as activemq_prop

# SelectorTranslator's rewrites, in the order the JMS client applies them: (what, by what).
_TRANSLATIONS = (
    ("JMSDeliveryMode", "AMQDurable"),
    ("'PERSISTENT'", "'DURABLE'"),
    ("'NON_PERSISTENT'", "'NON_DURABLE'"),
    ("JMSPriority", "AMQPriority"),
    ("JMSTimestamp", "AMQTimestamp"),
    ("JMSMessageID", "AMQUserID"),
    ("JMSExpiration", "AMQExpiration"),
    ("JMSXGroupID", "AMQGroupID"),
)

_PART_CATEGORIES = frozenset(
    {"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc", "Nd", "Mn", "Mc", "Cf"}
)
_IGNORABLE = frozenset(chr(c) for c in [*range(0x00, 0x09), *range(0x0E, 0x1C), *range(0x7F, 0xA0)])


def _identifier_part(ch: str) -> bool:
    """Character.isJavaIdentifierPart of one UTF-16 unit's worth of text."""
    return ch in _IGNORABLE or unicodedata.category(ch) in _PART_CATEGORIES


def _replace(text: str, match: str, replacement: str) -> str:
    """One of SelectorTranslator's rewrites: `match` outside single quotes (a quoted
    `match` only inside them), not touching an identifier character on either side.

    The scan is the client's: it follows one candidate at a time and, on a character
    that breaks the candidate, starts over at the next character (so `JJMSPriority`
    is never a candidate), and it toggles "inside quotes" at every `'`."""
    if match not in text:
        # The scan below only ever replaces whole occurrences of `match`.
        return text
    quoted_match = match[0] == "'"
    inside, at, positions = False, 0, []
    for i, ch in enumerate(text):
        if ch == "'":
            inside = not inside
        if (not inside or quoted_match) and ch == match[at]:
            at += 1
            if at == len(match):
                start = i - len(match) + 1
                after_ok = i + 1 >= len(text) or not _identifier_part(text[i + 1])
                before_ok = start == 0 or not _identifier_part(text[start - 1])
                if after_ok and before_ok:
                    positions.append(start)
                at = 0
        else:
            at = 0
    if not positions:
        return text
    out, last = [], 0
    for start in positions:
        out.append(text[last:start])
        out.append(replacement)
        last = start + len(match)
    out.append(text[last:])
    return "".join(out)


def translate(text: str) -> str:
    """The filter text the broker gets for a JMS consumer's selector `text`."""
    for match, replacement in _TRANSLATIONS:
        text = _replace(text, match, replacement)
    return text


_PREFIXES = (
    ("convert_string_expressions:", "convert", True),
    ("hyphenated_props:", "hyphenated", True),
    ("no_convert_string_expressions:", "convert", False),
    ("no_hyphenated_props:", "hyphenated", False),
)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A selector as Artemis parses it."""

    #: The text to parse: same length as the translated text, the trimmed ends and the
    #: prefixes blanked so that error offsets point into it.
    body: str
    #: The translated text (what error messages show).
    text: str
    #: convert_string_expressions is on.
    convert: bool
    #: hyphenated_props is on (HyphenatedParser: `-` in names, no quoted names).
    hyphenated: bool
    #: Nothing is left after trimming: no filter, every message matches.
    empty: bool


def prepare(selector: str) -> Prepared:
    """What the JMS client and the broker do to `selector` before the parser sees it."""
    text = translate(selector)
    trimmed = java.java_trim(text)
    start = text.find(trimmed) if trimmed else len(text)
    rest, flags = trimmed, {"convert": False, "hyphenated": False}
    found = True
    while found:
        found = False
        for prefix, flag, value in _PREFIXES:
            if rest.startswith(prefix):
                flags[flag], rest, found = value, rest[len(prefix):], True
                break
    begin = start + len(trimmed) - len(rest)
    body = " " * begin + rest + " " * (len(text) - begin - len(rest))
    return Prepared(body, text, flags["convert"], flags["hyphenated"], not trimmed)


# -- header identifiers -------------------------------------------------------------------


def _durable(value: Any) -> Any:
    # AMQDurable is 'DURABLE' or 'NON_DURABLE'; a JMS delivery mode says which.
    if value in ("PERSISTENT", 2) and type(value) is not bool:
        return "DURABLE"
    if value in ("NON_PERSISTENT", 1) and type(value) is not bool:
        return "NON_DURABLE"
    if type(value) is bool:
        return "DURABLE" if value else "NON_DURABLE"
    return value if type(value) is str else None


def _user_id(value: Any) -> Any:
    # FilterImpl: the user id's text, with "ID:" in front unless it has it.
    if value is None:
        return None
    text = java.value_text(value)
    return text if text.startswith("ID:") else "ID:" + text


def _typed(kind: type) -> Any:
    def convert(value: Any) -> Any:
        if type(value) is int or isinstance(value, (Int, Long)):
            return kind(value)
        return None

    return convert


def _text(value: Any) -> Any:
    return value if type(value) is str else None


# AMQ name -> (the JMS header field that holds it in a message mapping, conversion).
_HEADERS: dict[str, tuple[str | None, Any]] = {
    "AMQPriority": ("JMSPriority", _typed(Int)),
    "AMQTimestamp": ("JMSTimestamp", _typed(Long)),
    "AMQExpiration": ("JMSExpiration", _typed(Long)),
    "AMQDurable": ("JMSDeliveryMode", _durable),
    "AMQUserID": ("JMSMessageID", _user_id),
    "AMQGroupID": ("JMSXGroupID", _text),
    "AMQSize": (None, _typed(Int)),
    "AMQAddress": (None, _text),
}

#: JMS header fields a broker-side filter cannot see under their JMS names: the JMS client
#: rewrites the first six to AMQ names (a name it leaves alone, `\x01JMSPriority`, reads
#: no property), and redelivery is not a property of the stored message.
HIDDEN_NAMES = frozenset(
    {alias for alias, _ in _HEADERS.values() if alias is not None}
    | {"JMSRedelivered", "JMSXDeliveryCount"}
)

#: The identifiers the dialect reads by its own rule (`prop`), not as plain properties.
HEADER_NAMES = frozenset(_HEADERS) | HIDDEN_NAMES


def reads(identifiers: frozenset[str]) -> frozenset[str]:
    """The message names a selector with these identifiers reads: a header identifier
    also reads its JMS name."""
    aliases = {_HEADERS[i][0] for i in identifiers if i in _HEADERS}
    return identifiers | {a for a in aliases if a is not None}


def prop(message: Mapping[str, object], name: str) -> Any:
    """The value the identifier `name` reads from a message mapping: a header field for
    the AMQ names (under its AMQ name or its JMS one), else the property, as a Java
    value (`semantics.activemq.prop`)."""
    if name in HIDDEN_NAMES:
        return None
    header = _HEADERS.get(name)
    if header is not None:
        alias, convert = header
        # The JMS name first: a mapping holding both has the header under the JMS name
        # and a property that the header hides under the AMQ one.
        raw = None if alias is None else message.get(alias)
        if raw is None:
            raw = message.get(name)
        value = None if raw is None else convert(raw)
        if value is not None:
            return value
    return activemq_prop(message.get(name), "")


# -- explain ----------------------------------------------------------------------------


def departures(selector: str, tree: n.Expr | None) -> list[str]:
    """Where this selector's answers depart from the JMS specification, in Artemis."""
    out = []
    translated = translate(selector)
    if translated != selector:
        out.append(f"the JMS client rewrites the selector to {translated!r}")
    if tree is None:
        out.append("an empty or blank selector is no filter: every message matches")
        return out
    has_not, stack = False, [tree]
    while stack:
        node = stack.pop()
        has_not = has_not or isinstance(node, n.Not)
        stack.extend(n.children(node))
    for name in sorted(n.identifiers(tree)):
        if name in HIDDEN_NAMES:
            out.append(f"{name} is not visible to the broker's filter: it reads NULL")
        elif name in _HEADERS:
            alias = _HEADERS[name][0]
            where = f" (a message's {alias})" if alias else ""
            out.append(f"{name} reads the broker's header field{where}")
    if has_not:
        out.append("NOT binds tighter than comparisons: NOT a = b is (NOT a) = b")
    if prepare(selector).convert:
        out.append("convert_string_expressions: strings convert to the other operand's type,"
                   " and to numbers in arithmetic")
    out.append("values keep their Java types (Integer, Long, Float, ...): Java's comparison"
               " ladder and int/long arithmetic decide")
    out.append("an evaluation that throws makes the message not match")
    return out
