"""RocketMQ tag expressions (`"TagA || TagB"`): the broker's code check and the client's re-check.

Parsing follows `FilterAPI.buildSubscriptionData` (spec/brokers.md A.1) to the character:
empty text or exactly `*` subscribes to every tag; anything else is split on the literal
`||`, each piece trimmed as Java's `trim()` does and dropped when empty. Only text made of
nothing but `||` separators is an error, because only there Java's `split` returns no piece
at all; text whose pieces are all blank (`" "`, `"|| ||"`) subscribes to no tag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import FilterError, FilterLimitError, FilterSyntaxError
from ..filter import Filter
from ..limits import DEFAULT_LIMITS, Limits
from ..message import TAGS_PROPERTY
from ..semantics.model import ValueModel
from ._always import ALWAYS
from ._bulk import codes_mask
from .codes import JAVA_WHITESPACE, java_trim, message_tag, tag_code

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

#: The dialect name of `RocketMQTagFilter`.
DIALECT = "rocketmq-tag"
#: The value model of `RocketMQTagFilter` (the dialect registry registers both).
MODEL = ValueModel.ROCKETMQ_TAG
#: `SubscriptionData.SUB_ALL`: the whole expression that subscribes to every tag.
SUB_ALL = "*"

_SEPARATOR = "||"


def parse_tag_expression(text: str, limits: Limits = DEFAULT_LIMITS) -> tuple[str, ...] | None:
    """The tags of a RocketMQ tag expression, in order of first appearance, without repeats.

    None means subscribe-all (`text` is empty or exactly `*`); an empty tuple means the
    expression names no tag (it is blank between its separators) and subscribes to none.

    Raises `FilterSyntaxError` for text that is only `||` separators (RocketMQ's
    "subString split error") and `FilterLimitError` for text longer than
    `limits.max_length` or naming more than `limits.max_in_items` distinct tags.
    """
    if len(text) > limits.max_length:
        raise FilterLimitError(
            f"expression longer than {limits.max_length} characters", text, limits.max_length
        )
    if text in ("", SUB_ALL):
        return None
    found: dict[str, None] = {}
    # Java's split drops trailing empty pieces, so it yields nothing only when every piece
    # is empty: that, not "no tag after trimming", is the broker's error.
    some_piece = False
    start = 0
    while True:
        end = text.find(_SEPARATOR, start)
        piece = text[start : len(text) if end < 0 else end]
        some_piece = some_piece or bool(piece)
        tag = java_trim(piece)
        if tag and tag not in found:
            if len(found) == limits.max_in_items:
                at = start + len(piece) - len(piece.lstrip(JAVA_WHITESPACE))
                raise FilterLimitError(f"more than {limits.max_in_items} tags", text, at)
            found[tag] = None
        if end < 0:
            break
        start = end + len(_SEPARATOR)
    if not some_piece:
        raise FilterSyntaxError(
            "no tag between the '||' separators", text, 0, ("a tag", "'*' for every tag")
        )
    return tuple(found)


def unparse_tags(tags: tuple[str, ...] | None) -> str:
    """Canonical text for `tags` (None for subscribe-all) that parses back to the same tags."""
    if tags is None:
        return SUB_ALL
    if not tags:
        # Blank text is the one spelling of "no tag" (empty text would subscribe to all).
        return " "
    if tags == (SUB_ALL,):
        # A lone "*" would mean subscribe-all; the dropped empty piece keeps it a tag.
        return SUB_ALL + " " + _SEPARATOR
    return " || ".join(tags)


class RocketMQTagFilter(Filter):
    """A compiled RocketMQ tag expression (dialect `rocketmq-tag`).

    Two checks, as in RocketMQ:

    * `matches_code(code)`: the broker's consume-queue check on a tag's hash code alone
      (`tag_code`). It admits a hash collision; it admits None (a code the broker could
      not read); under subscribe-all it admits everything. `matches_codes(codes)` does the
      same over a whole array of codes at once.
    * `matches(message)`: the client's exact re-check on the message's `TAGS` string:
      present and one of `tags` (case-sensitive), so a collision never gets through.
      Under subscribe-all every message matches, untagged ones included.

    `evaluate(message)` is `matches(message)`: never None, because a tag check has no
    UNKNOWN (a message without a tag is simply not subscribed to).
    """

    __slots__ = (
        "_sorted_codes",
        "matches_code",
        "matches_tag",
        "ordered_tags",
        "subscribe_all",
        "tag_codes",
        "tags",
    )

    #: True when the expression is empty or exactly `*`: every message matches.
    subscribe_all: bool
    #: The subscribed tags (empty under subscribe-all, and for a blank expression).
    tags: frozenset[str]
    #: The same tags in order of first appearance (what `unparse()` writes).
    ordered_tags: tuple[str, ...]
    #: `tag_code` of each tag: the broker's `codeSet`.
    tag_codes: frozenset[int]
    #: The broker's consume-queue check on one tag code (None: code unknown, admitted).
    matches_code: Callable[[int | None], bool]
    #: The client's check on one tag string (None: untagged).
    matches_tag: Callable[[str | None], bool]
    _sorted_codes: tuple[int, ...]

    def __init__(self, text: str, limits: Limits = DEFAULT_LIMITS) -> None:
        if not isinstance(text, str):
            raise FilterError(f"a filter expression is text, not {type(text).__name__}")
        parsed = parse_tag_expression(text, limits)
        subscribe_all = parsed is None
        ordered = parsed or ()
        tags = frozenset(ordered)
        codes = frozenset(map(tag_code, ordered))
        if subscribe_all:
            matches = matches_code = matches_tag = ALWAYS
        else:
            matches, matches_tag = _tag_checks(tags)
            # None rides in the set so that the hot path stays one C call.
            matches_code = (codes | {None}).__contains__
        super().__init__(text, DIALECT, frozenset({TAGS_PROPERTY}), matches, matches, limits,
            model=MODEL)
        for name, value in (
            ("subscribe_all", subscribe_all), ("tags", tags), ("ordered_tags", ordered),
            ("tag_codes", codes), ("matches_code", matches_code), ("matches_tag", matches_tag),
            ("_sorted_codes", tuple(sorted(codes))),
        ):
            object.__setattr__(self, name, value)

    def matches_codes(self, codes: object) -> NDArray[np.bool_]:
        """`matches_code` over many codes at once: a numpy bool array, one entry per code.

        `codes` is a one-dimensional sequence of ints (None entries read as unknown codes
        and are admitted), a numpy integer array, or a pyarrow integer Array or
        ChunkedArray (nulls are admitted). Needs numpy; pyarrow is used, when installed,
        for Arrow input and for expressions of more than 64 tags. Codes are compared as
        the signed 32-bit values `tag_code` returns; a number outside that range matches
        nothing (except under subscribe-all).
        """
        return codes_mask(codes, self._sorted_codes, self.subscribe_all, self.matches_code)

    def unparse(self) -> str:
        return unparse_tags(None if self.subscribe_all else self.ordered_tags)

    def _key(self) -> object:
        return (self.subscribe_all, self.tags)

    def explain(self) -> str:
        """A human-readable account of what the expression subscribes to, over several lines."""
        lines = [f"RocketMQ tag expression {self.text!r} (canonical: {self.unparse()!r})"]
        if self.subscribe_all:
            lines += [
                "  subscribe-all: yes (the expression is empty or exactly '*')",
                "  broker, consume queue: admits every message, without reading its tag code",
                "  client, second pass: keeps every message, tagged or not",
            ]
            return "\n".join(lines)
        lines.append("  subscribe-all: no")
        if not self.ordered_tags:
            lines += [
                "  tags: none (every piece between the separators is blank)",
                "  broker, consume queue: admits only a message whose tag code it cannot read",
                "  client, second pass: keeps no message (msgfilter matches nothing)",
            ]
            return "\n".join(lines)
        lines.append(f"  tags ({len(self.ordered_tags)}) and their codes (Java String.hashCode):")
        width = max(len(repr(tag)) for tag in self.ordered_tags)
        lines += [f"    {tag!r:<{width}}  {tag_code(tag)}" for tag in self.ordered_tags]
        lines += [
            "  broker, consume queue: admits a message whose tag code is one of these codes,",
            "    or whose code it cannot read; a different tag with the same code gets through",
            "  client, second pass: keeps a message whose TAGS is exactly one of these tags",
            "    (case-sensitive); untagged messages are dropped",
        ]
        if 0 in self.tag_codes:
            lines.append(
                "  note: code 0 is also an untagged message's code: the broker admits untagged"
                " messages and the second pass drops them"
            )
        if len(self.tag_codes) < len(self.tags):
            lines.append("  note: some of these tags share a code")
        return "\n".join(lines)


def _tag_checks(tags: frozenset[str]) -> tuple[Callable[[Any], bool], Callable[[Any], bool]]:
    """The client's re-check on a message and on a bare tag, for a tag set."""

    def matches(message: Any) -> bool:
        tag = message.get(TAGS_PROPERTY) if type(message) is dict else message_tag(message)
        # The type test first: an unhashable value must not reach the set lookup.
        return isinstance(tag, str) and tag in tags

    def matches_tag(tag: Any) -> bool:
        return isinstance(tag, str) and tag in tags

    return matches, matches_tag
