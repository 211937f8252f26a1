"""Draw nbparallel's layers and the imports between its packages as ``docs/architecture.png``.

Run from anywhere (the paths are taken from this file's place)::

    python docs/tools/architecture_figure.py

The script reads the import statements of every module under ``nbparallel/``
with :mod:`ast` (imports inside functions included), reduces each to the
package it names (a top-level subpackage such as ``data``, or a top-level
module such as ``loading``), and draws one row per layer, bottom to top, in
the order of ``LAYERS`` in ``tests/test_layers.py`` (read from that file, not
repeated here). Each box is a package with its number of modules (``.py``
files other than ``__init__.py``); each arrow is "imports", drawn once per
pair of packages however many import lines make it. An arrow between
neighbouring layers is straight; a longer one runs down a lane at the side
of the picture. An arrow that points up a layer (which tests/test_layers.py
forbids) is drawn red and dashed.

It is not part of the package and needs only matplotlib.
"""

from __future__ import annotations

import ast
import importlib.util
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "nbparallel"
LAYERS_FILE = ROOT / "tests" / "test_layers.py"
OUTPUT = ROOT / "docs" / "architecture.png"

BOX_W, BOX_H = 2.5, 0.66  # a package's box
GAP_X = 0.5  # between boxes of one layer
ROW_DY = 1.45  # between layers
LANE_GAP, LANE_DX = 0.45, 0.2  # first lane's distance from the boxes; distance between lanes


# ----------------------------------------------------------------------------- reading the package

