"""The HTML nomogram in a real browser (Debian's chromium and chromedriver, driven by selenium): values
picked on the page give the posterior predict_proba gives for that row, to 1e-6. It fails, not skips,
when the browser is missing, naming the package: README's test command installs it (tests/run.sh)."""

import numpy as np
import pandas as pd
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import nbparallel as nb
from nbparallel.report import nomogram_data, write_nomogram
from tests.system_programs import require


@pytest.fixture(scope="module")
def browser():
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.binary_location = require("chromium", "chromium")
    driver = webdriver.Chrome(service=Service(require("chromedriver", "chromium-driver")), options=options)
    yield driver
    driver.quit()


def _frame(seed=0, n=300):
    rng = np.random.default_rng(seed)
    y = rng.choice(["low", "mid", "high"], n)
    shift = pd.Series(y).map({"low": 0, "mid": 1, "high": 2}).to_numpy()
    return pd.DataFrame({
        "colour": np.array(["red", "green", "blue", "grey"])[(shift + rng.integers(0, 2, n)) % 4],
        "size": rng.normal(shift, 1.0),
        "weight": rng.normal(2.0 * shift, 1.5),
        "target": y,
    })


def _pick(driver, data, row):
    """Set the page's controls to ``row``'s values; a binned value by its bin's label."""
    for j, attribute in enumerate(data["attributes"]):
        element = driver.find_element(By.ID, f"attr-{j}")
        value = row[attribute["name"]]
        if attribute["kind"] == "gaussian":
            element.clear()
            element.send_keys(repr(float(value)))
        else:
            Select(element).select_by_index(1 + attribute["values"].index(str(value)))


@pytest.mark.parametrize("numeric", ["gaussian", "binned"])
def test_the_page_shows_predict_proba(browser, tmp_path, numeric):
    frame = _frame()
    model = nb.NaiveBayes(numeric=numeric).fit(frame, "target")
    path = write_nomogram(model, tmp_path / "nomogram.html", for_class="mid")
    data = nomogram_data(model, "mid")
    browser.get(path.resolve().as_uri())
    column = list(model.classes_).index("mid")
    for i in (0, 7, 42):
        row = frame.iloc[i]
        if numeric == "binned":  # the row's bin labels, read from the model's own tables
            row = row.copy()
            for name in ("size", "weight"):
                edges = model.bin_edges_[name]
                labels = list(model.log_probabilities_[name].index)
                row[name] = labels[int(np.searchsorted(edges, row[name], side="left"))]
        _pick(browser, data, row)
        shown = float(browser.find_element(By.ID, "posterior").text)
        expected = model.predict_proba(frame.iloc[[i]].drop(columns="target"))[0, column]
        assert abs(shown - expected) < 1e-6, (i, shown, expected)


_BOXES = """
const axes = [...document.querySelectorAll('.axis')];
return [...document.querySelectorAll(arguments[0])].filter(e => getComputedStyle(e).visibility !== 'hidden')
  .map(e => { const r = e.getBoundingClientRect();
              return [r.left, r.top, r.right, r.bottom, axes.indexOf(e.closest('.axis'))]; });
"""
"""The boxes of the visible elements a CSS selector finds, each with the index of its axis."""


def _overlapping(boxes):
    """Pairs of boxes (left, top, right, bottom, axis) of one axis whose interiors intersect (1 px slack)."""
    pairs = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a[4] == b[4] and a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1:
                pairs.append((a, b))
    return pairs


def test_fifty_attributes_and_classes_are_legible_and_exact(browser, tmp_path):
    from tests.report.test_nomogram_legible import wide_model

    model = wide_model(50, 50)
    for_class = model.classes_[7]
    path = write_nomogram(model, tmp_path / "nomogram.html", for_class=for_class)
    data = nomogram_data(model, for_class)
    browser.set_window_size(1280, 900)
    browser.get(path.resolve().as_uri())
    assert _overlapping(browser.execute_script(_BOXES, ".tick")) == []
    controls = browser.execute_script(_BOXES, "select, input")
    assert len(controls) == 50
    assert all(b[1] >= a[3] - 1 for a, b in zip(controls, controls[1:]))  # one below the other
    rng = np.random.default_rng(1)
    row = {a["name"]: a["values"][rng.integers(len(a["values"]))] for a in data["attributes"]}
    _pick(browser, data, pd.Series(row))
    shown = float(browser.find_element(By.ID, "posterior").text)
    frame = pd.DataFrame({name: [value] for name, value in row.items()})[list(model.feature_names_in_)]
    expected = model.predict_proba(frame)[0, list(model.classes_).index(for_class)]
    assert abs(shown - expected) < 1e-6
