"""The HTML nomogram in a real browser (Debian's chromium and chromedriver, driven by selenium): values
picked on the page give the posterior predict_proba gives for that row (every digit in ``data-probability``,
three decimals on the page), each marked on its axis; from 2 to 50 attributes no two labels overlap and each
stays inside its row, off the names and controls. It fails, not skips,
when the browser is missing, naming the package: README's test command installs it (tests/run.sh)."""

import re

import numpy as np
import pandas as pd
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import nbparallel as nb
from nbparallel.report import bin_labels, nomogram_data, write_nomogram
from tests.report.test_nomogram_legible import credit_like, wide_model
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


def _index(model, attribute, value):
    """The index of ``value`` among a counted attribute's values: its category's, or its bin's (found from the
    model's edges, as predict bins)."""
    if attribute["name"] in model.bin_edges_:
        return int(np.searchsorted(model.bin_edges_[attribute["name"]], value))
    return attribute["values"].index(str(value))


def _pick(driver, model, data, row):
    """Set the page's controls to ``row``'s values: a number typed, a category or a bin chosen."""
    for j, attribute in enumerate(data["attributes"]):
        element = driver.find_element(By.ID, f"attr-{j}")
        value = row[attribute["name"]]
        if attribute["kind"] == "gaussian":
            element.clear()
            element.send_keys(repr(float(value)))
        else:
            Select(element).select_by_index(1 + _index(model, attribute, value))


def _shown_probability(driver, expected):
    """Check the posterior the page shows against ``expected``: its text to three decimals ("= 0.700", or a
    bound "< 0.001" / "> 0.999"), every digit in its ``data-probability``."""
    element = driver.find_element(By.ID, "posterior")
    text = element.text
    assert re.fullmatch(r"= 0\.\d{3}|< 0\.001|> 0\.999", text), text
    if text.startswith("="):
        assert abs(float(text[2:]) - expected) <= 0.0005 + 1e-12, (text, expected)
    else:
        assert expected < 0.001 if text.startswith("<") else expected > 0.999, (text, expected)
    assert abs(float(element.get_attribute("data-probability")) - expected) < 1e-9
    return text


@pytest.mark.parametrize("numeric", ["gaussian", "binned"])
def test_the_page_shows_predict_proba(browser, tmp_path, numeric):
    frame = _frame()
    model = nb.NaiveBayes(numeric=numeric).fit(frame, "target")
    path = write_nomogram(model, tmp_path / "nomogram.html", for_class="mid")
    data = nomogram_data(model, "mid")
    browser.get(path.resolve().as_uri())
    column = list(model.classes_).index("mid")
    for i in (0, 7, 42):
        _pick(browser, model, data, frame.iloc[i])
        _shown_probability(browser, model.predict_proba(frame.iloc[[i]].drop(columns="target"))[0, column])
        chosen = browser.execute_script(_CHOSEN)
        assert all(at is not None for at, _ in chosen)  # each value marked, its label shown as chosen
        assert [[text.strip("\u25c2\u25b8 ") for text in picked] for _, picked in chosen] == [
            [repr(float(frame.iloc[i][a["name"]]))] if a["kind"] == "gaussian"
            else [a["values"][_index(model, a, frame.iloc[i][a["name"]])]] for a in data["attributes"]]


_BOXES = """
const axes = [...document.querySelectorAll('.axis')];
return [...document.querySelectorAll(arguments[0])]
  .filter(e => e.getClientRects().length && getComputedStyle(e).visibility !== 'hidden')
  .map(e => { const r = e.getBoundingClientRect();
              return [r.left, r.top, r.right, r.bottom, axes.indexOf(e.closest('.axis'))]; });
"""
"""The boxes of the displayed, visible elements a CSS selector finds, each with the index of its row (the
points scale is row 0, attribute j row j + 1)."""


def _overlapping(boxes, others=None):
    """Pairs of boxes (left, top, right, bottom, row), one of ``boxes`` and one of ``others`` (default: two of
    ``boxes`` in one row), whose interiors intersect (1 px slack)."""
    pairs = []
    for i, a in enumerate(boxes):
        for b in (boxes[i + 1:] if others is None else others):
            if (others is not None or a[4] == b[4]) and a[0] < b[2] - 1 and b[0] < a[2] - 1 \
                    and a[1] < b[3] - 1 and b[1] < a[3] - 1:
                pairs.append((a, b))
    return pairs


def _inside(box, outer):
    """Whether ``box`` lies within ``outer`` (half a pixel of slack)."""
    return all(box[k] >= outer[k] - 0.5 for k in (0, 1)) and all(box[k] <= outer[k] + 0.5 for k in (2, 3))


