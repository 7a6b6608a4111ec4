"""`msgfilter route --follow`: route an archive folder that grows, file after file, with
Spark Structured Streaming, exactly once through crashes.

    msgfilter route --follow --archive landing/ --subscriptions subs.yaml --out out/route

The folder is a file source of a streaming query (Parquet or JSON Lines, the batch
job's layout rules), read in micro-batches of at most `--files-per-batch` files. Each
micro-batch is routed by the batch job's router (`routing`: native columns, or the
broadcast `SubscriptionIndex` for many subscriptions), prepared once, in `foreachBatch`,
whose writes are idempotent by batch id (`follow_log`): Spark's checkpoint says which
files make batch N and runs N again after a crash, and a re-run of N replaces what an
earlier attempt left. The report is the running total, rewritten atomically after each
batch; one line a batch says what it routed and how many files wait.

The job stops by itself after `--until-idle SECONDS` without new files, and on Ctrl-C
once the batch in hand is committed. A restart with other subscriptions is refused
unless `--new-checkpoint` starts over; a bad input file (corrupt Parquet, a JSON line
that does not parse) stops the job, naming the file, or with `--on-bad-file skip` is
skipped and named in the progress line and the report.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import follow_log
from .follow_log import BatchLog
from .report import ChartPainter, RouteReport, write_report
from .route_input import Prepared, RouteError, choose_plan, data_files, fail
from .routing import (
    CONSOLE_ROWS,
    MESSAGES_DIR,
    Routed,
    Router,
    archive_schema,
    make_router,
    session,
)

#: The checkpoint folder under --out when --checkpoint is not given.
CHECKPOINT_DIR = "_checkpoint"
#: The flag that starts over with a new checkpoint.
NEW_CHECKPOINT = "--new-checkpoint"
#: Tests only: "<point>:<batch>" kills the job's process group with SIGKILL at that point
#: of that batch (batch-start, moving, committed), the crash test's deterministic kill.
#: Unset, the job runs exactly as it would without this line.
CRASH_ENV = "MSGFILTER_FOLLOW_CRASH_AT"


class BadInput(Exception):
    """An input file Spark cannot read, with --on-bad-file stop."""


class Interrupted(Exception):
    """A batch that started after the job was told to stop: Spark does not mark it done,
    and the next run routes it."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The --follow options of `msgfilter route`."""
    group = parser.add_argument_group(
        "following a growing archive folder (--follow), exactly once through crashes"
    )
    group.add_argument(
        "--follow", action="store_true",
        help="route the --archive folder as a stream: each new file, once, until stopped",
    )
    group.add_argument(
        "--checkpoint", default=None,
        help=f"the streaming checkpoint folder (default: OUT/{CHECKPOINT_DIR})",
    )
    group.add_argument(
        NEW_CHECKPOINT, action="store_true",
        help="start over: delete the checkpoint and the routed messages, route everything",
    )
    group.add_argument(
        "--files-per-batch", type=_positive(int), default=100, metavar="N",
        help="at most N new files a micro-batch (default 100)",
    )
    group.add_argument(
        "--interval", type=_positive(float), default=1.0, metavar="SECONDS",
        help="how often to look for new files (default 1)",
    )
    group.add_argument(
        "--until-idle", type=_positive(float), default=None, metavar="SECONDS",
        help="stop after SECONDS without a new file (default: run until Ctrl-C)",
    )
    group.add_argument(
        "--on-bad-file", choices=("stop", "skip"), default="stop",
        help="a file Spark cannot read: stop the job (default), or skip it and report it",
    )


