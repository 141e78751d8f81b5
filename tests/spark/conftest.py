"""One local Spark session for the Spark tests (``local[2]``, no UI, few shuffle partitions).

Skipped, with the reason, when pyspark or a Java runtime is missing (CI installs both).
Executors import the warckit the tests import, with the same implementation (compiled
or pure): the Python workers get ``PYSPARK_PYTHON=sys.executable`` and the package's
directory first on ``PYTHONPATH`` (as tests/child.py does for child processes).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "remote"))  # remote_servers


def _java() -> bool:
    home = os.environ.get("JAVA_HOME")
    return bool(shutil.which("java") or (home and Path(home, "bin", "java").exists()))


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'warckit[spark]')")
    pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'warckit[spark]')")
    if not _java():
        pytest.skip("no Java runtime (java on PATH or JAVA_HOME): Spark needs one")
    import child

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    # The Python workers start in the JVM's working directory, which comes first on their
    # sys.path: started from the checkout, they would import its warckit (not the installed
    # one CI tests). The JVM is started from an empty directory instead.
    here = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("spark-cwd"))
    try:
        session = _session(child.env()["PYTHONPATH"])
    finally:
        os.chdir(here)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _session(pythonpath: str) -> Any:
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("warckit-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "3")
        .config("spark.default.parallelism", "2")
        .config("spark.executorEnv.PYTHONPATH", pythonpath)
        .config("spark.driver.memory", "1g")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