def read_layers():
    """``LAYERS`` of tests/test_layers.py, bottom to top, each layer's names sorted."""
    spec = importlib.util.spec_from_file_location("_nbparallel_test_layers", LAYERS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [sorted(level) for level in module.LAYERS]


def package_of(path):
    """``data`` for nbparallel/data/..., ``loading`` for nbparallel/loading.py."""
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def imported_modules(path):
    """Every ``nbparallel...`` module name that ``path`` imports, function-level imports included."""
    own = ["nbparallel", *path.relative_to(PACKAGE).with_suffix("").parts]
    package = own if path.name == "__init__.py" else own[:-1]
    if package[-1] == "__init__":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "nbparallel":  # ``from nbparallel import x``: x may be a package
                yield from (f"nbparallel.{alias.name}" for alias in node.names)
            else:
                yield target


def package_graph():
    """``(modules per package, Counter of (importer, imported) package pairs by import statement)``."""
    modules, edges = Counter(), Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__init__.py" and path.parent == PACKAGE:
            continue  # the top-level facade, which names no layer
        source = package_of(path)
        if path.name != "__init__.py":
            modules[source] += 1
        modules.setdefault(source, 0)
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[0] != "nbparallel" or len(parts) < 2:
                continue
            target = parts[1]
            is_package = (PACKAGE / target / "__init__.py").exists() or (PACKAGE / f"{target}.py").exists()
            if target != source and is_package:
                edges[source, target] += 1
    return modules, edges


# ----------------------------------------------------------------------------- layout

def layout(layers, edges):
    """Box centres, and each edge's path (a list of points) and whether it points up."""
    level = {name: i for i, names in enumerate(layers) for name in names}
    centre = {}
    for i, names in enumerate(layers):
        width = len(names) * BOX_W + (len(names) - 1) * GAP_X
        for j, name in enumerate(names):
            centre[name] = (-width / 2 + BOX_W / 2 + j * (BOX_W + GAP_X), i * ROW_DY)
    left_edge = min(x for x, _ in centre.values()) - BOX_W / 2
    right_edge = max(x for x, _ in centre.values()) + BOX_W / 2
    row_of = {name: names for names in layers for name in names}

    def side_for(target, taken):
        """The side a lane reaches ``target`` from: its outer side in a wide layer, else the emptier one."""
        names = row_of[target]
        if len(names) > 1 and target == names[0]:
            return "left"
        if len(names) > 1 and target == names[-1]:
            return "right"
        return "left" if taken["left"] <= taken["right"] else "right"

    adjacent = [e for e in edges if level[e[0]] - level[e[1]] == 1]
    long = sorted((e for e in edges if level[e[0]] - level[e[1]] != 1), key=lambda e: (level[e[1]], -level[e[0]]))
    side, per_target = {}, {}
    for source, target in long:
        taken = per_target.setdefault(target, {"left": 0, "right": 0})
        side[source, target] = side_for(target, taken)
        taken[side[source, target]] += 1
    # lanes: innermost for the highest target (then the lowest source), so that the lanes' horizontal
    # runs into their targets cross as few other lanes as possible
    lane = {}
    for s in ("left", "right"):
        mine = sorted((e for e in long if side[e] == s), key=lambda e: (-level[e[1]], level[e[0]]))
        for k, e in enumerate(mine):
            offset = LANE_GAP + k * LANE_DX
            lane[e] = left_edge - offset if s == "left" else right_edge + offset

    # where each edge leaves its source's bottom: left lanes first (outermost first), then the straight
    # arrows by their target's place, then the right lanes
    def exit_key(e):
        if e in lane:
            return (0, lane[e]) if side[e] == "left" else (2, lane[e])
        return (1, centre[e[1]][0])

    exits = {}
    for source in {e[0] for e in edges}:
        out = sorted((e for e in edges if e[0] == source), key=exit_key)
        x0 = centre[source][0] - BOX_W / 2
        for k, e in enumerate(out):
            exits[e] = x0 + (k + 1) * BOX_W / (len(out) + 1)

    # the depth of each lane edge's horizontal run under its source: outer lanes run shallowest
    track = {}
    for source in {e[0] for e in long}:
        for s in ("left", "right"):
            mine = sorted((e for e in long if e[0] == source and side[e] == s),
                          key=lambda e: abs(lane[e] - centre[source][0]), reverse=True)
            step = min(0.13, (ROW_DY - BOX_H) * 0.8 / (len(mine) + 1))
            for k, e in enumerate(mine):
                track[e] = centre[source][1] - BOX_H / 2 - (k + 1) * step

    # where lane edges enter their target's side (outer lanes lower) and straight ones its top
    entries = {}
    for target in {e[1] for e in edges}:
        for s in ("left", "right"):
            mine = sorted((e for e in long if e[1] == target and side[e] == s), key=lambda e: abs(lane[e]))
            for k, e in enumerate(mine):
                entries[e] = centre[target][1] + BOX_H / 2 - (k + 1) * BOX_H / (len(mine) + 1)
        mine = sorted((e for e in adjacent if e[1] == target), key=lambda e: exits[e])
        for k, e in enumerate(mine):
            entries[e] = centre[target][0] - BOX_W / 2 + (k + 1) * BOX_W / (len(mine) + 1)

    paths = {}
    for e in edges:
        sy, (tx, ty) = centre[e[0]][1], centre[e[1]]
        up = level[e[1]] >= level[e[0]]
        if e in lane:
            x_lane, y_in = lane[e], entries[e]
            x_in = tx - BOX_W / 2 if side[e] == "left" else tx + BOX_W / 2
            names = row_of[e[1]]
            if not up and len(names) > 1 and e[1] not in (names[0], names[-1]):  # a middle box: enter its top
                y_top = ty + BOX_H / 2
                paths[e] = [(exits[e], sy - BOX_H / 2), (exits[e], track[e]), (x_lane, track[e]),
                            (x_lane, y_top + 0.2), (tx, y_top + 0.2), (tx, y_top)]
            else:
                paths[e] = [(exits[e], sy - BOX_H / 2), (exits[e], track[e]), (x_lane, track[e]),
                            (x_lane, y_in), (x_in, y_in)]
        else:
            paths[e] = [(exits[e], sy - BOX_H / 2), (entries[e], ty + BOX_H / 2)]
        paths[e] = (paths[e], up)
    return centre, paths, (left_edge, right_edge)


# ----------------------------------------------------------------------------- drawing

def draw(layers, modules, edges, output=OUTPUT):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path as MplPath

    centre, paths, (left_edge, right_edge) = layout(layers, edges)
    n_left = sum(1 for (p, _) in paths.values() if len(p) > 2 and p[2][0] < left_edge)
    n_right = sum(1 for (p, _) in paths.values() if len(p) > 2 and p[2][0] > right_edge)
    x_min = left_edge - LANE_GAP - max(n_left, 1) * LANE_DX - 1.6
    x_max = right_edge + LANE_GAP + max(n_right, 1) * LANE_DX + 0.3
    y_max = (len(layers) - 1) * ROW_DY
    fig_w = 12.0
    fig_h = fig_w * (y_max + 2.3) / (x_max - x_min)
    fig, ax = plt.subplots(figsize=(fig_w, fig_h), dpi=110)
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(-0.9, y_max + 1.4)
    ax.set_aspect("equal")
    ax.axis("off")

    sources = sorted({s for s, _ in edges}, key=lambda n: centre[n][1])
    palette = [c for i, c in enumerate(plt.get_cmap("tab10").colors) if i != 7]  # grey marks "imports nothing"
    colour = {name: palette[i % len(palette)] for i, name in enumerate(sources)}

    for i, names in enumerate(layers):
        y = i * ROW_DY
        ax.add_patch(plt.Rectangle((left_edge - 0.2, y - BOX_H / 2 - 0.12), right_edge - left_edge + 0.4,
                                   BOX_H + 0.24, color="#f2f2f2", zorder=0, lw=0))
        ax.text(x_min + 0.1, y, f"layer {i}", ha="left", va="center", fontsize=9, color="#777777")

    for (source, target), (points, up) in sorted(paths.items(), key=lambda item: item[0]):
        codes = [MplPath.MOVETO] + [MplPath.LINETO] * (len(points) - 1)
        ax.add_patch(FancyArrowPatch(
            path=MplPath(points, codes), arrowstyle="-|>", mutation_scale=11, shrinkA=0, shrinkB=0,
            lw=1.9 if up else 1.3, color="red" if up else colour[source], linestyle="--" if up else "-",
            joinstyle="miter", zorder=2))

    for name, (x, y) in centre.items():
        edge = colour.get(name, "#555555")
        ax.add_patch(FancyBboxPatch((x - BOX_W / 2, y - BOX_H / 2), BOX_W, BOX_H,
                                    boxstyle="round,pad=0,rounding_size=0.08", facecolor="white",
                                    edgecolor=edge, lw=2.0, zorder=3))
        suffix = "" if (PACKAGE / name).is_dir() else ".py"
        count = modules.get(name, 0)
        ax.text(x, y + 0.1, name + suffix + ("/" if not suffix else ""), ha="center", va="center",
                fontsize=11, fontweight="bold", zorder=4)
        ax.text(x, y - 0.17, f"{count} module{'s' if count != 1 else ''}", ha="center", va="center",
                fontsize=8.5, color="#444444", zorder=4)

    ax.text((x_min + x_max) / 2, y_max + 0.95, "nbparallel: packages by layer; an arrow means \"imports\"",
            ha="center", va="center", fontsize=13, fontweight="bold")
    ax.text((x_min + x_max) / 2, y_max + 0.6,
            "bottom to top as LAYERS in tests/test_layers.py; each package imports only packages below it; "
            "arrow colour = importing package",
            ha="center", va="center", fontsize=8.5, color="#444444")
    ax.text((x_min + x_max) / 2, -0.68, "regenerate: python docs/tools/architecture_figure.py",
            ha="center", va="center", fontsize=8, color="#777777")
    output.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(output, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    return output


def main():
    layers = read_layers()
    modules, edges = package_graph()
    unknown = sorted(set(modules) - {n for names in layers for n in names})
    if unknown:
        raise SystemExit(f"packages not in tests/test_layers.py's LAYERS: {unknown}")
    output = draw(layers, modules, edges)
    print(f"wrote {output.relative_to(ROOT)}: {len(modules)} packages, {len(edges)} package imports, "
          f"{sum(edges.values())} import statements")
    for (source, target), n in sorted(edges.items()):
        print(f"  {source} -> {target} ({n})")


if __name__ == "__main__":
    main()
