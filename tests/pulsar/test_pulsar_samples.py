"""samples/pulsar-entries/: the committed entries hold what manifest.json says, are what
the codec makes, and read the same through readers that share no code with msgfilter."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from msgfilter.pulsar import decode_batch, decode_metadata, decode_payload

from pulsar_samples import NAMES, ROOT, build, describe

MANIFEST = {d["file"]: d for d in json.loads((ROOT / "manifest.json").read_text("utf-8"))}


def test_every_sample_is_listed() -> None:
    assert sorted(MANIFEST) == sorted(NAMES)
    assert {p.name for p in ROOT.glob("*.bin")} == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_samples_hold_what_the_manifest_says(name: str) -> None:
    data = (ROOT / name).read_bytes()
    assert describe(name) == MANIFEST[name]
    meta, messages = decode_batch(data)
    assert meta.compression == MANIFEST[name]["compression"]
    assert [m.payload.decode() for m in messages] == [
        m["payload"] for m in MANIFEST[name]["messages"]  # type: ignore[index]
    ]


@pytest.mark.parametrize("name", NAMES)
def test_samples_are_what_the_codec_makes(name: str) -> None:
    data = (ROOT / name).read_bytes()
    if decode_metadata(data).compression in ("NONE", "ZLIB"):
        assert build(name) == data  # zlib's output is stable across versions
    else:
        # Another compressor version may compress differently: compare what is held.
        assert decode_batch(build(name)) == decode_batch(data)


def _payload_of(data: bytes) -> tuple[bytes, int]:
    return decode_payload(data), len(decode_batch(data)[1])


@pytest.mark.parametrize("name", [n for n in NAMES if n != "single-none.bin"])
def test_the_cpp_client_reads_the_samples(name: str) -> None:
    pulsar = pytest.importorskip("pulsar")
    payload, count = _payload_of((ROOT / name).read_bytes())
    read = pulsar.MessageBatch().parse_from(payload, count)
    expected = MANIFEST[name]["messages"]
    assert [m.data().decode() for m in read] == [m["payload"] for m in expected]  # type: ignore[index]
    assert [m.properties() for m in read] == [m["properties"] for m in expected]  # type: ignore[index]
    assert [m.partition_key() for m in read] == [m["partition_key"] or "" for m in expected]  # type: ignore[index]
    assert [m.event_timestamp() for m in read] == [m["event_time"] or 0 for m in expected]  # type: ignore[index]


@pytest.mark.skipif(shutil.which("protoc") is None, reason="protoc is not installed")
@pytest.mark.parametrize("name", NAMES)
def test_protoc_reads_the_sample_metadata(name: str) -> None:
    data = (ROOT / name).read_bytes()
    size = struct.unpack(">I", data[6:10])[0]
    raw = subprocess.run(
        ["protoc", "--decode_raw"], input=data[10 : 10 + size], capture_output=True, check=True
    ).stdout.decode()
    lines = {line.strip() for line in raw.splitlines()}
    described = MANIFEST[name]
    assert f'1: "{described["producer_name"]}"' in lines
    assert f"2: {described['sequence_id']}" in lines and f"3: {described['publish_time']}" in lines
    count = len(described["messages"])  # type: ignore[arg-type]
    assert (f"11: {count}" in lines) is bool(described["batched"])


JAVA = r"""
import java.nio.*;
import java.nio.file.*;
import java.util.zip.CRC32C;
public class Checksums {
  public static void main(String[] args) throws Exception {
    for (String path : args) {
      ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Paths.get(path)));
      CRC32C crc = new CRC32C();
      crc.update(b.array(), 6, b.limit() - 6);
      boolean ok = b.getShort(0) == 0x0e01 && (int) crc.getValue() == b.getInt(2);
      System.out.println(Paths.get(path).getFileName() + " " + (ok ? "ok" : "bad"));
    }
  }
}
"""


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("java") is None, reason="needs a JDK")
def test_java_checks_the_sample_checksums(tmp_path: Path) -> None:
    source = tmp_path / "Checksums.java"
    source.write_text(JAVA)
    out = subprocess.run(
        ["java", str(source), *(str(ROOT / n) for n in NAMES)],
        capture_output=True, text=True, check=True,
    ).stdout.split("\n")
    assert [line for line in out if line] == [f"{n} ok" for n in NAMES]
