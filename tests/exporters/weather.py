"""Weka's weather data, generated: nominal and numeric attributes with missing values, as a frame or an
ARFF file, for the exporter tests."""

import numpy as np
import pandas as pd


def weather(n=150, seed=3, missing=((0, 11), (1, 7))):
    """``(frame, play)``: the attributes and the class; column ``j`` missing every ``k``-th row for each
    ``(j, k)`` in ``missing``."""
    rng = np.random.default_rng(seed)
    play = rng.choice(["yes", "no"], n)
    frame = pd.DataFrame({
        "outlook": rng.choice(["sunny", "overcast", "rainy"], n),
        "temperature": np.round(rng.normal(np.where(play == "yes", 70, 78), 6), 1),
        "humidity": np.round(rng.normal(np.where(play == "yes", 75, 86), 8), 1),
        "windy": rng.choice(["TRUE", "FALSE"], n),
    })
    for column, step in missing:
        frame.iloc[::step, column] = None
    return frame, play


def write_arff(path, frame, play):
    """Write ``frame`` and its class ``play`` as an ARFF file (``?`` for a missing value)."""
    header = ["% weather, with numeric attributes", "@relation weather",
              "@attribute outlook {sunny, overcast, rainy}", "@attribute temperature numeric",
              "@attribute humidity real", "@attribute windy {TRUE, FALSE}", "@attribute play {yes, no}", "@data"]
    rows = [",".join("?" if pd.isna(v) else str(v) for v in row) + f",{p}" for row, p in zip(frame.to_numpy(), play)]
    path.write_text("\n".join(header + rows) + "\n")
