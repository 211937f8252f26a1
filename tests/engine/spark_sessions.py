"""Real local Spark sessions for the tests: classic ``local[2,2]`` and Spark Connect (``remote("local[2,2]")``).

A session is made once per test process and stopped at its exit (module fixtures use :func:`session`). Spark
runs in a JVM that this process starts; its Python workers import the package as this process does.

Spark Connect's local server binds port 15002 by default and keeps it after its session stops, so a second
server in the same process, or any other on the machine, could not start. Each one binds a free port instead,
through pyspark's own test switch ``SPARK_TESTING``, set only while the session is made.
"""

from __future__ import annotations

import atexit
import os
import sys

import numpy as np
import pandas as pd

_sessions = {}

#: ``local[2, 2]``: two cores, and a failed task tried once more (``local[2]`` gives up at once)
MASTER = "local[2,2]"


def session(kind):
    """The test process's Spark session of ``kind`` ("classic" or "connect")."""
    if kind not in _sessions:
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        from pyspark.sql import SparkSession

        for other in list(_sessions):  # one JVM session at a time
            _sessions.pop(other).stop()
        builder = SparkSession.builder
        if kind == "classic":
            spark = (builder.master(MASTER).appName("nbparallel-tests").config("spark.ui.enabled", "false")
                     .config("spark.sql.shuffle.partitions", "4").getOrCreate())
            if spark.sparkContext.master != MASTER:  # a context left by another session: start afresh
                spark.stop()
                return session(kind)
            spark.sparkContext.setLogLevel("ERROR")
        else:
            from pyspark import SparkContext

            SparkContext._ensure_initialized()  # the JVM starts outside the test switch
            os.environ["SPARK_TESTING"] = "1"  # the server binds a free port, and the client asks it which
            try:
                spark = builder.remote(MASTER).getOrCreate()  # its server's context retries a failed task too
            finally:
                del os.environ["SPARK_TESTING"]
        _sessions[kind] = spark
    return _sessions[kind]


def connect_url():
    """The address of this process's local Spark Connect server (started if it is not), for a client elsewhere."""
    session("connect")
    from pyspark.sql.session import SparkSession

    service = getattr(SparkSession._instantiatedSession._jvm, "org.apache.spark.sql.connect.service.SparkConnectService$")
    return f"sc://localhost:{getattr(service, 'MODULE$').localPort()}"


@atexit.register
def _stop_all():
    for spark in _sessions.values():
        spark.stop()
    _sessions.clear()


def mixed_frame(n=600, seed=0):
    """Strings with missing values, small integers, floats with NaN, a string label and integer weights."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    size = rng.integers(0, 5, n)
    x = rng.normal(size=n)
    label = np.where((colour == "red") ^ (rng.random(n) < 0.25), "yes", "no")
    colour[rng.random(n) < 0.05] = None
    x[rng.random(n) < 0.05] = np.nan
    return pd.DataFrame({"colour": colour, "size": size, "x": x + (label == "yes"), "label": label,
                         "w": rng.integers(1, 4, n).astype(float)})
