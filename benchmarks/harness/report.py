"""What an experiment hands back, and how it is written: CSV, JSON, PNG and a summary."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


@dataclass
class Target:
    """A target ratio, measured in the run.

    Attributes
    ----------
    label : str
        What is compared.
    value : float
        The measured ratio.
    threshold : float
        The target.
    at_most : bool
        True when the value must not exceed the threshold, False when it must reach it.
    unit : str
        Written after the value and the threshold: ``x`` for a ratio, `` s`` for seconds, empty for a count.
    """

    label: str
    value: float
    threshold: float
    at_most: bool
    unit: str = "x"

    @property
    def passed(self):
        """Whether the target is met."""
        return bool(self.value <= self.threshold if self.at_most else self.value >= self.threshold)

    def line(self):
        """``PASS label: value (target <= threshold)``."""
        sign = "<=" if self.at_most else ">="
        return (f"{'PASS' if self.passed else 'FAIL'}  {self.label}: {self.value:.2f}{self.unit} "
                f"(target {sign} {self.threshold:g}{self.unit})")


@dataclass
class Result:
    """The raw measurements of one experiment and how to present them.

    Attributes
    ----------
    name : str
        The experiment's name, the stem of its files.
    rows : pandas.DataFrame
        Raw measurements, one row per measured (or simulated) point.
    summary : pandas.DataFrame
        The table for the README and the docs pages.
    plot : callable or None
        ``plot(rows) -> matplotlib.figure.Figure``; None: the experiment has no figure.
    parameters : dict
        Sizes and settings of the run.
    targets : list of Target
    notes : list of str
        Skipped peers, subsets and other caveats, printed and stored.
    """

    name: str
    rows: pd.DataFrame
    summary: pd.DataFrame
    plot: object = None
    parameters: dict = field(default_factory=dict)
    targets: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def _cell(value):
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def markdown(frame):
    """A DataFrame as a markdown table, numbers to three significant digits."""
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |",
             "|" + "|".join(" --- " for _ in frame.columns) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def write(result, results_dir, machine, quick):
    """Write ``NAME.csv``, ``NAME.json`` and ``NAME.png`` (where it has a plot) and print the summary.

    Quick runs are written as ``NAME-quick.*`` so they never replace a full run.

    Returns
    -------
    dict
        The paths written, by suffix.
    """
    results_dir.mkdir(parents=True, exist_ok=True)
    stem = f"{result.name}-quick" if quick else result.name
    paths = {ext: results_dir / f"{stem}.{ext}" for ext in ("csv", "json", "png")[: 3 if result.plot else 2]}
    result.rows.to_csv(paths["csv"], index=False)
    meta = {
        "experiment": result.name,
        "quick": quick,
        "machine": machine,
        "parameters": result.parameters,
        "targets": [{**vars(t), "value": float(t.value), "passed": None if quick else t.passed}
                    for t in result.targets],
        "notes": result.notes,
        "summary": json.loads(result.summary.to_json(orient="records")),
        "rows": json.loads(result.rows.to_json(orient="records")),
    }
    paths["json"].write_text(json.dumps(meta, indent=1, default=str))
    if result.plot:
        figure = result.plot(result.rows)
        figure.savefig(paths["png"], dpi=110, bbox_inches="tight")
        plt.close(figure)

    cluster = machine.get("cluster")
    where = (f"{cluster['workers']} workers at {cluster['scheduler']}" if cluster
             else f"{machine['cores']} cores, {machine['memory_gib']} GiB")
    print(f"\n## {result.name}{' (quick)' if quick else ''}: {where}, {machine['cpu']}\n")
    if machine.get("free_page_reporting"):
        print("note: this machine's memory balloon reports free pages to its host: memory freed about 2 s "
              "earlier faults on the host when touched again, so a pass that allocates a large array (a 20-class "
              "predict_proba) is timed with those faults (nbparallel bench fresh_memory; docs/models.md, "
              "'Fresh memory')\n")
    print(markdown(result.summary))
    for note in result.notes:
        print(f"\nnote: {note}")
    if result.targets and quick:  # tiny sizes: no verdicts on them (the JSON keeps the values)
        print(f"\n{len(result.targets)} targets measured; a quick run passes no verdict on them")
    elif result.targets:
        print()
        for t in result.targets:
            print(t.line())
    print("\nwrote " + ", ".join(str(p) for p in paths.values()))
    return paths
