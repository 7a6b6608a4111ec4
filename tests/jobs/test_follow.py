"""`msgfilter route --follow`: a real local Spark streaming query over files the tests write
in steps; exactly once through SIGKILLs of the job at several points; the idle stop,
Ctrl-C, restart refusals and bad input files.

Spark starts dominate the time: the uninterrupted and final runs use the test session in
this process; only the runs that are killed start a JVM of their own (three, none of which
routes more than one batch)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("yaml")

import msgfilter  # noqa: E402
from msgfilter.jobs import demo, follow, follow_log, route, route_input  # noqa: E402

from route_runs import message_bytes, run_main  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "subscriptions.yaml"
SRC = Path(msgfilter.__file__).resolve().parents[1]
ROWS, FILES = 500, 4


@pytest.fixture(scope="module")
def table() -> Any:
    return demo.demo_table(ROWS * FILES, seed=21)


def write_part(folder: Path, table: Any, number: int) -> None:
    """File `number` of the archive, written under a hidden name and renamed into place,
    as a producer must (Spark's file source may list a file while it is written)."""
    tmp = folder / f".part-{number}.tmp"
    pq.write_table(table.slice(number * ROWS, ROWS), tmp)
    os.replace(tmp, folder / f"part-{number}.parquet")


def write_corrupt(folder: Path) -> None:
    (folder / "part-9-corrupt.parquet").write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")


def follow_args(archive: Path, out: Path, *more: str) -> list[str]:
    return ["--follow", "--archive", str(archive), "--subscriptions", str(SAMPLE),
            "--out", str(out), "--files-per-batch", "2", "--interval", "0.2",
            "--until-idle", "1.5", "--on-bad-file", "skip", *more]


def when(condition: Callable[[], bool], then: Callable[[], None], timeout: float = 240) -> Any:
    """A thread that runs `then` once `condition` holds."""

    def watch() -> None:
        deadline = time.monotonic() + timeout
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.05)
        then()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def routed(out: Path) -> dict[str, list[dict[str, Any]]]:
    """Every subscription's routed rows, by message id (duplicates kept)."""
    found = {}
    for folder in sorted((out / "messages").iterdir()):
        rows = [r for f in sorted(folder.glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
        found[folder.name] = sorted(rows, key=lambda r: r["message_id"])
    return found


def committed(out: Path, batch: int) -> bool:
    return (out / "_checkpoint" / "routed" / f"{batch}.json").exists()


@pytest.fixture(scope="module")
def reference(
    spark: Any, table: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Path, Path, str]]:
    """An uninterrupted run over files written in steps, one while it runs: its archive,
    its output and what it printed."""
    base = tmp_path_factory.mktemp("reference")
    archive, out = base / "archive", base / "out"
    archive.mkdir()
    for number in range(FILES - 1):
        write_part(archive, table, number)
    # The last file arrives while the job runs, with a corrupt one it skips.
    late = when(lambda: committed(out, 1),
                lambda: (write_part(archive, table, FILES - 1), write_corrupt(archive)))
    # The batches print from Spark's callback thread: sys.stdout is replaced for all.
    with contextlib.redirect_stdout(io.StringIO()) as captured:
        code = run_main(route, follow_args(archive, out))
    printed = captured.getvalue()
    late.join()
    assert code == 0, printed
    yield archive, out, printed


def test_following_routes_every_file_once_as_the_filters_say(
    reference: tuple[Path, Path, str], table: Any
) -> None:
    _archive, out, printed = reference
    rows = table.to_pylist()
    report = json.loads((out / "report.json").read_text())
    assert report["published_messages"] == len(rows)
    assert report["published_bytes"] == sum(message_bytes(r) for r in rows)
    found = routed(out)
    for sub, delivery in zip(route_input.load_subscriptions(SAMPLE),
                             report["deliveries"], strict=True):
        f = msgfilter.compile(sub.expression, sub.dialect)
        hits = [r for r in rows if f.matches(_message(r))]
        assert delivery["messages"] == len(hits), sub.name
        ids = [r["message_id"] for r in found.get(f"subscription={sub.name}", [])]
        assert ids == sorted(r["message_id"] for r in hits), sub.name
    # One progress line a batch, the idle stop, the corrupt file named and skipped.
    lines = [line for line in printed.splitlines() if line.startswith("batch ")]
    counted = [line for line in lines if "skipped" not in line]
    # Spark's trigger decides which batch the late file and the corrupt one land in:
    # batches are numbered from 0 without a gap, and together they carry every message.
    numbers = [int(line.split(":")[0].split()[1]) for line in counted]
    assert numbers == list(range(len(numbers))) and len(numbers) >= 3, printed
    messages = [int(line.split(", ")[1].split()[0].replace(",", "")) for line in counted]
    assert sum(messages) == len(rows), printed
    assert "2 files, 1,000 messages" in lines[0] and "deliveries" in lines[0]
    assert "file" in lines[0].rsplit(",", 1)[1] and "behind" in lines[0]
    assert "stopped (no new file for 1.5 s)" in printed
    corrupt = [n for n in report["notes"] if "part-9-corrupt.parquet" in n]
    assert corrupt and corrupt[0].startswith("skipped bad file"), report["notes"]
    assert not list((out / "_checkpoint" / "staging").glob("*/*"))


def _message(row: dict[str, Any]) -> msgfilter.Message:
    properties: dict[str, object] = dict(row["properties"] or ())
    properties.update((k, v) for k, v in row.items() if k not in ("properties", "tags"))
    return msgfilter.Message(properties, tags=row["tags"])


def _killed_run(archive: Path, out: Path, point: str) -> None:
    """The job in a process of its own that kills itself (and its JVM) at `point`."""
    env = {**os.environ, follow.CRASH_ENV: point,
           "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
           # The driver JVM of a short run: its start is most of the cost.
           "JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
    done = subprocess.run(
        [sys.executable, "-m", "msgfilter", "route", *follow_args(archive, out),
         "--master", "local[2]"],
        env=env, capture_output=True, text=True, timeout=300, start_new_session=True,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, (point, done.stdout, done.stderr[-3000:])


def test_a_job_killed_anywhere_and_restarted_writes_what_one_run_writes(
    reference: tuple[Path, Path, str], table: Any, tmp_path: Path
) -> None:
    archive, out = tmp_path / "archive", tmp_path / "out"
    archive.mkdir()
    write_part(archive, table, 0)
    checkpoint = out / "_checkpoint"
    first = "batch-00000000-"

    # Killed halfway through moving batch 0's files into messages/: Spark logged its
    # file, half of it is written, nothing is committed. (A kill as the batch starts,
    # before anything is written, is the same restart with less to replace; each kill
    # point costs a JVM start, so the suite keeps the two that leave files behind.)
    _killed_run(archive, out, "moving:0")
    assert (checkpoint / "spark" / "offsets" / "0").exists() and not committed(out, 0)
    assert list((out / "messages").glob(f"*/{first}*"))

    # Killed after batch 0's commit and report, before Spark marks it done; a new file
    # waits meanwhile.
    write_part(archive, table, 1)
    _killed_run(archive, out, "committed:0")
    assert committed(out, 0) and not (checkpoint / "spark" / "commits" / "0").exists()
    assert json.loads((out / "report.json").read_text())["published_messages"] == ROWS

    # The same command, uninterrupted, once the rest of the files are there.
    for number in range(2, FILES):
        write_part(archive, table, number)
    write_corrupt(archive)
    assert run_main(route, follow_args(archive, out)) == 0
    assert routed(out) == routed(reference[1])
    mine, theirs = (json.loads((o / "report.json").read_text()) for o in (out, reference[1]))
    for key in ("published_messages", "published_bytes", "deliveries", "totals"):
        assert mine[key] == theirs[key], key


def test_a_restart_with_other_subscriptions_is_refused(
    reference: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive, out, _ = reference
    changed = tmp_path / "subs.yaml"
    entries = route_input.load_subscriptions(SAMPLE)
    lines = [f"- {{name: {s.name}, dialect: {s.dialect}, expression: {json.dumps(s.expression)}}}"
             for s in entries[1:]]
    changed.write_text("\n".join([*lines, "- {name: extra, expression: 'a = 1'}"]) + "\n")
    args = follow_args(archive, out)
    args[args.index("--subscriptions") + 1] = str(changed)
    before = (out / "report.json").read_text()
    assert run_main(route, args) == 2
    err = capsys.readouterr().err
    assert "subscriptions added: 'extra'" in err
    assert f"subscriptions removed: {entries[0].name!r}" in err
    assert "--new-checkpoint" in err
    assert (out / "report.json").read_text() == before  # nothing touched
    other = follow_args(archive.parent / "elsewhere", out)
    (archive.parent / "elsewhere").mkdir()
    assert run_main(route, other) == 2
    assert "archive was" in capsys.readouterr().err


def test_the_commit_of_a_batch_replaces_what_an_earlier_attempt_left(tmp_path: Path) -> None:
    log = follow_log.BatchLog(tmp_path / "ck")
    messages = tmp_path / "messages"

    def stage(batch: int, names: list[str]) -> Path:
        staged = log.stage(batch)
        for name in names:
            (staged / f"subscription={name}").mkdir()
            (staged / f"subscription={name}" / "part-0.parquet").write_text(name)
        (staged / "_SUCCESS").touch()
        return staged

    class Died(Exception):
        pass

    def die() -> None:
        raise Died

    totals = follow_log.Totals().plus(0, 1, 10, 100, [("a", 4, 40), ("b", 6, 60)])
    with pytest.raises(Died):
        log.commit(0, stage(0, ["a", "b", "c"]), messages, totals, halfway=die)
    assert log.record(0) is None and len(list(messages.glob("*/*"))) == 1
    # The re-run routed other files (another plan, say): only its own stay.
    assert log.commit(0, stage(0, ["b", "d"]), messages, totals) == 2
    assert sorted(p.parent.name for p in messages.glob("*/batch-00000000-*")) == [
        "subscription=b", "subscription=d"]
    assert log.record(0) == totals and log.latest() == totals
    later = totals.plus(1, 2, 5, 50, [("a", 1, 10)], [("x.parquet", "corrupt")])
    log.commit(1, stage(1, ["a"]), messages, later)
    assert log.latest().deliveries == {"a": (5, 50), "b": (6, 60)}
    assert log.latest(before=1) == totals and later.skipped == (("x.parquet", "corrupt"),)
    assert follow_log.Totals.from_json(json.loads(json.dumps(later.to_json()))) == later


def test_a_changed_checkpoint_names_what_changed_and_the_flag(tmp_path: Path) -> None:
    ck = tmp_path / "ck"
    identity = {"archive": "a", "format": "json", "subscriptions": [["s", "jms", "x = 1"]]}
    assert follow_log.check_identity(ck, identity, "--new-checkpoint") == {}
    follow_log.write_identity(ck, identity)
    assert follow_log.check_identity(ck, identity, "--new-checkpoint") == identity
    changed = {**identity, "subscriptions": [["s", "jms", "x = 2"]]}
    changed_s = r"subscriptions changed: 's'.*--new-checkpoint"
    with pytest.raises(route_input.RouteError, match=changed_s):
        follow_log.check_identity(ck, changed, "--new-checkpoint")
    stranger = tmp_path / "stranger"
    (stranger / "offsets").mkdir(parents=True)
    with pytest.raises(route_input.RouteError, match="not a msgfilter checkpoint"):
        follow_log.check_identity(stranger, identity, "--new-checkpoint")


def test_json_lines_ctrl_c_a_bad_line_stops_or_is_skipped(
    spark: Any, table: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    archive, out = tmp_path / "archive", tmp_path / "out"
    archive.mkdir()
    rows = table.slice(0, 300).to_pylist()
    for number in range(3):
        demo.write(table.slice(number * 100, 100), archive / f"part-{number}.jsonl")
    bad = archive / "part-2.jsonl"
    lines = bad.read_text().splitlines()
    lines[50] = '{"message_id": "broken", '
    bad.write_text("\n".join(lines) + "\n")
    args = follow_args(archive, out, "--plan", "index", "--format", "json")
    stop_mode = [a if a != "skip" else "stop" for a in args]
    # Ctrl-C once batch 0 is committed: the batch in hand finishes, no other starts.
    when(lambda: committed(out, 0), lambda: os.kill(os.getpid(), signal.SIGINT))
    assert run_main(route, [a for a in stop_mode if a not in ("--until-idle", "1.5")]) == 0
    printed = capsys.readouterr()
    assert "stopped (Ctrl-C)" in printed.out and "stopping after the batch" in printed.err
    done = json.loads((out / "report.json").read_text())["notes"][0]
    # A bad line stops the job, naming its file.
    assert run_main(route, stop_mode) == 1
    err = capsys.readouterr().err
    assert "bad input file" in err and "part-2.jsonl" in err and "--on-bad-file skip" in err
    assert not committed(out, 2)
    # Skipped on request: named in the report, the other files routed once.
    assert run_main(route, args) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["published_messages"] == 200, done
    assert any("part-2.jsonl" in n and n.startswith("skipped") for n in report["notes"])
    audit = next(d for d in report["deliveries"] if d["name"] == "audit-everything")
    assert audit["messages"] == 200 and audit["runs"] == "index"
    ids = [r["message_id"] for r in routed(out)["subscription=audit-everything"]]
    assert ids == sorted(r["message_id"] for r in rows[:200])



def test_the_following_section_of_the_docs_is_what_the_job_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "route.md").read_text()
    section = page[page.index("## Following a stream"):]
    parser = argparse.ArgumentParser()
    follow.add_arguments(parser)
    options = {o for a in parser._actions for o in a.option_strings} - {"-h", "--help"}
    assert options == set(re.findall(r"^\| `(--[a-z-]+)", section, re.M))
    # The refusal quoted is the one the job prints for that change.
    quoted = next(line for line in section.splitlines() if "was made for other input" in line)
    monkeypatch.chdir(tmp_path)
    checkpoint = Path("out/live/_checkpoint")
    entries = [[s.name, s.dialect, s.expression]
               for s in route_input.load_subscriptions(SAMPLE)]
    identity = {"archive": "landing/", "format": "parquet", "subscriptions": entries}
    follow_log.write_identity(checkpoint, identity)
    changed = {**identity, "subscriptions": [*entries[1:], ["extra", "jms", "a = 1"]]}
    with pytest.raises(route_input.RouteError) as refused:
        follow_log.check_identity(checkpoint, changed, follow.NEW_CHECKPOINT)
    assert quoted == f"msgfilter route: {refused.value}"
