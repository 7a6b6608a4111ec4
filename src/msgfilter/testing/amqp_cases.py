"""Hypothesis strategies for amqp-sql (RabbitMQ 4.2's AMQP SQL filter expressions) and
AMQP-typed messages.

`amqp_selectors()` draws texts of RabbitMQ's grammar: its literal forms (unbounded
integers, `1.5E3`, strings in either quote, `0x` binaries, booleans), names bare,
delimited and section-qualified (`h.priority`, `p.subject`, `a.k`), `UTC()`, every
operator (`%`, `!=`, any-expression IN lists, LIKE with ESCAPE), and no static typing:
`'a' + 1` is as likely as `a + 1`. `amqp_messages()` draws `msgfilter.Message`s with
application properties of every AMQP kind (int, float, str, bytes, bool) and the header
and properties fields those texts read.
"""

from __future__ import annotations

from hypothesis import strategies as st

from ..message import Message

#: The application property names the strategies use (one needs brackets).
AMQP_NAMES: tuple[str, ...] = ("a", "b", "s", "t", "u", "bin", "yes", "z", "x-y")
_FIELDS = ("h.priority", "p.subject", "p.message_id", "p.group_sequence", "p.creation_time")
_WORDS = ("", "a", "ab", "abc", "B", "é", "日本", "a\nb", "x%y", "it's")


def _name(name: str) -> str:
    return f"[{name}]" if "-" in name else name


def _string_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_literals = st.one_of(
    st.integers(-10, 10).map(str),
    st.sampled_from(["0", "2147483648", "9223372036854775808", "18446744073709551616"]),
    st.sampled_from(["0.5", "2.5", "1.5E3", "1.0E-2", "0.0", "1.0E308"]),
    st.sampled_from(_WORDS).map(_string_literal),
    st.sampled_from(['"a"', '"say ""hi"""']),
    st.sampled_from(["0x61", "0x6162", "0x00FF", "0xC3A9"]),
    st.sampled_from(["TRUE", "FALSE"]),
)
_primaries = st.one_of(
    st.sampled_from(AMQP_NAMES).map(_name),
    st.sampled_from(_FIELDS),
    st.sampled_from(["a.s", "application_properties.a", "[missing]"]),
    _literals,
    st.just("UTC()"),
)


def _values(depth: int) -> st.SearchStrategy[str]:
    unary = st.tuples(st.sampled_from(["", "", "-", "+"]), _primaries).map("".join)
    if depth <= 0:
        return unary
    inner = _values(depth - 1)
    return st.one_of(
        unary,
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%"]), inner).map(" ".join),
        inner.map(lambda x: f"({x})"),
    )


_PATTERNS = ("a%", "%b", "a_", "%", "", "a%b", "_%", "%a%", "a!%" , "é%", "__")


def _conditions(depth: int) -> st.SearchStrategy[str]:
    value = _values(1)
    comparison = st.tuples(
        value, st.sampled_from(["=", "<>", "!=", "<", "<=", ">", ">="]), value
    ).map(" ".join)
    like = st.tuples(
        value, st.sampled_from(["", "NOT "]), st.sampled_from(_PATTERNS),
        st.sampled_from(["", " ESCAPE '!'"]),
    ).map(lambda p: f"{p[0]} {p[1]}LIKE {_string_literal(p[2])}{p[3]}")
    in_list = st.tuples(
        value, st.sampled_from(["", "NOT "]), st.lists(value, min_size=1, max_size=3)
    ).map(lambda p: f"{p[0]} {p[1]}IN ({', '.join(p[2])})")
    is_null = st.tuples(
        st.sampled_from(AMQP_NAMES + _FIELDS).map(_name), st.sampled_from(["", "NOT "])
    ).map(lambda p: f"{p[0]} IS {p[1]}NULL")
    leaf = st.one_of(comparison, like, in_list, is_null, value)
    if depth <= 0:
        return leaf
    inner = _conditions(depth - 1)
    return st.one_of(
        leaf,
        inner.map(lambda x: f"NOT {x}"),
        st.tuples(inner, st.sampled_from(["AND", "OR"]), inner).map(" ".join),
        inner.map(lambda x: f"({x})"),
    )


def amqp_selectors(depth: int = 3) -> st.SearchStrategy[str]:
    """amqp-sql texts of RabbitMQ's grammar (a few are still refused: a LIKE pattern
    ending in its escape, or more than 200 tokens)."""
    return _conditions(depth)


_app_values = st.one_of(
    st.none(),
    st.integers(-5, 5),
    st.sampled_from([2**63, -(2**64), 2**70]),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from(_WORDS),
    st.binary(max_size=3),
    st.booleans(),
)


def amqp_messages() -> st.SearchStrategy[Message]:
    """AMQP messages: application properties of every kind under `AMQP_NAMES`, and the
    header and properties fields `amqp_selectors` reads."""
    props = st.fixed_dictionaries({}, optional={k: _app_values for k in AMQP_NAMES})
    fields = st.fixed_dictionaries({}, optional={
        "priority": st.integers(0, 9),
        "subject": st.sampled_from(_WORDS),
        "message_id": st.one_of(st.sampled_from(_WORDS), st.integers(0, 2**64 - 1),
                                st.binary(max_size=2)),
        "group_sequence": st.integers(0, 2**32 - 1),
        "creation_time": st.integers(0, 2**42),
    })
    return st.builds(Message, props, fields)
