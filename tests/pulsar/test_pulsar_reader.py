"""What msgfilter.pulsar writes, read by implementations that share none of its code.

- The Pulsar C++ client (PyPI ``pulsar-client``): ``MessageBatch.parse_from`` is the
  client's own batch reader (``deSerializeSingleMessageInBatch``); it reads the
  decompressed batch payload. It trusts every size, so it is only fed our output.
- ``protoc --decode_raw`` (Debian's protobuf-compiler, when installed): protobuf's C++
  parser, without our .proto, reads the entry metadata by field number.
- The JVM (when a JDK is installed): ``java.util.zip.CRC32C`` checks the checksum and
  ``java.util.zip.Inflater`` inflates ZLIB payloads, as the Java broker and client do.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from msgfilter.pulsar import BatchMessage, BatchMetadata, decode_batch, encode_batch
from msgfilter.pulsar.writer import encode_payload

CODECS = ("NONE", "LZ4", "ZLIB", "ZSTD", "SNAPPY")
META = BatchMetadata(
    "reader-test", 100, 1_700_000_000_123, (("origin", "test"),), partition_key="first"
)
MESSAGES = (
    BatchMessage(b"alpha", (("color", "red"), ("n", "1")), partition_key="first",
                 event_time=17, sequence_id=100),
    BatchMessage(b"", (("color", "blue"),), ordering_key=b"ord", sequence_id=101),
    BatchMessage(b"\x00\xff" * 50, (), partition_key="k3", sequence_id=102),
)


def test_the_cpp_client_reads_our_batches() -> None:
    pulsar = pytest.importorskip("pulsar")
    payload = encode_payload(MESSAGES)
    read = pulsar.MessageBatch().parse_from(payload, len(MESSAGES))
    assert [m.data() for m in read] == [m.payload for m in MESSAGES]
    assert [m.properties() for m in read] == [dict(m.properties) for m in MESSAGES]
    assert [m.partition_key() for m in read] == ["first", "", "k3"]
    assert [m.event_timestamp() for m in read] == [17, 0, 0]
    assert read[1].ordering_key() == "ord"
    # The batch index is the position the client gives each message.
    assert [m.message_id().batch_index() for m in read] == [0, 1, 2]


def test_the_cpp_client_reads_a_compacted_out_slot_as_pulsar_writes_it() -> None:
    pulsar = pytest.importorskip("pulsar")
    slots = (MESSAGES[0], BatchMessage(compacted_out=True), MESSAGES[2])
    read = pulsar.MessageBatch().parse_from(encode_payload(slots), 3)
    assert [m.data() for m in read] == [MESSAGES[0].payload, b"", MESSAGES[2].payload]


def _metadata_bytes(entry: bytes) -> bytes:
    assert entry[:2] == b"\x0e\x01"
    size = struct.unpack(">I", entry[6:10])[0]
    return entry[10 : 10 + size]


@pytest.mark.skipif(shutil.which("protoc") is None, reason="protoc is not installed")
@pytest.mark.parametrize("codec", CODECS)
def test_protoc_reads_our_metadata_by_field_number(codec: str) -> None:
    entry = encode_batch(META, MESSAGES, codec)
    raw = subprocess.run(
        ["protoc", "--decode_raw"], input=_metadata_bytes(entry), capture_output=True,
        check=True,
    ).stdout.decode()
    lines = [line.strip() for line in raw.splitlines()]
    expected = ['1: "reader-test"', "2: 100", "3: 1700000000123", '1: "origin"', '2: "test"',
                '6: "first"', "11: 3"]
    if codec != "NONE":
        size = len(encode_payload(MESSAGES))
        expected += [f"8: {CODECS.index(codec)}", f"9: {size}"]
    assert set(expected) <= set(lines), raw


JAVA = r"""
import java.io.*;
import java.nio.*;
import java.nio.file.*;
import java.util.zip.*;
public class ReadEntry {
  // args: entry file, uncompressed payload output file. Prints "crc ok" or "crc bad".
  public static void main(String[] args) throws Exception {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Paths.get(args[0])));
    if (b.getShort(0) != 0x0e01) throw new IllegalStateException("no magic");
    int stored = b.getInt(2);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 6, b.limit() - 6);
    System.out.println(((int) crc.getValue()) == stored ? "crc ok" : "crc bad");
    int metaSize = b.getInt(6);
    int start = 10 + metaSize;
    byte[] body = new byte[b.limit() - start];
    System.arraycopy(b.array(), start, body, 0, body.length);
    Inflater inflater = new Inflater();
    inflater.setInput(body);
    byte[] out = new byte[1 << 16];
    int n = inflater.inflate(out);
    try (FileOutputStream f = new FileOutputStream(args[1])) { f.write(out, 0, n); }
  }
}
"""


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("java") is None, reason="needs a JDK")
def test_java_checks_the_checksum_and_inflates_zlib(tmp_path: Path) -> None:
    source = tmp_path / "ReadEntry.java"
    source.write_text(JAVA)
    entry = tmp_path / "entry.bin"
    entry.write_bytes(encode_batch(META, MESSAGES, "ZLIB"))
    out = tmp_path / "payload.bin"
    result = subprocess.run(
        ["java", str(source), str(entry), str(out)], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "crc ok"
    assert out.read_bytes() == encode_payload(MESSAGES)
    damaged = bytearray(entry.read_bytes())
    damaged[-3] ^= 0x40
    entry.write_bytes(bytes(damaged))
    result = subprocess.run(
        ["java", str(source), str(entry), str(out)], capture_output=True, text=True
    )
    assert result.stdout.startswith("crc bad")


def test_we_read_what_we_wrote_for_the_readers() -> None:
    for codec in CODECS:
        assert decode_batch(encode_batch(META, MESSAGES, codec))[1] == MESSAGES
