"""Pulsar tag filters: the anytag / alltag scheme of the "ConsumerFilter" proposal.

A consumer subscribes with metadata entries whose keys start with `anytag` (OR values) or
`alltag` (AND values). A message's tags are the values of its properties whose keys start
with `tag`. The message passes when at least one anytag value (if there are any) and every
alltag value are among its tags. Key prefixes are case-sensitive, as Java's `startsWith`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from ..errors import FilterError
from ..filter import Filter
from ..limits import DEFAULT_LIMITS, Limits
from ..message import as_mapping
from ..semantics.model import ValueModel
from ._always import ALWAYS
from .pulsar_text import parse_pulsar_tags, quote_value, unparse_pulsar_tags

#: The dialect name of `PulsarTagFilter`.
DIALECT = "pulsar-tag"
#: The value model of `PulsarTagFilter` (the dialect registry registers both).
MODEL = ValueModel.PULSAR_TAG
#: Message property keys starting with this hold the message's tags.
TAG_PREFIX = "tag"
#: Consumer metadata keys starting with this hold values of which one must match.
ANY_PREFIX = "anytag"
#: Consumer metadata keys starting with this hold values that must all match.
ALL_PREFIX = "alltag"


class PulsarTagFilter(Filter):
    """A Pulsar anytag / alltag tag filter (dialect `pulsar-tag`).

    Build it from a consumer's metadata with `pulsar_tag_filter`, from its values with
    `PulsarTagFilter(any_tags=[...], all_tags=[...])`, or from text with
    `msgfilter.compile("anytag: a, b; alltag: c", dialect="pulsar-tag")`.

    `matches(message)` reads every message property whose key starts with `tag`
    (`reads_prefix`); only string keys and values count, anything else is ignored. With no
    values at all the filter accepts every message. `identifiers` is empty because the
    names read are not fixed; `reads_prefix` says which they are. `evaluate` is `matches`
    (never None: the check has no UNKNOWN).
    """

    __slots__ = ("all_tags", "any_tags", "ordered_all_tags", "ordered_any_tags")

    #: The filter reads every message property whose key starts with this.
    reads_prefix: ClassVar[str] = TAG_PREFIX

    #: Values of which at least one must be a message tag (no condition when empty).
    any_tags: frozenset[str]
    #: Values that must all be message tags.
    all_tags: frozenset[str]
    #: `any_tags` in order of first appearance (what `unparse()` writes).
    ordered_any_tags: tuple[str, ...]
    #: `all_tags` in order of first appearance.
    ordered_all_tags: tuple[str, ...]

    def __init__(
        self,
        any_tags: Iterable[str] = (),
        all_tags: Iterable[str] = (),
        *,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        any_t, all_t = _distinct(any_tags, "any_tags"), _distinct(all_tags, "all_tags")
        text = unparse_pulsar_tags(any_t, all_t)
        if max(len(any_t), len(all_t)) > limits.max_in_items or len(text) > limits.max_length:
            # The parser raises the same FilterLimitError, pointing into the canonical text.
            parse_pulsar_tags(text, limits)
        self._setup(text, any_t, all_t, limits)

    @classmethod
    def from_text(cls, text: str, limits: Limits = DEFAULT_LIMITS) -> PulsarTagFilter:
        """The filter written as `text` in the `pulsar-tag` syntax (see docs/tags.md)."""
        if not isinstance(text, str):
            raise FilterError(f"a filter expression is text, not {type(text).__name__}")
        any_t, all_t = parse_pulsar_tags(text, limits)
        self = cls.__new__(cls)
        self._setup(text, any_t, all_t, limits)
        return self

    def _setup(
        self, text: str, any_t: tuple[str, ...], all_t: tuple[str, ...], limits: Limits
    ) -> None:
        any_set, all_set = frozenset(any_t), frozenset(all_t)
        matches = _matcher(any_set, all_set)
        super().__init__(text, DIALECT, frozenset(), matches, matches, limits,
            model=MODEL)
        for name, value in (
            ("any_tags", any_set), ("all_tags", all_set),
            ("ordered_any_tags", any_t), ("ordered_all_tags", all_t),
        ):
            object.__setattr__(self, name, value)

    def unparse(self) -> str:
        return unparse_pulsar_tags(self.ordered_any_tags, self.ordered_all_tags)

    def _key(self) -> object:
        # When an anytag value is also an alltag value, the alltag condition implies the
        # anytag one, so those filters mean the same as the alltag part alone.
        any_part = frozenset() if self.any_tags & self.all_tags else self.any_tags
        return (any_part, self.all_tags)

    def explain(self) -> str:
        """A human-readable account of what the filter accepts, over several lines."""
        lines = [f"Pulsar tag filter {self.text!r} (canonical: {self.unparse()!r})"]
        if not (self.any_tags or self.all_tags):
            lines.append("  no anytag or alltag values: accepts every message")
            return "\n".join(lines)
        lines.append(
            f"  message tags: the values of the message properties whose key starts with"
            f" {TAG_PREFIX!r} (case-sensitive)"
        )
        for label, values, rule in (
            ("any of", self.ordered_any_tags, "at least one must be a message tag"),
            ("all of", self.ordered_all_tags, "every one must be a message tag"),
        ):
            if values:
                shown = ", ".join(map(quote_value, values))
                lines.append(f"  {label} ({len(values)}): {shown}  -- {rule}")
        if self.any_tags & self.all_tags:
            lines.append("  note: an anytag value is also an alltag value: the anytag part is moot")
        return "\n".join(lines)


def pulsar_tag_filter(
    consumer_metadata: Mapping[str, str], limits: Limits = DEFAULT_LIMITS
) -> PulsarTagFilter:
    """The tag filter a consumer's metadata asks for.

    Entries whose key starts with `anytag` give the values of which one must match; those
    whose key starts with `alltag` give the values that must all match (case-sensitive
    prefixes; the rest of the key is free, e.g. `anytag1`, `anytag_region`). Other entries
    are ignored; metadata without any such entry filters nothing.

    Raises `FilterError` when an anytag / alltag entry's value is not a string.
    """
    any_t: list[str] = []
    all_t: list[str] = []
    for key, value in consumer_metadata.items():
        if not isinstance(key, str):
            continue
        if key.startswith(ANY_PREFIX):
            target = any_t
        elif key.startswith(ALL_PREFIX):
            target = all_t
        else:
            continue
        if not isinstance(value, str):
            raise FilterError(
                f"consumer metadata {key!r} must be a string, not {type(value).__name__}"
            )
        target.append(value)
    return PulsarTagFilter(any_tags=any_t, all_tags=all_t, limits=limits)


def message_tags(message: object) -> frozenset[str]:
    """The tags of `message`: the string values of its properties whose key starts with `tag`.

    Never raises: non-string keys and values are skipped, and anything that is not a
    mapping or a `msgfilter.Message`, or a mapping whose reading raises, has no tags.
    """
    props = message if type(message) is dict else as_mapping(message)
    try:
        return frozenset(
            value for key, value in props.items()
            if isinstance(value, str) and isinstance(key, str) and key.startswith(TAG_PREFIX)
        )
    except Exception:  # a mapping whose own reading raises has no tags we can see
        return frozenset()


def _distinct(values: Iterable[str], name: str) -> tuple[str, ...]:
    if isinstance(values, str):
        # A lone string would iterate as its characters: surely not what was meant.
        raise TypeError(f"{name} is a collection of strings, not one string")
    out: dict[str, None] = {}
    for value in values:
        if not isinstance(value, str):
            raise TypeError(f"{name} holds strings, not {type(value).__name__}")
        out[value] = None
    return tuple(out)


def _matcher(any_tags: frozenset[str], all_tags: frozenset[str]) -> Callable[[Any], bool]:
    """The fastest check for the kinds of values present: one pass over the properties."""
    need = len(all_tags)
    prefix = TAG_PREFIX
    if not any_tags and not all_tags:
        return ALWAYS

    # Each check catches what an odd mapping's own reading raises (try costs nothing in
    # CPython 3.11 until something is raised): evaluation never raises on message data.
    def any_only(message: Any) -> bool:
        props = message if type(message) is dict else as_mapping(message)
        try:
            for key, value in props.items():
                # Type tests before the set lookup: an unhashable value must not reach it.
                if isinstance(value, str) and value in any_tags and isinstance(key, str) \
                        and key.startswith(prefix):
                    return True
        except Exception:
            return False
        return False

    def all_only(message: Any) -> bool:
        props = message if type(message) is dict else as_mapping(message)
        try:
            seen = {
                value for key, value in props.items()
                if isinstance(value, str) and value in all_tags and isinstance(key, str)
                and key.startswith(prefix)
            }
        except Exception:
            return False
        return len(seen) == need

    def both(message: Any) -> bool:
        props = message if type(message) is dict else as_mapping(message)
        hit = False
        seen = set()
        try:
            for key, value in props.items():
                if isinstance(value, str) and isinstance(key, str) and key.startswith(prefix):
                    if value in any_tags:
                        hit = True
                    if value in all_tags:
                        seen.add(value)
        except Exception:
            return False
        return hit and len(seen) == need

    if not all_tags:
        return any_only
    return all_only if not any_tags else both
