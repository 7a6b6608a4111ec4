"""Texts of known shapes in every SQL dialect, and a strategy that swaps their literal
values for others of the same kind (edges likely): what the shape tests and the index's
planning-by-shape tests compile both ways."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from msgfilter import dialects
from msgfilter.limits import DEFAULT_LIMITS
from msgfilter.syntax.lexer import LITERAL_KINDS, _tokenize

# -- texts made by swapping literal values in a known shape --------------------------------

STRINGS = st.one_of(
    st.sampled_from(["", "'", "''", "%", "_", "a%", "%a", "%a%", "a_b", "!%", "!", "!!",
                     "\\", "x!_y", "PERSISTENT", "a''b", "日本", "\U0001f600", " "]),
    st.text(max_size=6),
)
EXACTS = st.one_of(
    st.sampled_from([
        "0", "1", "7", "017", "0x1F", "0X7fffffffffffffff", "9007199254740992",
        "9007199254740993", "9223372036854775807", "9223372036854775808",
        "99999999999999999999", "5L", "0L", "08", "2147483648",
    ]),
    st.integers(0, 2**70).map(str),
)
APPROXES = st.one_of(
    st.sampled_from([
        "0.0", "1.5", ".5", "1.", "1e3", "1E-3", "1e308", "1e309", "1.7976931348623157e308",
        "4.9e-324", "1e-400", "9007199254740993.0", "0.1",
    ]),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).map(repr),
)
BY_KIND = {"STRING": STRINGS.map(lambda s: "'" + s.replace("'", "''") + "'"),
            "EXACT": EXACTS, "APPROX": APPROXES}


@st.composite
def siblings(draw: st.DrawFn, text: str, dialect: str) -> str:
    """`text` with each literal replaced by another of the same kind (edges likely)."""
    grammar = dialects.get(dialect).grammar
    assert grammar is not None
    body = text
    for prefix in ("convert_string_expressions:", "hyphenated_props:"):
        if body.lstrip().startswith(prefix):
            at = body.index(prefix)
            body = body[:at] + " " * len(prefix) + body[at + len(prefix):]
            if prefix.startswith("hyphen"):
                grammar = replace(grammar, hyphenated_identifiers=True, quoted_identifiers=False)
    tokens = _tokenize(body, grammar, DEFAULT_LIMITS)
    out, last = [], 0
    for token in tokens:
        if token.type in LITERAL_KINDS and draw(st.integers(0, 3)):
            out.append(text[last:token.start_pos])
            replacement = draw(BY_KIND[token.type])
            # Keep the kind: a number that reads as another kind is another shape.
            if token.type == "APPROX" and not any(c in replacement for c in ".eE"):
                replacement += ".0"
            out.append(replacement)
            last = token.end_pos or 0
    out.append(text[last:])
    return "".join(out)


# Shapes of each dialect, each with its literal forms.
SHAPES: dict[str, list[str]] = {
    "jms": [
        "tenant = 't17' AND type IN ('k1', 'k2') AND price > 120.5 AND region <> 'eu'",
        "a = -5 OR b < - - 9223372036854775808 OR c >= -1.5 OR d = +7",
        "x BETWEEN 1 AND 2.5 AND y NOT BETWEEN -3 AND 0x10 AND z = 017",
        "name LIKE 'a%' AND tag NOT LIKE '!_x%' ESCAPE '!' AND s LIKE '%'",
        "q * 2 + r / 3.0 - -s > 9007199254740993 AND p = 1e3",
        "a = 'x' AND b = 'x' AND a = 1 AND c = 1.0 AND d IS NOT NULL AND NOT (e = 'y')",
        "s = 'abc' OR s <> '' OR t = TRUE OR u <> FALSE OR TRUE",
    ],
    "rocketmq": [
        "a = 'x' AND b > 3 AND c BETWEEN 1 AND 5 AND d IN ('p', 'q')",
        "a BETWEEN -5 AND 2.5 AND b NOT BETWEEN 3 AND 1 AND x = -3.5",
        "s CONTAINS 'ab' AND t NOT STARTSWITH '' AND u ENDSWITH 'z' AND v IS NULL",
        "a > 1e308 OR b < 2147483648 OR c = 9223372036854775807",
    ],
    "activemq": [
        "a = 'x' AND b > 3 AND c % 2 = 1 AND d IN ('p', 'q') AND e < 1.5",
        "name LIKE 'a!%' ESCAPE '!' OR name LIKE '%\\_%' OR name LIKE 'x'",
        "convert_string_expressions: a > 3 AND b = '5'",
        "a = -9223372036854775808 OR b = 99999999999999999999 OR c = -5",
        "REGEX('a.*', s) AND INLIST(SPLIT(t, ','), 'x') AND XQUERY 'q'",
    ],
    "artemis": [
        "JMSPriority > 4 AND JMSDeliveryMode = 'PERSISTENT' AND a = 'x'",
        "  \"my-prop\" = 'v' AND b LIKE 'a%'  ",
        "hyphenated_props: my-prop = 'x' AND c = 2",
        "AMQPriority BETWEEN 1 AND 9 AND d IN ('p')",
    ],
    "qpid": [
        "a = 'x' AND b > 3 AND \"quoted id\" = 2.5 AND d IN ('p', 'q')",
        "name LIKE 'a%' ESCAPE 'a' OR name NOT LIKE '!%%' ESCAPE '!' OR x = 5L",
        "JMSPriority = 4 AND NOT a = 1",
    ],
}

CASES = [(d, t) for d, texts in SHAPES.items() for t in texts]