def _positive(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
        return value

    return parse


def main(args: argparse.Namespace, prepared: Prepared) -> int:
    """Follow the archive folder: 0 when stopped (idle or Ctrl-C), 2 when the job cannot
    start (nothing written), 1 when Spark fails or a bad file stops it."""
    out = Path(args.out)
    checkpoint = Path(args.checkpoint) if args.checkpoint else out / CHECKPOINT_DIR
    identity = {
        "archive": args.archive,
        "format": prepared.archive_format,
        "subscriptions": [[s.name, s.dialect, s.expression] for s in prepared.subscriptions],
    }
    try:
        plan = choose_plan(getattr(args, "plan", "auto"), len(prepared.subscriptions))
        local = "://" not in args.archive
        if local and not Path(args.archive).is_dir():
            raise RouteError(f"--follow reads a folder of files; {args.archive} is a file")
        if args.new_checkpoint:
            _start_over(checkpoint, out)
        recorded = follow_log.check_identity(checkpoint, identity, NEW_CHECKPOINT)
        if not recorded:
            # A new checkpoint: the output of an earlier run is replaced, as the batch
            # job replaces it.
            shutil.rmtree(out / MESSAGES_DIR, ignore_errors=True)
            if local and not data_files(Path(args.archive)):
                raise RouteError(
                    f"{args.archive} has no files yet: the stream takes its schema from the "
                    "first ones; start the job once a file is there"
                )
    except RouteError as error:
        return fail("route", error)
    follower = Follower(args, prepared, plan, checkpoint, identity, recorded)
    try:
        report = follower.run()
    except RouteError as error:
        return fail("route", error)
    except BadInput as error:
        print(f"msgfilter route: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # a job reports failure by its exit code
        print(f"msgfilter route: Spark failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    many = len(report.deliveries) > CONSOLE_ROWS
    print(report.table(top=20 if many else None))
    print(f"\nwritten: {out / MESSAGES_DIR}/, report.json, report.txt, report.png; "
          f"checkpoint: {checkpoint}")
    return 0


def _start_over(checkpoint: Path, out: Path) -> None:
    for folder in (checkpoint, out / MESSAGES_DIR):
        if folder.exists():
            shutil.rmtree(folder)
            print(f"msgfilter route: {NEW_CHECKPOINT}: deleted {folder}")


def crash_point(point: str, batch: int) -> None:
    """Tests only: kill the job here when CRASH_ENV names this point and batch."""
    if os.environ.get(CRASH_ENV) != f"{point}:{batch}":
        return
    # The driver JVM and Python workers are in the job's process group: all die at once,
    # as with `kill -9` of a job's process group.
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


class Follower:
    """One run of the streaming job: the query, its batches and its stop."""

    def __init__(
        self, args: argparse.Namespace, prepared: Prepared, plan: tuple[str, str],
        checkpoint: Path, identity: dict[str, Any], recorded: dict[str, Any],
    ) -> None:
        self.args, self.prepared = args, prepared
        self.plan, self.plan_reason = plan
        self.out, self.checkpoint = Path(args.out), checkpoint
        self.identity, self.recorded = identity, recorded
        self.log = BatchLog(checkpoint)
        self.lock = threading.Lock()
        self.stopping = self.in_batch = False
        self.interrupted = 0
        self.failure: BaseException | None = None
        self.last_activity = self.quiet_since = time.monotonic()
        self.started = time.perf_counter()
        self.totals = self.log.latest()
        self.spark: Any = None
        self.schema: Any = None
        self.router: Router | None = None
        self.painter = ChartPainter(self.out)

    # -- the run --------------------------------------------------------------------------

    def run(self) -> RouteReport:
        """Start the query and wait for its stop; the final report."""
        from pyspark.sql import types as T

        print(f"msgfilter route --follow: plan {self.plan} ({self.plan_reason})")
        spark, ours = session(self.args.master)
        self.spark = spark
        try:
            if self.recorded:
                self.schema = T.StructType.fromJson(self.recorded["schema"])
                print(f"msgfilter route --follow: restarting from {self.checkpoint} "
                      f"after batch {self.totals.batch} ({self.totals.batches:,} batches, "
                      f"{self.totals.files:,} files routed)")
            else:
                fmt = self.prepared.archive_format
                self.schema = archive_schema(spark, self.args.archive, fmt)
                follow_log.write_identity(
                    self.checkpoint, {**self.identity, "schema": self.schema.jsonValue()}
                )
            self.router = make_router(
                self.plan, spark, self.schema, self.prepared.subscriptions,
                self.prepared.filters,
            )
            # A run that died between its commit and its report left the report behind.
            self.publish()
            query = (
                self.reader(spark.readStream)
                .option("maxFilesPerTrigger", self.args.files_per_batch)
                # Spark forgets, and then ignores, files older than maxFileAge before the
                # newest it has seen (7 days by default): a late file would be lost.
                .option("maxFileAge", "36500d")
                .load(self.args.archive)
                .writeStream.foreachBatch(self.batch)
                .option("checkpointLocation", str(self.checkpoint / follow_log.SPARK_DIR))
                .trigger(processingTime=f"{self.args.interval} seconds")
                .start()
            )
            self.wait(query)
            report = self.publish()
            self.painter.finish()
            return report
        finally:
            if self.router is not None:
                self.router.close()
            if ours:
                spark.stop()

    def reader(self, source: Any) -> Any:
        """`source` (spark.read or spark.readStream) set to read the archive's files: a
        JSON line that does not parse fails the read rather than become a row of nulls."""
        source = source.schema(self.schema).format(self.prepared.archive_format)
        if self.prepared.archive_format == "json":
            source = source.option("mode", "FAILFAST")
        return source

    def wait(self, query: Any) -> None:
        """Until the query fails, goes idle for --until-idle seconds, or Ctrl-C; then stop
        it between batches."""
        main_thread = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, self.interrupt) if main_thread else None
        try:
            while True:
                try:
                    if query.awaitTermination(0.25):
                        break
                except Exception:
                    if isinstance(self.failure, Interrupted):
                        break
                    if self.failure is not None:
                        raise self.failure from None
                    raise
                if self.interrupted or self.idle(query):
                    self.stop(query)
                    break
        finally:
            if main_thread:
                signal.signal(signal.SIGINT, previous)

    def idle(self, query: Any) -> bool:
        """True once the query has looked for new files and found none, with no batch in
        hand, for --until-idle seconds on end."""
        limit = self.args.until_idle
        if limit is None:
            return False
        status = query.status
        now = time.monotonic()
        busy = (
            self.in_batch or status["isDataAvailable"] or status["isTriggerActive"]
            # Before its first look at the folder the query is only starting.
            or str(status["message"]).startswith("Initializing")
        )
        if busy:
            self.quiet_since = now
        return bool(now - max(self.quiet_since, self.last_activity) >= limit)

    def interrupt(self, signum: int, frame: Any) -> None:
        """Ctrl-C: finish the batch in hand, then stop; a second one stops at once."""
        self.interrupted += 1
        if self.interrupted > 1:
            raise KeyboardInterrupt
        # At once, not when the main loop next looks: a batch Spark starts from now on
        # is refused (no lock here: the main thread may hold it; one assignment is atomic).
        self.stopping = True
        print("msgfilter route --follow: stopping after the batch in hand "
              "(Ctrl-C again to stop at once; the next run routes that batch again)",
              file=sys.stderr)

    def stop(self, query: Any) -> None:
        """Let the batch in hand commit, refuse the next one, stop the query."""
        with self.lock:
            self.stopping = True
        while self.in_batch:
            time.sleep(0.05)
        query.stop()
        why = "Ctrl-C" if self.interrupted else f"no new file for {self.args.until_idle:g} s"
        print(f"msgfilter route --follow: stopped ({why}) after batch {self.totals.batch}")

    # -- one micro-batch -----------------------------------------------------------------

    def batch(self, df: Any, batch_id: int) -> None:
        """foreachBatch: route micro-batch `batch_id`, idempotently (see follow_log)."""
        with self.lock:
            if self.stopping:
                self.failure = Interrupted(f"batch {batch_id} started after the stop")
                raise self.failure
            self.in_batch = True
        try:
            self.route_batch(df, int(batch_id))
        except BaseException as error:
            self.failure = error
            raise
        finally:
            self.last_activity = time.monotonic()
            self.in_batch = False

    def route_batch(self, df: Any, batch_id: int) -> None:
        started = time.perf_counter()
        done = self.log.record(batch_id)
        if done is not None:
            self.totals = done
            self.publish()
            print(f"batch {batch_id}: committed before the restart; its output stands")
            return
        crash_point("batch-start", batch_id)
        assert self.router is not None
        files = follow_log.batch_files(self.checkpoint, batch_id)
        staged = self.log.stage(batch_id)
        skipped: list[tuple[str, str]] = []
        routed: Routed | None
        try:
            routed = self.router.route(df, staged)
        except Exception:
            skipped = self.bad_files(files or ())
            if not skipped:
                raise
            if self.args.on_bad_file == "stop":
                raise BadInput(
                    "bad input file" + ("s" if len(skipped) > 1 else "") + ":\n"
                    + "\n".join(f"  {path}: {why}" for path, why in skipped)
                    + "\nmove it out of the archive folder (the next run routes the rest of "
                    "its batch), or run again with --on-bad-file skip"
                ) from None
            bad = {path for path, _ in skipped}
            good = [path for path in files or () if path not in bad]
            staged = self.log.stage(batch_id)
            routed = None
            if good:
                routed = self.router.route(self.reader(self.spark.read).load(good), staged)
            for path, why in skipped:
                print(f"batch {batch_id}: skipped bad file {path}: {why}")
        previous = self.log.latest(before=batch_id)
        delivered = [] if routed is None else [
            (d.name, d.messages, d.bytes) for d in routed.deliveries
        ]
        counted = (0, 0) if routed is None else (routed.messages, routed.bytes)
        totals = previous.plus(
            batch_id, len(files or ()), counted[0], counted[1], delivered, skipped
        )
        self.log.commit(batch_id, staged, self.out / MESSAGES_DIR, totals,
                        halfway=lambda: crash_point("moving", batch_id))
        self.totals = totals
        self.publish()
        crash_point("committed", batch_id)
        deliveries = sum(count for _, count, _ in delivered)
        print(f"batch {batch_id}: {len(files or ()):,} files, {counted[0]:,} messages, "
              f"{deliveries:,} deliveries, {time.perf_counter() - started:.1f} s, "
              f"{self.lag()} behind")

    def bad_files(self, files: Sequence[str]) -> list[tuple[str, str]]:
        """The files of a failed batch that Spark cannot read, each with why."""
        bad: list[tuple[str, str]] = []
        for path in files:
            try:
                self.reader(self.spark.read).load(path).write.format("noop").mode(
                    "overwrite"
                ).save()
            except Exception as error:  # Spark's and py4j's kinds
                bad.append((path, _reason(error)))
        return bad

    def lag(self) -> str:
        """How many files of the archive folder wait (local folders only)."""
        if "://" in self.args.archive:
            return "? files"
        waiting = max(0, len(data_files(Path(self.args.archive))) - self.totals.files)
        return f"{waiting:,} file" + ("" if waiting == 1 else "s")

    # -- the report ------------------------------------------------------------------------

    def publish(self) -> RouteReport:
        """Rewrite the report with the running total (report.png a moment later)."""
        report = self.report()
        write_report(report, self.out, chart=False)
        self.painter.show(report)
        return report

    def report(self) -> RouteReport:
        """The running total as a RouteReport."""
        totals = self.totals
        deliveries = []
        for number, sub in enumerate(self.prepared.subscriptions):
            messages, size = totals.deliveries.get(sub.name, (0, 0))
            if self.router is not None:
                deliveries.append(self.router.delivery(number, messages, size))
        notes = [
            f"followed {self.args.archive}: {totals.batches:,} batches, {totals.files:,} "
            f"files, last batch {totals.batch}" if totals.batches else
            f"following {self.args.archive}: no batch yet",
            *(f"skipped bad file {path}: {why}" for path, why in totals.skipped),
        ]
        return RouteReport(
            archive=self.args.archive,
            output=str(self.out),
            published_messages=totals.messages,
            published_bytes=totals.bytes,
            deliveries=tuple(deliveries),
            seconds=round(time.perf_counter() - self.started, 2),
            master=str(self.spark.sparkContext.master) if self.spark else "",
            spark_version=str(self.spark.version) if self.spark else "",
            notes=tuple(notes),
            plan=self.plan,
            plan_reason=self.plan_reason,
        )


def _reason(error: BaseException) -> str:
    """The root cause Spark gives for a failed read, on one line."""
    text = str(error)
    causes = [line for line in text.splitlines() if line.startswith("Caused by: ")]
    line = causes[-1][len("Caused by: "):] if causes else next(
        (line.lstrip(": ") for line in text.splitlines() if "Exception" in line), text
    )
    return line.strip()[:300]

