"""`TopicsPattern`: a topic regex compiled the way Pulsar's `TopicsPatternFactory` does it.

- The domain scheme is removed from the regex first (`TopicList.removeTopicDomainScheme`):
  `persistent://t/ns/.*` becomes `t/ns/.*`, `^non-persistent://t/ns/x` becomes `^t/ns/x`, and
  any other `…://` prefix is refused. The domain of a topic is therefore never matched: which
  domains are listed is the listing mode's job.
- A topic matches when the regex matches all of its name without scheme and without any
  `-partition-N` suffix (`tenant/ns/orders` for `persistent://tenant/ns/orders-partition-2`);
  the result keeps the original name.
- `.*` after stripping matches everything without running a regex.

Implementations: `"re2"` (package `google-re2`, linear time, the choice for patterns sent by
untrusted clients) and `"re"` (the standard library, restricted to the backtracking-safe
subset described in `msgfilter.topics.safety`, compiled with `re.ASCII` so that `\\d`, `\\w`,
`\\s` and case-insensitive matching are ASCII-only as in Java). Both read Python/RE2 syntax,
which agrees with Java's for what topic patterns use: literals, `.`, classes, quantifiers,
groups, `|`; Java's `\\Q…\\E` quoting is understood by both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from msgfilter.topics.errors import TopicPatternError
from msgfilter.topics.names import SCHEME_SEPARATOR, TopicDomain, parse_topic_name
from msgfilter.topics.safety import check_backtracking_safety

if TYPE_CHECKING:
    import sre_constants as _constants
    import sre_parse as _parser
else:
    from re import _constants, _parser

Implementation = Literal["re", "re2"]
IMPLEMENTATIONS: tuple[Implementation, ...] = ("re", "re2")
MATCH_ALL = ".*"


def remove_domain_scheme(regex: str) -> str:
    """Remove the `persistent://` / `non-persistent://` scheme from a topic regex.

    Pulsar splits on `://` and keeps the first two pieces; a regex with two `://` would
    silently lose its tail there, so it is refused here instead.
    """
    if SCHEME_SEPARATOR not in regex:
        return regex
    prefix, _, rest = regex.partition(SCHEME_SEPARATOR)
    if SCHEME_SEPARATOR in rest:
        raise TopicPatternError("more than one '://' (only one domain scheme may lead)", regex)
    if not rest:
        raise TopicPatternError("nothing follows the domain scheme", regex)
    if prefix in (TopicDomain.PERSISTENT, TopicDomain.NON_PERSISTENT):
        return rest
    # non-persistent ends with persistent, so it must be tried first.
    for domain in (TopicDomain.NON_PERSISTENT, TopicDomain.PERSISTENT):
        if prefix.endswith(domain):
            return prefix[: -len(domain)] + rest
    raise TopicPatternError(
        f"Does not support topic domain: {prefix!r} (use persistent:// or non-persistent://)",
        regex,
        offset=0,
    )


def expand_quotes(regex: str) -> str:
    """Rewrite Java's `\\Q…\\E` quoting (what `Pattern.quote` produces, so Java clients send
    it) as escaped text, which Python's `re` understands; RE2 reads both forms alike."""
    if "\\Q" not in regex:
        return regex
    out: list[str] = []
    at, size = 0, len(regex)
    while at < size:
        ch = regex[at]
        if ch != "\\" or at + 1 >= size:
            out.append(ch)
            at += 1
        elif regex[at + 1] != "Q":
            out.append(regex[at : at + 2])  # an escape pair, e.g. a literal backslash
            at += 2
        else:
            end = regex.find("\\E", at + 2)
            stop = size if end < 0 else end
            out.append(re.escape(regex[at + 2 : stop]))
            at = size if end < 0 else end + 2
    return "".join(out)


def literal_prefix(regex: str, flags: int = 0) -> str:
    """The literal text every full match of `regex` starts with ('' if none or unknown).

    Read from the parse tree: leading literal characters, through plain groups, after a
    leading `^`. Case-insensitive patterns have none. Used to index watchers, so it may be
    shorter than the true prefix but never longer.
    """
    try:
        parsed = _parser.parse(regex, flags)
    except (re.error, OverflowError, RecursionError):
        return ""
    if parsed.state.flags & re.IGNORECASE:
        return ""
    out: list[str] = []

    def walk(sequence: Any) -> bool:
        for op, av in sequence:
            if op is _constants.LITERAL:
                out.append(chr(av))
            elif (
                op is _constants.AT
                and not out
                and av
                in (
                    _constants.AT_BEGINNING,
                    _constants.AT_BEGINNING_STRING,
                )
            ):
                continue
            elif op is _constants.SUBPATTERN and not (av[1] & re.IGNORECASE):
                if not walk(av[3]):
                    return False
            else:
                return False
        return True

    walk(parsed)
    return "".join(out)


