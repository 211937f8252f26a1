"""Sphinx extension: the ``results-table`` directive, a table read from a file of ``benchmarks/results/``.

A page shows a measurement by naming its result file, never by copying its figures::

    ```{results-table} mdl.json
    :columns: dataset, nbparallel_mdl=mdl, weka_nb_D=Weka -D
    :where: experiment=speed
    ```

``:columns:`` picks the records' keys (``key=Header`` renames one); ``:where:`` keeps the records whose
key has that value; ``:records: targets`` takes the file's list of that name (an experiment file's targets)
instead. The records are those :func:`results_tables.records_of` finds in the file, or the file
itself when it is one record.
"""

from __future__ import annotations

import json
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList

from results_tables import RESULTS, flat_record, markdown_table, records_of


def parse_columns(text):
    """``[(key, header)]`` of a ``:columns:`` option."""
    pairs = [item.strip().partition("=") for item in text.split(",") if item.strip()]
    return [(key.strip(), (header or key).strip()) for key, _, header in pairs]


def selected_records(path, columns=None, where=None, name=None):
    """The rows of the table: the file's records (its list ``name``, if given) kept by ``where``, each with the
    ``columns`` asked for."""
    data = json.loads(Path(path).read_text())
    if name is not None:
        records = data.get(name) if isinstance(data, dict) else None
    else:
        records = records_of(data) or ([data] if isinstance(data, dict) else None)  # a file of one record
    if records is None:
        raise ValueError(f"{path} holds no records")
    records = [flat_record(r) for r in records]
    for condition in (where or "").split(","):
        key, _, value = condition.partition("=")
        if key.strip():
            records = [r for r in records if str(r.get(key.strip())) == value.strip()]
    if not records:
        raise ValueError(f"{path}: no record where {where}")
    if columns:
        pairs = parse_columns(columns)
        unknown = [k for k, _ in pairs if all(k not in r for r in records)]
        if unknown:
            raise ValueError(f"{path}: no column {unknown}; it has {sorted(records[0])}")
        records = [{header: r.get(key) for key, header in pairs} for r in records]
    return records


class ResultsTable(Directive):
    """The ``results-table`` directive."""

    required_arguments = 1
    option_spec = {"columns": directives.unchanged, "where": directives.unchanged, "records": directives.unchanged}

    def run(self):
        path = RESULTS / self.arguments[0]
        try:
            records = selected_records(path, self.options.get("columns"), self.options.get("where"),
                                       self.options.get("records"))
        except (OSError, ValueError) as error:
            raise self.error(f"results-table: {error}")
        self.state.document.settings.record_dependencies.add(str(path))
        caption = f"Read from `benchmarks/results/{self.arguments[0]}`."
        container = nodes.container()
        self.state.nested_parse(StringList([markdown_table(records), "", caption]), self.content_offset, container)
        return container.children


def setup(app):
    app.add_directive("results-table", ResultsTable)
    return {"parallel_read_safe": True}
