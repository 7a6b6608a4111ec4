"""msgfilter.jsmtype: pulsar-jms typed properties decoded with Java's parsing rules."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from msgfilter.jsmtype import (
    SYSTEM_PROPERTY_TYPES,
    JsmTypeError,
    decode_properties,
    decode_value,
    encode_properties,
    encode_value,
    jms_destination,
    pulsar_message,
)

TYPES = ["boolean", "byte", "short", "int", "long", "float", "double", "string", "null", None]


@pytest.mark.parametrize(
    ("text", "type_name", "expected"),
    [
        ("42", "int", 42),
        ("+42", "long", 42),
        ("-0", "byte", 0),
        ("127", "byte", 127),
        ("-32768", "short", -32768),
        ("2147483647", "int", 2**31 - 1),
        ("-9223372036854775808", "long", -(2**63)),
        ("0" * 5000 + "7", "long", 7),  # leading zeros are legal, however many
        ("\u0663", "int", 3),  # Java's Character.digit takes any Unicode decimal digit
        ("TRUE", "boolean", True),
        ("yes", "boolean", False),
        ("", "boolean", False),
        ("1.5", "double", 1.5),
        (" 2.5d\n", "double", 2.5),
        ("1e5f", "double", 1e5),
        ("0x1.8p1", "double", 3.0),
        ("-Infinity", "double", -math.inf),
        ("1e400", "double", math.inf),
        ("1.1", "float", struct.unpack("<f", struct.pack("<f", 1.1))[0]),
        ("1e39", "float", math.inf),
        ("x", None, "x"),
        ("x", "string", "x"),
        ("x", "INT", "x"),  # type names are case-sensitive: unknown reads as a string
        ("x", "decimal", "x"),
        ("whatever", "null", None),
    ],
)
def test_values_decode_as_java_parses_them(text: str, type_name: str, expected: object) -> None:
    assert decode_value(text, type_name) == expected
    assert type(decode_value(text, type_name)) is type(expected)


@pytest.mark.parametrize(
    ("text", "type_name"),
    [
        ("128", "byte"),
        ("32768", "short"),
        ("2147483648", "int"),
        ("9223372036854775808", "long"),
        ("", "int"),
        ("-", "int"),
        ("+", "long"),
        (" 1", "int"),  # integers take no spaces
        ("1_000", "int"),
        ("0x10", "int"),
        ("1.0", "int"),
        ("\U0001d7ce", "int"),  # a digit above U+FFFF is two surrogates for Java
        ("inf", "double"),
        ("nan", "double"),
        ("1_0", "double"),
        (".", "double"),
        ("1e", "float"),
        ("\uff11", "double"),  # floating point takes ASCII digits only
    ],
)
def test_values_java_refuses_raise_jsmtypeerror(text: str, type_name: str) -> None:
    with pytest.raises(JsmTypeError) as caught:
        decode_value(text, type_name, "p")
    assert caught.value.name == "p" and caught.value.type_name == type_name
    assert "'p'" in str(caught.value)


def test_float_is_rounded_once_from_the_text() -> None:
    # Halfway between two floats once rounded to a double; the text is just above it.
    text = "1.0000001788139343261718751"
    assert decode_value(text, "float") == struct.unpack("<f", struct.pack("<I", 0x3F800002))[0]
    # The exact tie rounds to even.
    tie = "1.000000178813934326171875"
    assert decode_value(tie, "float") == struct.unpack("<f", struct.pack("<I", 0x3F800002))[0]


@given(st.text(max_size=30), st.sampled_from(TYPES))
def test_decoding_arbitrary_text_returns_or_raises_jsmtypeerror(
    text: str, type_name: str | None
) -> None:
    try:
        value = decode_value(text, type_name)
    except JsmTypeError:
        assert type_name in ("byte", "short", "int", "long", "float", "double")
        return
    assert value is None or type(value) in (bool, int, float, str)


@given(
    st.dictionaries(
        st.text(st.characters(codec="ascii", exclude_characters="_"), min_size=1, max_size=8)
        .filter(lambda name: not name.startswith("JMS")),
        st.one_of(
            st.booleans(),
            st.integers(-(2**63), 2**63 - 1),
            st.floats(allow_nan=False),
            st.text(max_size=10),
        ),
        max_size=6,
    )
)
def test_encode_then_decode_gives_the_values_back(values: dict[str, object]) -> None:
    props = encode_properties(values)
    assert all(isinstance(v, str) for v in props.values())
    decoded = decode_properties(props, names=list(values))
    for name, value in values.items():
        assert decoded[name] == value and type(decoded[name]) is type(value)


def test_java_number_text() -> None:
    assert encode_value(1e10) == ("1.0E10", "double")
    assert encode_value(0.001) == ("0.001", "double")
    assert encode_value(1e-4) == ("1.0E-4", "double")
    assert encode_value(5e-324) == ("4.9E-324", "double")
    assert encode_value(1.1, "float") == ("1.1", "float")
    assert encode_value(3, "byte") == ("3", "byte")
    assert encode_value(None) == (None, "null")
    with pytest.raises(ValueError):
        encode_value(300, "byte")
    with pytest.raises(ValueError):
        encode_value(object())


def test_system_properties_have_fixed_types_unless_a_companion_says_otherwise() -> None:
    assert SYSTEM_PROPERTY_TYPES["JMSExpiration"] == "long"
    view = decode_properties({"JMSExpiration": "99", "JMSType": "t", "JMSXGroupSeq": "5"})
    assert view["JMSExpiration"] == 99 and view["JMSType"] == "t" and view["JMSXGroupSeq"] == 5
    overridden = decode_properties({"JMSExpiration": "99", "JMSExpiration_jsmtype": "string"})
    assert overridden["JMSExpiration"] == "99"
    with pytest.raises(JsmTypeError):
        decode_properties({"JMSExpiration": "soon"})


def test_header_defaults_and_derivations() -> None:
    view = decode_properties({})
    assert view == {
        "JMSPriority": 4,
        "JMSDeliveryMode": "PERSISTENT",
        "JMSTimestamp": 0,
        "JMSXDeliveryCount": 0,
        "JMSXGroupID": "",
        "JMSXGroupSeq": "0",
    }
    view = decode_properties(
        {
            "JMSPriority": "7",
            "JMSDeliveryMode": "1",
            "JMSCorrelationID": "aMOpbGxv",  # Base64 of UTF-8 "héllo", unpadded
            "JMSReplyTo": "answers",
            "JMSReplyToType": "topic",
            "JMSXDeliveryCount": "5",
        },
        destination=jms_destination("persistent://t/n/x", "QUEUE"),
    )
    assert view["JMSPriority"] == 7 and view["JMSDeliveryMode"] == "NON_PERSISTENT"
    assert view["JMSCorrelationID"] == "héllo"
    assert view["JMSReplyTo"] == "topic://answers"
    assert view["JMSXDeliveryCount"] == 0
    assert view["JMSDestination"] == "queue://persistent://t/n/x"
    # An integer that is not one is the default, as the broker's fallback.
    typed_priority = {"JMSPriority": "2.5", "JMSPriority_jsmtype": "double"}
    assert decode_properties(typed_priority, names=["JMSPriority"]) == {"JMSPriority": 4}


@pytest.mark.parametrize("bad", ["a", "ab=", "abcd=", "ab=c=", "a$==", "é"])
def test_a_correlation_id_that_is_not_base64_is_an_error(bad: str) -> None:
    with pytest.raises(JsmTypeError):
        decode_properties({"JMSCorrelationID": bad}, names=["JMSCorrelationID"])


def test_pulsar_metadata_reaches_the_headers() -> None:
    message = pulsar_message({"a": "1"}, partition_key="k1", event_time=123, sequence_id=9)
    assert message.keys == ("k1",) and message.properties == {"a": "1"}
    view = decode_properties(message.properties, headers=message.headers)  # type: ignore[arg-type]
    assert view["JMSXGroupID"] == "k1" and view["JMSTimestamp"] == 123
    assert view["JMSXGroupSeq"] == "9"  # the sequence id, as text
    with_property = pulsar_message({"JMSXGroupSeq": "4"}, sequence_id=9)
    seq = decode_properties(with_property.properties, headers=with_property.headers)  # type: ignore[arg-type]
    assert seq["JMSXGroupSeq"] == 4  # a property wins over the sequence id


def test_names_limit_what_is_decoded() -> None:
    props = {"good": "1", "good_jsmtype": "int", "bad": "x", "bad_jsmtype": "int"}
    assert decode_properties(props, names=["good"]) == {"good": 1}
    with pytest.raises(JsmTypeError):
        decode_properties(props)
    # Non-string values are already decoded: kept as they are.
    assert decode_properties({"n": 5}, names=["n"]) == {"n": 5}  # type: ignore[dict-item]


def test_java_typed_decoding_feeds_the_activemq_dialect() -> None:
    import msgfilter
    from msgfilter import jtypes
    from msgfilter.jsmtype import decode_properties

    props = {"s": "1", "s_jsmtype": "short", "f": "1.1", "f_jsmtype": "float", "t": "x"}
    typed = decode_properties(props, java=True)
    assert type(typed["s"]) is jtypes.Short and type(typed["f"]) is jtypes.Float
    assert typed["t"] == "x"
    # ActiveMQ: a short on the right of an int literal is FALSE; a float is widened.
    assert msgfilter.compile("1 = s", "activemq").evaluate(typed) is False
    assert msgfilter.compile("s = 1", "activemq").evaluate(typed) is True
    assert msgfilter.compile("f = 1.1", "activemq").evaluate(typed) is False
    plain = decode_properties(props)
    assert type(plain["s"]) is int and msgfilter.compile("1 = s").evaluate(plain) is True
