"""The dialects, typed properties, tags and topics read Java values through msgfilter.java:
one implementation, so its fixes show everywhere."""

from __future__ import annotations

import pytest

import msgfilter
from msgfilter import java, jsmtype, jtypes
from msgfilter.semantics import activemq as amq
from msgfilter.semantics import rocketmq as rq
from msgfilter.semantics import values
from msgfilter.tags import java_trim, tag_code
from msgfilter.topics.names import partition_index

NINE_ABOVE_BMP = "\U0001d7d7"  # MATHEMATICAL DOUBLE-STRUCK DIGIT NINE: two UTF-16 units


def test_the_old_names_are_the_java_module() -> None:
    assert values.wrap is java.wrap
    assert values.to_double is java.to_double
    assert values.utf16_key is java.utf16_key
    assert values.java_double_compare is java.double_compare
    assert values.double_bits is java.double_bits
    assert values.ieee_div is java.ieee_div
    assert values.java_double_text is java.shortest_double_text
    assert jtypes.to_float32 is java.to_float32
    assert java_trim is java.java_trim
    assert not hasattr(rq, "COMPARE")


def test_rocketmq_does_not_deliver_a_digit_above_the_bmp() -> None:
    # Integer.valueOf reads UTF-16 units: the two surrogates are no digits, the broker
    # throws and the message is not delivered.
    f = msgfilter.compile("a = 9", "rocketmq")
    assert f.matches({"a": NINE_ABOVE_BMP}) is False
    assert f.evaluate({"a": NINE_ABOVE_BMP}) is None
    assert f.matches({"a": "\u0669"}) is True  # ARABIC-INDIC DIGIT NINE is a Java digit
    with pytest.raises(rq.Undelivered):
        rq.parse_rocketmq_integer(NINE_ABOVE_BMP, 2**31 - 1)
    assert rq.parse_rocketmq_integer("-2147483648", 2**31 - 1) == -(2**31)
    with pytest.raises(rq.Undelivered):
        rq.parse_rocketmq_integer("2147483648", 2**31 - 1)
    assert rq.parse_rocketmq_integer("2147483648", 2**63 - 1) == 2**31


def test_rocketmq_reads_an_overflowing_hex_double_as_infinity() -> None:
    f = msgfilter.compile("a > 1.0", "rocketmq")
    assert f.evaluate({"a": "0x1p1024"}) is True
    assert rq.parse_double("-0x1p1024") == float("-inf")


def test_jms_concatenation_writes_shortest_digits_activemq_java_17s() -> None:
    # J31: the jms dialect writes Java 19+'s shortest digits, ActiveMQ (Java 17) its own.
    message = {"d": 1e23}
    assert msgfilter.compile("'a' + d = 'a1.0E23'").evaluate(message) is True
    assert msgfilter.compile("'a' + d = 'a9.999999999999999E22'", "activemq").evaluate(
        message) is True


def test_activemq_converts_strings_with_javas_rules() -> None:
    f = msgfilter.compile("convert_string_expressions:a = 9", "activemq")
    assert f.evaluate({"a": NINE_ABOVE_BMP}) is False
    assert f.evaluate({"a": "\u0669"}) is True
    assert amq.java_str(jtypes.Float(1.1754943508222875e-38)) == "1.17549435E-38"
    assert amq.java_str(jtypes.Double(1e23)) == "9.999999999999999E22"


def test_jsmtype_decodes_and_encodes_with_javas_rules() -> None:
    with pytest.raises(jsmtype.JsmTypeError):
        jsmtype.decode_value(NINE_ABOVE_BMP, "int")
    assert jsmtype.decode_value("\u0663", "short") == 3
    # Float.parseFloat rounds the decimal once: just above a float32 halfway point.
    # (The double nearest to it is the halfway point, which would round to even, 1.0.)
    assert jsmtype.decode_value("1.000000059604644775390626", "float") == 1.0000001192092896
    assert jsmtype.decode_value("1.000000059604644775390625", "float") == 1.0
    assert jsmtype.encode_value(1e23) == ("9.999999999999999E22", "double")
    assert jsmtype.encode_value(1.1754943508222875e-38, "float") == ("1.17549435E-38", "float")


def test_tags_and_topics_use_javas_string_and_integer_rules() -> None:
    assert tag_code(NINE_ABOVE_BMP) == java.string_hash(NINE_ABOVE_BMP) == 31 * 0xD835 + 0xDFD7
    assert partition_index("t-partition-" + NINE_ABOVE_BMP) is None
    assert partition_index("t-partition-\u0663") == 3
    assert partition_index("t-partition-03") is None
    assert partition_index("t-partition-+3") is None
    assert partition_index("t-partition-2147483648") is None


def test_the_arrow_backend_reads_rare_numbers_through_the_same_rules() -> None:
    pa = pytest.importorskip("pyarrow")
    from msgfilter import arrow

    table = pa.table({"a": [NINE_ABOVE_BMP, "\u0669", "9", "x"]})
    assert arrow.matches("a = 9", table, dialect="rocketmq").to_pylist() == [
        False, True, True, False,
    ]
    assert arrow.evaluate("a = 9", table, dialect="rocketmq").to_pylist() == [
        None, True, True, None,
    ]
