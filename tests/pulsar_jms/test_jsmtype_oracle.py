"""msgfilter.jsmtype against Java itself: Integer/Long/Float/Double.parseXxx on this JVM.

Needs `javac` and `java` (skipped otherwise). A tiny Java program parses each case as the
pulsar-jms broker does; the decoded Python value must be the same bits.
"""

from __future__ import annotations

import math
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from msgfilter.jsmtype import JsmTypeError, decode_value

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(
        shutil.which("javac") is None or shutil.which("java") is None, reason="needs a JDK"
    ),
]

JAVA = r"""
import java.io.*;
public class Parse {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      int tab = line.indexOf('\t');
      String type = line.substring(0, tab);
      String v = line.substring(tab + 1).replace("\\n", "\n").replace("\\t", "\t");
      String r;
      try {
        switch (type) {
          case "float":
            r = Integer.toHexString(Float.floatToRawIntBits(Float.parseFloat(v))); break;
          case "double":
            r = Long.toHexString(Double.doubleToRawLongBits(Double.parseDouble(v))); break;
          case "int": r = Integer.toString(Integer.parseInt(v)); break;
          case "long": r = Long.toString(Long.parseLong(v)); break;
          case "short": r = Short.toString(Short.parseShort(v)); break;
          case "byte": r = Byte.toString(Byte.parseByte(v)); break;
          default: r = Boolean.toString(Boolean.parseBoolean(v));
        }
      } catch (NumberFormatException e) { r = "ERR"; }
      out.println(r);
    }
  }
}
"""

INTEGERS = [
    "0", "-0", "+5", "-", "+", "", " 1", "1 ", "1_000", "0x10", "\u0663", "\uff11\uff12",
    "\U0001d7ce", "2147483647", "2147483648", "-2147483648", "-2147483649", "127", "128",
    "-129", "32767", "32768", "9223372036854775807", "9223372036854775808", "0" * 40 + "12",
    "1e3", "1.0",
]
REALS = [
    "1.1", "1e10", "3.4028235e38", "3.4028236e38", "3.40282357e38", "1e39", "1e-45", "1e-46",
    "7e-46", "0x1.8p1", "0x1p-149", "0x.8p1", " 1e5f ", "\t2.5d\n", "inf", "nan", "NaN", "-NaN",
    "+Infinity", "Infinity ", "infinity", "1.", "1.e5", ".5", ".", "e5", "1e", "1e+", "0x1p",
    "0x1p1024", "1_0", "\uff11", "1D", "1F", "2e23", "4.9e-324", "2.4e-324", "1e-400", "1e400",
    "16777217", "33554433", "1.0000001788139343261718751", "1.000000178813934326171875",
    "-0.0", "00001.5", "1.5E+3",
]


def _cases() -> list[tuple[str, str]]:
    rnd = random.Random(4)
    reals = list(REALS)
    for _ in range(150):
        bits = rnd.getrandbits(32)
        x = struct.unpack("<f", struct.pack("<I", bits))[0]
        if math.isnan(x):
            continue
        reals += [repr(x), f"{x:.9e}", f"{x:.20g}", repr(rnd.uniform(-1e6, 1e6))]
    cases = [(t, v) for t in ("int", "long", "short", "byte") for v in INTEGERS]
    cases += [(t, v) for t in ("float", "double") for v in reals]
    cases += [("boolean", v) for v in ("true", "TRUE", "True", "yes", "", " true")]
    return cases


def _python(type_name: str, text: str) -> str:
    try:
        value = decode_value(text, type_name)
    except JsmTypeError:
        return "ERR"
    if type_name == "float":
        assert isinstance(value, float)
        return f"{struct.unpack('<I', struct.pack('<f', value))[0]:x}"
    if type_name == "double":
        assert isinstance(value, float)
        return f"{struct.unpack('<Q', struct.pack('<d', value))[0]:x}"
    return str(value).lower() if type_name == "boolean" else str(value)


def test_decoding_matches_java(tmp_path: Path) -> None:
    (tmp_path / "Parse.java").write_text(JAVA, encoding="utf-8")
    subprocess.run(["javac", "Parse.java"], cwd=tmp_path, check=True, capture_output=True)
    cases = _cases()
    lines = "".join(
        f"{t}\t{v.replace(chr(10), chr(92) + 'n').replace(chr(9), chr(92) + 't')}\n"
        for t, v in cases
    )
    run = subprocess.run(
        ["java", "-cp", str(tmp_path), "Parse"],
        input=lines.encode("utf-8"),
        capture_output=True,
        check=True,
    )
    answers = run.stdout.decode("utf-8").splitlines()
    assert len(answers) == len(cases)
    wrong = []
    for (type_name, text), java in zip(cases, answers, strict=True):
        mine = _python(type_name, text)
        real = type_name in ("float", "double") and mine != "ERR" and java != "ERR"
        # Java prints NaN bits canonically; any NaN is the same NaN.
        if real and math.isnan(decode_value(text, type_name)):  # type: ignore[arg-type]
            continue
        if mine != java:
            wrong.append((type_name, text, java, mine))
    assert not wrong
