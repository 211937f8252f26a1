"""The HTML nomogram in a real browser (Debian's chromium and chromedriver, driven by selenium): values
picked on the page give the posterior predict_proba gives for that row, to 1e-6. It fails, not skips,
when the browser is missing: CI installs it (.ci/run)."""

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


@pytest.fixture(scope="module")
def browser():
    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
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
