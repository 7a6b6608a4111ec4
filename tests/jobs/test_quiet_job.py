"""The command line as users run it, in fresh interpreters: `python -m msgfilter`, the
packages a job needs checked before Spark starts, and a route job whose console shows
its own progress and nothing of Spark's but the progress bar; and a route that fails
saying why (in the test's Spark session)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from msgfilter.jobs import spark_session

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "subscriptions.yaml"

#: Runs `msgfilter.cli.main(argv)` with the named top-level modules unimportable, as if
#: not installed, then prints whether a Spark JVM was started.
_BLOCKED = textwrap.dedent("""\
    import importlib.abc, json, sys

    blocked, argv = json.loads(sys.argv[1]), json.loads(sys.argv[2])

    class NotInstalled(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.partition(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    from msgfilter.cli import main

    code = main(argv)
    spark = sys.modules.get("pyspark")
    print("exit", code, "jvm", spark is not None and spark.SparkContext._gateway is not None)
    """)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=300, check=False
    )


def _blocked(modules: list[str], argv: list[str]) -> subprocess.CompletedProcess[str]:
    import json

    return _run("-c", _BLOCKED, json.dumps(modules), json.dumps(argv))


def test_python_m_msgfilter_is_the_command() -> None:
    done = _run("-m", "msgfilter", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: msgfilter ")
    for command in ("check", "eval", "explain", "route", "demo-data", "demo-subscriptions"):
        assert command in done.stdout
    done = _run("-m", "msgfilter", "check", "-d", "rocketmq", "a  BETWEEN 1 AND 2")
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok: a BETWEEN 1 AND 2\n", "")
    done = _run("-m", "msgfilter", "check", "a = = 1")
    assert done.returncode == 2 and done.stderr.startswith("msgfilter: ")


def test_route_without_matplotlib_stops_before_spark(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    archive = tmp_path / "archive.parquet"
    archive.write_bytes(b"never read")
    out = tmp_path / "out"
    argv = ["route", "--archive", str(archive), "--subscriptions", str(SAMPLE),
            "--out", str(out)]
    done = _blocked(["matplotlib"], argv)
    assert done.stdout == "exit 2 jvm False\n", done.stderr
    assert done.stderr == (
        "msgfilter route: missing packages:\n"
        "  matplotlib: draws report.png\n"
        "install them with: pip install 'msgfilter[spark]'\n"
    )
    assert not out.exists()


def test_route_names_every_missing_package(tmp_path: Path) -> None:
    archive = tmp_path / "archive.parquet"
    archive.write_bytes(b"never read")
    subs = tmp_path / "subs.json"
    subs.write_text('[{"name": "all", "dialect": "rocketmq-tag", "expression": "*"}]')
    argv = ["route", "--archive", str(archive), "--subscriptions", str(subs),
            "--out", str(tmp_path / "out")]
    done = _blocked(["pyspark", "pandas", "matplotlib"], argv)
    assert done.stdout == "exit 2 jvm False\n", done.stderr
    assert done.stderr == (
        "msgfilter route: missing packages:\n"
        "  pyspark: runs the job\n"
        "  pandas: pyspark's mapInArrow\n"
        "  matplotlib: draws report.png\n"
        "install them with: pip install 'msgfilter[spark]'\n"
    )


def test_route_without_pyyaml_says_so_before_reading_the_subscriptions(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "archive.parquet"
    archive.write_bytes(b"never read")
    argv = ["route", "--archive", str(archive), "--subscriptions", str(SAMPLE),
            "--out", str(tmp_path / "out")]
    done = _blocked(["yaml"], argv)
    assert done.stdout == "exit 2 jvm False\n", done.stderr
    assert done.stderr == (
        "msgfilter route: missing packages:\n"
        "  yaml: reads a YAML subscriptions file (PyYAML)\n"
        "install them with: pip install 'msgfilter[spark]'\n"
    )


def test_demo_data_without_pyarrow_names_the_arrow_extra(tmp_path: Path) -> None:
    out = tmp_path / "archive.parquet"
    done = _blocked(["pyarrow"], ["demo-data", "--rows", "10", "--out", str(out)])
    assert done.stdout == "exit 2 jvm False\n", done.stderr
    assert done.stderr == (
        "msgfilter demo-data: missing packages:\n"
        "  pyarrow: builds and writes the archive\n"
        "install them with: pip install 'msgfilter[arrow]'\n"
    )
    assert not out.exists()


def _copied(data: bytes) -> bytes:
    """`data` written by a process to its stderr, as copy_stderr passes it on."""
    source_r, source_w = os.pipe()
    target_r, target_w = os.pipe()
    os.write(source_w, data)
    os.close(source_w)
    with os.fdopen(source_r, "rb") as source:
        spark_session.copy_stderr(source, target_w)
    os.close(target_w)
    with os.fdopen(target_r, "rb") as target:
        return target.read()


def test_the_jvm_incubator_note_is_dropped_and_nothing_else() -> None:
    note = b"WARNING: Using incubator modules: jdk.incubator.vector\n"
    bar = b"\r[Stage 0:>                                                          (0 + 2) / 2]"
    error = b"25/11/25 05:21:31 ERROR Executor: Exception in task 0.0\n"
    assert _copied(note + bar + error) == bar + error
    assert _copied(note) == b""
    # Anywhere but first, or any other first line, it is the JVM saying something else.
    assert _copied(error + note) == error + note
    assert _copied(b"WARNING: Using incubator") == b"WARNING: Using incubator"
    assert _copied(b"WARNING: something else\n" + note) == b"WARNING: something else\n" + note
    assert _copied(b"") == b""


#: Spark's console progress bar: one or more "[Stage n:...]" at a time, redrawn after
#: carriage returns and cleared with spaces.
_PROGRESS = re.compile(r"(\[Stage \d+:[^\]]*\])+")


@pytest.mark.spark
def test_route_prints_its_progress_and_nothing_of_sparks_but_the_bar(tmp_path: Path) -> None:
    pytest.importorskip("pyspark")
    pytest.importorskip("matplotlib")
    from msgfilter.jobs import demo

    from route_runs import run_main

    archive = tmp_path / "archive.parquet"
    assert run_main(demo, ["--rows", "2000", "--out", str(archive)]) == 0
    # The environment of a fresh shell: no Spark settings of the test run.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    done = subprocess.run(
        [sys.executable, "-m", "msgfilter", "route", "--archive", str(archive),
         "--subscriptions", str(SAMPLE), "--out", str(tmp_path / "out"),
         "--master", "local[2]"],
        capture_output=True, text=True, timeout=600, check=False, env=env,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "msgfilter route: plan native (auto: 8 subscriptions, native " \
        "columns below 50)"
    assert "  eu-gold-customers (jms): native" in lines
    assert "  paid-or-refunded (rocketmq-tag): native" in lines
    assert lines[-1] == f"written: {tmp_path / 'out' / 'messages'}/, report.json, " \
        "report.txt, report.png"
    noise = [
        piece for piece in re.split(r"[\r\n]", done.stderr)
        if piece.strip() and not _PROGRESS.fullmatch(piece.strip())
    ]
    assert noise == []


@pytest.mark.spark
def test_a_failing_route_still_says_why(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # In the test's Spark session: a JVM of its own would cost a start, and what is
    # checked here is msgfilter's message and exit status, not the JVM's console (the
    # test above checks that, and `python -m msgfilter` returning main's status).
    pytest.importorskip("matplotlib")
    from msgfilter.cli import main

    archive = tmp_path / "archive.parquet"
    archive.write_bytes(b"not a Parquet file at all")
    code = main(["route", "--archive", str(archive), "--subscriptions", str(SAMPLE),
                 "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "msgfilter route: Spark failed: " in err
    assert "archive.parquet" in err
