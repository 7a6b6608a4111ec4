"""Shared fixtures."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One local SparkSession for the whole test run (starting one takes ~10 s)."""
    pytest.importorskip("pyspark")
    # Workers must run this interpreter (it has pyarrow), and locally bind to loopback.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("msgfilter-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        # Call-site capture costs several py4j calls per Column operation.
        .config("spark.python.sql.dataFrameDebugging.enabled", "false")
        # The test JVM runs many small, different jobs for minutes, not one hot loop for
        # hours: C2's optimising compiles and the parallel collector's threads cost more
        # CPU than they give back on two shared cores (test_spark.py alone: ~40% less
        # CPU; test_spark_rocketmq.py: ~12% less, its edge tables alone ~28% less).
        # Only the JIT tier and the collector change, never what Spark computes or
        # whether it generates code.
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
