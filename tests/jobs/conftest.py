"""What the routing-job tests share: one archive and its routes by the sample
subscriptions, each run once per test process (a Spark run costs seconds)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from route_runs import SAMPLE, run_main


@pytest.fixture(scope="session")
def sample_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 000 demo messages in Parquet, as `msgfilter demo-data` writes them."""
    from msgfilter.jobs import demo

    path = tmp_path_factory.mktemp("sample-archive") / "archive.parquet"
    assert run_main(demo, ["--rows", "3000", "--out", str(path), "--seed", "7"]) == 0
    return path


@pytest.fixture(scope="session")
def sample_route(
    spark: Any, sample_archive: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], Path]:
    """The output folder of `msgfilter route` over `sample_archive` by the sample
    subscriptions, with `--plan PLAN` (`"auto"`: no `--plan`, as a user runs it). Tests
    read these folders and never write into them."""
    from msgfilter.jobs import route

    done: dict[str, Path] = {}

    def routed(plan: str) -> Path:
        if plan not in done:
            out = tmp_path_factory.mktemp(f"route-{plan}")
            args = ["--archive", str(sample_archive), "--subscriptions", str(SAMPLE),
                    "--out", str(out)]
            assert run_main(route, args if plan == "auto" else [*args, "--plan", plan]) == 0
            done[plan] = out
        return done[plan]

    return routed
