"""The Spark session a job starts: its console shows Spark's progress bar and errors,
and nothing else of Spark's.

Spark prints its startup lines before any `SparkContext.setLogLevel` can run: the JVM's
note on the incubator module Spark's launcher always adds, log4j's "Using Spark's
default log4j profile" and "Setting default log level" (printed when no log4j
configuration is given), and WARN lines such as NativeCodeLoader's (no native Hadoop
library: harmless, and nothing to fix on a laptop). So the driver JVM starts with the
log4j2 configuration shipped next to this module (errors only, to stderr, Spark's own
line format), which Spark then neither replaces nor announces. The JVM's incubator note
is not a log line and no JVM option turns it off; the driver's stderr is read through a
pipe that drops that one line, at its start, and copies everything else as it comes.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import IO, Any

#: The log4j2 configuration of the driver JVM (package data of msgfilter.jobs).
LOG_CONFIG = "spark-log4j2.properties"
#: What the JVM prints first when it loads an incubator module (Spark's launcher adds
#: jdk.incubator.vector to every driver JVM, in JavaModuleOptions).
INCUBATOR_NOTE = b"WARNING: Using incubator modules:"
_CHUNK = 65536


def java_missing() -> str | None:
    """Why Spark cannot start a JVM here, or None when it finds `java` as spark-class
    does ($JAVA_HOME/bin/java, else java on the PATH)."""
    home = os.environ.get("JAVA_HOME")
    if home:
        if (Path(home) / "bin" / "java").exists():
            return None
        return f"JAVA_HOME is {home}, which has no bin/java: Spark needs Java 17 or later"
    if shutil.which("java"):
        return None
    return "Spark needs Java 17 or later: no java on the PATH and JAVA_HOME is not set"


def session(
    master: str | None, app_name: str, settings: Mapping[str, str]
) -> tuple[Any, bool]:
    """The active SparkSession, or a new one on `master` with `settings` (True: ours to
    stop). No master: spark-submit's, else local[*]. A driver JVM this process starts
    logs through LOG_CONFIG."""
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    # Under spark-submit the driver JVM runs already, with the master, options and log
    # configuration the user gave it: nothing of ours replaces them.
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    if master is None and not submitted:
        master = "local[*]"
    if master is not None and master.startswith("local"):
        # Workers must run this interpreter (it has msgfilter and pyarrow); locally the
        # driver binds to loopback rather than warn that the hostname resolves to it.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    conf = SparkConf().setAppName(app_name)
    if master is not None:
        conf.setMaster(master)
    for key, value in settings.items():
        conf.set(key, value)
    if not submitted:
        own = f"-Dlog4j2.configurationFile={_log_config()}"
        given = settings.get("spark.driver.extraJavaOptions")
        conf.set("spark.driver.extraJavaOptions", f"{own} {given}" if given else own)
    if SparkContext._gateway is None:
        # The driver JVM starts here, with its stderr through `_copy_stderr`; later
        # sessions of this process reuse it.
        SparkContext(conf=conf, gateway=_launch_gateway(conf))
    spark = SparkSession.builder.config(conf=conf).getOrCreate()
    # A JVM this process started earlier keeps the log level it had; errors only, as
    # LOG_CONFIG says.
    spark.sparkContext.setLogLevel("ERROR")
    return spark, True


def _log_config() -> str:
    """LOG_CONFIG as a file URI the JVM can read (a file URI has no spaces to quote)."""
    shipped = resources.files(__package__) / LOG_CONFIG
    if isinstance(shipped, Path):
        return shipped.resolve().as_uri()
    # Installed in a zip: the JVM needs a file of its own, for as long as it runs.
    copy = Path(tempfile.mkdtemp(prefix="msgfilter-")) / LOG_CONFIG
    copy.write_bytes(shipped.read_bytes())
    return copy.as_uri()


def _launch_gateway(conf: Any) -> Any:
    from subprocess import PIPE

    from pyspark import java_gateway

    # popen_kwargs is pyspark's hook for capturing the gateway JVM's output.
    gateway = java_gateway.launch_gateway(conf, popen_kwargs={"stderr": PIPE})  # type: ignore[no-untyped-call]
    # Under spark-submit the JVM runs already (PYSPARK_GATEWAY_PORT): no process of ours.
    if gateway.proc is not None:
        threading.Thread(
            target=copy_stderr, args=(gateway.proc.stderr,), name="msgfilter-spark-stderr",
            daemon=True,
        ).start()
    return gateway


def copy_stderr(stream: IO[bytes], target: int = 2) -> None:
    """Copy `stream` to the file descriptor `target` as it comes, until it ends, without
    its first line when that is the JVM's INCUBATOR_NOTE. Reading goes on when writing
    fails: a JVM whose pipe is full would stop."""
    fd = stream.fileno()
    head = b""
    while chunk := os.read(fd, _CHUNK):
        head += chunk
        if head.startswith(INCUBATOR_NOTE) and b"\n" in head:
            head = head.partition(b"\n")[2]
            break
        if not INCUBATOR_NOTE.startswith(head[: len(INCUBATOR_NOTE)]):
            break
    writing = _write(target, head)
    while chunk := os.read(fd, _CHUNK):
        writing = writing and _write(target, chunk)


def _write(target: int, data: bytes) -> bool:
    """All of `data` to `target`; False when it cannot be written."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(target, view):]
    except OSError:
        return False
    return True