def _check_legible(driver, n_attributes):
    """No two labels of a row overlap; each stays inside its row's axis line, so off the names and controls;
    each row shows a label."""
    labels = driver.execute_script(_BOXES, ".value")
    lines = driver.execute_script(_BOXES, ".line")
    rows = driver.execute_script(_BOXES, ".axis")
    assert len(lines) == len(rows) == n_attributes + 1
    assert _overlapping(labels) == []
    assert all(_inside(b, lines[b[4]]) and _inside(b, rows[b[4]]) for b in labels)
    fixed = driver.execute_script(_BOXES, "select, input, .name, .points")
    assert _overlapping(labels, fixed) == []
    assert {b[4] for b in labels} == set(range(n_attributes + 1))


_CHOSEN = """
return [...document.querySelectorAll('.line[id]')].map(line => {
  const chosen = line.querySelector('.chosen');
  const box = chosen.getBoundingClientRect(), own = line.getBoundingClientRect();
  const picked = [...line.querySelectorAll('.value.picked')]
    .filter(v => getComputedStyle(v).visibility !== 'hidden').map(v => v.textContent);
  return [chosen.hidden ? null : ((box.left + box.right) / 2 - own.left) / own.width, picked];
});
"""
"""Per attribute row: where its chosen-value marker is (a fraction of the axis line; null when not shown),
and the texts of its visible labels marked as chosen."""


@pytest.mark.parametrize("n_attributes", [2, 20, 50])
def test_a_credit_like_nomogram_is_legible_and_marks_the_chosen_values(browser, tmp_path, n_attributes):
    frame = credit_like(n_attributes)
    model = nb.NaiveBayes().fit(frame, "class")
    path = write_nomogram(model, tmp_path / "nomogram.html", for_class="good")
    data = nomogram_data(model, "good")
    browser.set_window_size(1280, 900)
    browser.get(path.resolve().as_uri())
    _check_legible(browser, n_attributes)
    assert [m[0] for m in browser.execute_script(_CHOSEN)] == [None] * n_attributes  # nothing chosen yet
    lo, hi = browser.execute_script("return [M.axis.lo, M.axis.hi]")
    oldest = int(np.argmax(frame["age"])) if "age" in frame else 0
    for i in (oldest, 5):
        row = frame.iloc[i]
        _pick(browser, model, data, row)
        _check_legible(browser, n_attributes)
        for attribute, (at, picked) in zip(data["attributes"], browser.execute_script(_CHOSEN)):
            index = _index(model, attribute, row[attribute["name"]])
            if attribute["name"] in model.bin_edges_:
                assert attribute["values"][index] == bin_labels(model.bin_edges_[attribute["name"]])[index]
            ratio = attribute["ratio"][index]
            assert at == pytest.approx((min(max(ratio, lo), hi) - lo) / (hi - lo), abs=0.01), attribute["name"]
            label = attribute["values"][index]
            assert picked == [f"\u25c2 {label}" if ratio < lo else f"{label} \u25b8" if ratio > hi else label]
        expected = model.predict_proba(frame.iloc[[i]].drop(columns="class"))[0, list(model.classes_).index("good")]
        _shown_probability(browser, expected)
    if "age" in frame:  # the far single case is beyond the axis, drawn at its end with an arrow
        ages = next(a for a in data["attributes"] if a["name"] == "age")
        assert ages["values"][-1].startswith("> ") and sum(ages["counts"][-1]) == 1
        assert not lo <= ages["ratio"][-1] <= hi


def test_fifty_attributes_and_classes_are_legible_and_exact(browser, tmp_path):
    model = wide_model(50, 50)
    for_class = model.classes_[7]
    path = write_nomogram(model, tmp_path / "nomogram.html", for_class=for_class)
    data = nomogram_data(model, for_class)
    browser.set_window_size(1280, 900)
    browser.get(path.resolve().as_uri())
    _check_legible(browser, 50)
    controls = browser.execute_script(_BOXES, "select, input")
    assert len(controls) == 50
    assert all(b[1] >= a[3] - 1 for a, b in zip(controls, controls[1:]))  # one below the other
    rng = np.random.default_rng(1)
    row = {a["name"]: a["values"][rng.integers(len(a["values"]))] for a in data["attributes"]}
    _pick(browser, model, data, pd.Series(row))
    _check_legible(browser, 50)
    assert all(at is not None and len(picked) == 1 for at, picked in browser.execute_script(_CHOSEN))
    frame = pd.DataFrame({name: [value] for name, value in row.items()})[list(model.feature_names_in_)]
    _shown_probability(browser, model.predict_proba(frame)[0, list(model.classes_).index(for_class)])
