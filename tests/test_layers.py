"""The package's layers, read from its import lines: each package imports only those below it.

The order is docs/architecture.md's. Function-level imports count too, and so do
private names: no module imports a ``_name`` from another module.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "nbparallel"

#: bottom to top; names on one level do not import each other
LAYERS = [
    {"kernels"},
    {"engine"},
    {"data"},
    {"summaries"},
    {"persistence"},
    {"models"},
    {"exporters"},
    {"model_selection", "analysis"},
    {"loading", "report", "cluster"},
    {"spark_ml"},
    {"cli"},
    {"__main__"},
]
RANK = {name: level for level, names in enumerate(LAYERS) for name in names}


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports():
    """``(module, imported module, name, line)`` for every import of nbparallel inside nbparallel."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                target = node.module or ""
                if node.level:
                    target = ".".join(base[: len(base) - node.level + 1] + ([target] if target else []))
                if not target.startswith("nbparallel"):
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    yield module, sub if sub in modules else target, alias.name, node.lineno
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("nbparallel"):
                        yield module, alias.name, None, node.lineno


def layer(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_package_imports_only_packages_below_it():
    assert {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
            if p.name not in ("__init__.py", "__pycache__")} == set(RANK)
    upward = [f"{module} imports {target} (line {line})" for module, target, _, line in imports()
              if layer(module) and layer(target) and layer(module) != layer(target)
              and RANK[layer(target)] >= RANK[layer(module)]]
    assert not upward, upward


def test_no_import_circle_between_modules():
    graph = {}
    for module, target, _, _ in imports():
        if module != target and not (PACKAGE.parent / target.replace(".", "/") / "__init__.py").exists():
            graph.setdefault(module, set()).add(target)
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in graph.get(node, ()):
            if state.get(nxt) == "open":
                raise AssertionError("import circle: " + " -> ".join(path[path.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for module in list(graph):
        if module not in state:
            visit(module, [module])


def test_no_private_name_is_imported_from_another_module():
    private = [f"{module} imports {name} from {target} (line {line})" for module, target, name, line in imports()
               if name and name.startswith("_") and not name.startswith("__") and target != module]
    assert not private, private


#: the engines a pass may run on; only their backends, cluster.py (which starts Dask clusters) and spark_ml.py
#: (whose Estimator and Model are pyspark.ml's subclasses) import them
ENGINES = {"dask", "distributed", "pyspark", "ray"}


def engine_imports(path):
    """``(engine, line)`` for every import of an engine in a file, at module or function level."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            if name.split(".")[0] in ENGINES:
                yield name, node.lineno


def test_only_the_backends_cluster_and_spark_ml_import_an_engine():
    allowed = {PACKAGE / "cluster.py", PACKAGE / "spark_ml.py", *(PACKAGE / "engine" / "backends").rglob("*.py")}
    found = {p.relative_to(PACKAGE).as_posix(): list(engine_imports(p)) for p in PACKAGE.rglob("*.py")}
    outside = [f"{path} imports {name} (line {line})" for path, imports in found.items()
               for name, line in imports if PACKAGE / path not in allowed]
    assert not outside, outside
    assert found["engine/backends/dask.py"] and found["engine/backends/spark.py"] and found["cluster.py"]