def _compile_re(regex: str) -> Callable[[str], bool]:
    regex = expand_quotes(regex)
    try:
        # ASCII: Java's defaults for \d \w \s \b and case-insensitivity (RE2's for \d \w \s).
        compiled = re.compile(regex, re.ASCII)
    except re.error as error:
        raise TopicPatternError(f"invalid regex: {error.msg}", regex, error.pos) from None
    except (OverflowError, RecursionError) as error:
        raise TopicPatternError(f"invalid regex: {error}", regex) from None
    check_backtracking_safety(regex, re.ASCII)
    fullmatch = compiled.fullmatch
    return lambda subject: fullmatch(subject) is not None


def _compile_re2(regex: str) -> Callable[[str], bool]:
    try:
        import re2
    except ImportError:
        raise ImportError(
            "implementation='re2' needs the 'google-re2' package: pip install 'msgfilter[re2]'"
        ) from None
    options = re2.Options()
    options.log_errors = False  # errors are raised, not also printed to stderr
    options.never_capture = True
    try:
        compiled = re2.compile(regex, options)
    except re2.error as error:
        detail = error.args[0] if error.args else error
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise TopicPatternError(f"invalid regex for RE2: {detail}", regex) from None
    fullmatch = compiled.fullmatch
    return lambda subject: fullmatch(subject) is not None


_COMPILERS: dict[str, Callable[[str], Callable[[str], bool]]] = {
    "re": _compile_re,
    "re2": _compile_re2,
}


def _match_all(subject: str) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class TopicsPattern:
    """A compiled topic regex. Build it with `TopicsPattern.compile`.

    `input_pattern` is the regex as given, `pattern` the regex without domain scheme that is
    actually matched, `prefix` the literal text every matching subject starts with.
    Immutable, hashable, thread-safe and picklable (pickling recompiles).
    """

    input_pattern: str
    pattern: str
    implementation: Implementation
    prefix: str
    match_all: bool
    _fullmatch: Callable[[str], bool] = field(repr=False, compare=False)

    @classmethod
    def compile(cls, regex: str, implementation: Implementation = "re") -> TopicsPattern:
        """Compile a topic regex; raise `TopicPatternError` (or its `UnsafePatternError`
        subclass) if it cannot be used, `ImportError` if `re2` is asked for but missing."""
        if not isinstance(regex, str):
            raise TypeError(f"a topic pattern must be a str, not {type(regex).__name__}")
        if implementation not in _COMPILERS:
            raise ValueError(
                f"unknown regex implementation {implementation!r}; use one of {IMPLEMENTATIONS}"
            )
        return _compile_cached(regex, implementation)

    def matches_subject(self, subject: str) -> bool:
        """Full-match the regex against an already reduced name (`tenant/ns/local`)."""
        return self._fullmatch(subject)

    def matches(self, topic: str) -> bool:
        """Whether a topic name (complete or short, any partition) matches."""
        if self.match_all:
            return True
        return self._fullmatch(parse_topic_name(topic).pattern_subject)

    def filter(self, topics: Iterable[str]) -> list[str]:
        """The matching names, in their order, as given (with scheme and partition)."""
        if self.match_all:
            return list(topics)
        fullmatch = self._fullmatch
        return [name for name in topics if fullmatch(parse_topic_name(name).pattern_subject)]

    def __reduce__(self) -> tuple[object, ...]:
        return (TopicsPattern.compile, (self.input_pattern, self.implementation))


@lru_cache(maxsize=4096)
def _compile_cached(regex: str, implementation: Implementation) -> TopicsPattern:
    stripped = remove_domain_scheme(regex)
    if stripped == MATCH_ALL:
        return TopicsPattern(regex, stripped, implementation, "", True, _match_all)
    fullmatch = _COMPILERS[implementation](stripped)
    prefix = literal_prefix(expand_quotes(stripped))
    return TopicsPattern(regex, stripped, implementation, prefix, False, fullmatch)
