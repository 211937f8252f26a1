"""Weka's nominal example files as codes, and Weka's class distributions of them at full precision.

The files are read here by a small reader of their own (declared values in order, ``?`` missing), independent of
the package's ARFF reader; ``WekaDistributions.java`` (beside this file, compiled once) prints Weka's distributions with every
digit, where Weka's own ``-p 0`` prints three decimals.
"""

from __future__ import annotations

import atexit
import csv
import functools
import gzip
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nbparallel.data.files.arff import parse_header
from tests.system_programs import require, require_files

EXAMPLES = "/usr/share/doc/weka/examples"
WEKA = "/usr/share/java/weka.jar"
PRINTER = Path(__file__).with_name("WekaDistributions.java")


@dataclass
class NominalData:
    """A nominal ARFF file's rows: codes 0 (missing) or 1 + the declared index; the class is the last attribute."""

    header: str
    values: list  # each attribute's declared values, class last
    codes: np.ndarray  # (n_rows, f) uint8
    y: np.ndarray  # (n_rows,) int64, -1 missing

    @property
    def offsets(self):
        return np.concatenate([[0], np.cumsum([len(v) + 1 for v in self.values[:-1]])]).astype(np.int64)

    @property
    def n_classes(self):
        return len(self.values[-1])

    def rows(self, codes, y):
        """Other rows of this file's layout."""
        return NominalData(self.header, self.values, np.ascontiguousarray(codes, dtype=np.uint8), np.asarray(y))

    def write(self, path):
        """This data as an ARFF file of the same header."""
        lines = []
        for row, k in zip(self.codes, self.y):
            cells = [("?" if c == 0 else _quoted(vals[c - 1])) for c, vals in zip(row, self.values)]
            cells.append("?" if k < 0 else _quoted(self.values[-1][k]))
            lines.append(",".join(cells))
        Path(path).write_text(self.header + "\n".join(lines) + "\n")
        return path


def _quoted(value):
    return "'" + value.replace("'", "\\'") + "'"


def read_example(name):
    """The Weka example ``name`` (e.g. ``"vote"``), gzipped or not, as :class:`NominalData`."""
    (path,) = require_files(EXAMPLES, "weka", f"{name}.arff*")
    text = (gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()).decode("utf-8")
    attributes, offset = parse_header(text, str(path))
    assert all(kind == "nominal" for _, kind, _ in attributes), f"{name} is not nominal-only"
    values = [list(v) for _, _, v in attributes]
    header = "@relation r\n" + "".join(
        f"@attribute a{i} {{{','.join(_quoted(v) for v in vals)}}}\n" for i, vals in enumerate(values)) + "@data\n"
    lines = [line for line in text[offset:].splitlines() if line.strip() and not line.lstrip().startswith("%")]
    table = [[cell.strip() for cell in row] for row in csv.reader(lines, quotechar="'", skipinitialspace=True)]
    index = [{v: i + 1 for i, v in enumerate(vals)} for vals in values]
    coded = np.array([[0 if cell == "?" else index[a][cell] for a, cell in enumerate(row)] for row in table])
    return NominalData(header, values, np.ascontiguousarray(coded[:, :-1], dtype=np.uint8), coded[:, -1] - 1)


def filled(data):
    """``data`` with each missing value replaced by its attribute's most frequent value (the first on a tie)."""
    codes = data.codes.copy()
    for a in range(codes.shape[1]):
        counts = np.bincount(codes[:, a], minlength=len(data.values[a]) + 1)
        codes[codes[:, a] == 0, a] = 1 + int(np.argmax(counts[1:]))
    return data.rows(codes, data.y)


@functools.cache
def printer_classes():
    """A folder holding ``WekaDistributions.java`` compiled, once per test process (removed at its exit)."""
    javac = require("javac", "openjdk-17-jdk-headless")
    require_files("/usr/share/java", "weka", "weka.jar")
    folder = tempfile.mkdtemp(prefix="weka-printer-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    subprocess.run([javac, "-cp", WEKA, "-d", folder, str(PRINTER)], capture_output=True, text=True, check=True)
    return folder


def weka_distributions(classifier, train, test, tmp_path, *options):
    """Weka's class distributions of ``test``'s rows, trained on ``train`` (both :class:`NominalData`), and for a
    BayesNet each attribute's parents other than the class (a list of lists)."""
    java = require("java", "openjdk-17-jre-headless")
    classpath = f"{WEKA}:{printer_classes()}"
    train_file, test_file = train.write(tmp_path / "train.arff"), test.write(tmp_path / "test.arff")
    out = subprocess.run([java, "-cp", classpath, "WekaDistributions", classifier, str(train_file), str(test_file),
                          *options], capture_output=True, text=True, check=True).stdout.splitlines()
    n = len(test.codes)
    probabilities = np.array([[float(p) for p in line.split()] for line in out[:n]])
    class_index = len(train.values) - 1
    parents = [[int(p) for p in line.split() if int(p) != class_index] for line in out[n + 1:]]
    return probabilities, parents
