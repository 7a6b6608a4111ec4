"""RocketMQ tag expressions, Pulsar topic names and topic patterns."""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from hypothesis import strategies as st

_TAG = st.text(
    st.one_of(st.sampled_from(string.ascii_letters + string.digits + "_-.*|"),
              st.sampled_from("äß日😀 ")),
    min_size=1,
    max_size=8,
).filter(lambda t: "||" not in t and t.strip() != "" and not t.startswith("|")
         and not t.endswith("|"))


@st.composite
def _tag_expression(draw: st.DrawFn) -> str:
    form = draw(st.integers(0, 3))
    if form == 1:
        return draw(st.sampled_from(("*", "", " * ", "TagA", " TagA ")))
    tags = draw(st.lists(_TAG, min_size=1, max_size=4))
    pieces = []
    for i, tag in enumerate(tags):
        if i:
            pieces.append(draw(st.sampled_from((" || ", "||", " ||", "|| ", "\t||\t"))))
        pieces.append(tag)
    text = "".join(pieces)
    if form == 2:
        text = draw(st.sampled_from(("||", " || "))) + text  # leading empty piece
    elif form == 3:
        text += draw(st.sampled_from(("||", " ||")))  # trailing empty piece
    return text


def tag_expressions() -> st.SearchStrategy[str]:
    """RocketMQ tag subscription expressions (brokers.md A.1): `*`, the empty string,
    `A`, `A || B || C` with assorted spacing, leading or trailing `||`; each has at
    least one tag, so the broker accepts it (`||` alone is its one parse error)."""
    return _tag_expression()


_ENTITY = st.one_of(
    st.sampled_from(("public", "default", "tenant", "ns", "my-tenant", "a.b", "x=y")),
    st.from_regex(r"[a-z][-=:.a-z0-9_]{0,7}", fullmatch=True),
)
_LOCAL = st.one_of(
    st.sampled_from(("topic", "orders", "t1", "my-topic", "a.b.c", "__change_events")),
    st.from_regex(r"[A-Za-z0-9_][-A-Za-z0-9_.]{0,11}", fullmatch=True),
)


@st.composite
def _topic_name(draw: st.DrawFn, domains: Sequence[str], partitions: bool) -> str:
    domain = draw(st.sampled_from(domains))
    name = f"{domain}://{draw(_ENTITY)}/{draw(_ENTITY)}/{draw(_LOCAL)}"
    if partitions and draw(st.booleans()):
        name += f"-partition-{draw(st.integers(0, 99))}"
    return name


def topic_names(
    domains: Sequence[str] = ("persistent", "non-persistent"), *, partitions: bool = True
) -> st.SearchStrategy[str]:
    """Complete Pulsar topic names `domain://tenant/namespace/local`, with a
    `-partition-N` suffix when `partitions` (brokers.md B.3)."""
    return _topic_name(tuple(domains), partitions)


@st.composite
def _topic_pattern(draw: st.DrawFn, domains: Sequence[str]) -> str:
    domain = draw(st.sampled_from(domains))
    tenant, namespace = draw(_ENTITY), draw(_ENTITY)
    prefix = draw(st.from_regex(r"[a-z0-9_-]{0,4}", fullmatch=True))
    alternatives = draw(st.lists(_LOCAL, min_size=2, max_size=3, unique=True))
    alternation = "(" + "|".join(map(re.escape, alternatives)) + ")"
    tail = draw(st.sampled_from((".*", ".+", "", "[a-z0-9_-]*", "-[0-9]+", alternation)))
    anchor = draw(st.sampled_from(("", "^")))
    return f"{anchor}{domain}://{re.escape(tenant)}/{re.escape(namespace)}/{re.escape(prefix)}{tail}"


def topic_patterns(
    domains: Sequence[str] = ("persistent", "non-persistent"),
) -> st.SearchStrategy[str]:
    """Topic regexes as Pulsar clients send them (brokers.md B.3):
    `persistent://tenant/ns/prefix.*` and kin, with escaped tenant, namespace and
    prefix, alternations, classes and an optional `^`."""
    return _topic_pattern(tuple(domains))
