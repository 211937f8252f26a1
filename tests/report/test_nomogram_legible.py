"""The nomogram stays legible from 2 to 50 attributes and 2 to 50 classes, and on credit-g-like data (far
single-case bins): in the PNG no two texts overlap (measured with matplotlib's renderer), probabilities'
ticks included, and the figure's size is bounded; the HTML page has one control per
attribute whose boxes do not overlap (tests/report/test_nomogram_browser.py measures them in chromium)."""

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import nbparallel as nb
from nbparallel.report import nomogram_data, nomogram_html, plot_nomogram


def wide_model(n_attributes, n_classes, n_rows=2000, seed=0):
    """A NaiveBayes of ``n_attributes`` categorical attributes of 3 to 12 values over ``n_classes``
    classes with long names, each attribute leaning on the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_rows)
    columns = {}
    for j in range(n_attributes):
        n_values = 3 + j % 10
        noise = rng.integers(0, n_values, n_rows)
        columns[f"attribute number {j} with a long name"] = np.where(
            rng.random(n_rows) < 0.3, (y * (j + 1)) % n_values, noise).astype(str)
    frame = pd.DataFrame(columns)
    frame["target"] = np.array([f"class {k} of a long list" for k in range(n_classes)])[y]
    return nb.NaiveBayes().fit(frame, "target")


_CREDIT_CATEGORIES = {
    "checking_status": ["<0", "0<=X<200", ">=200", "no checking"],
    "credit_history": ["no credits/all paid", "all paid", "existing paid", "delayed previously",
                       "critical/other existing credit"],
    "purpose": ["new car", "used car", "furniture/equipment", "radio/tv", "domestic appliance", "repairs",
                "education", "vacation", "retraining", "business"],
    "savings_status": ["<100", "100<=X<500", "500<=X<1000", ">=1000", "no known savings"],
    "employment": ["unemployed", "<1", "1<=X<4", "4<=X<7", ">=7"],
    "personal_status": ["male div/sep", "female div/dep/mar", "male single", "male mar/wid"],
    "other_parties": ["none", "co applicant", "guarantor"],
    "property_magnitude": ["real estate", "life insurance", "car", "no known property"],
    "other_payment_plans": ["bank", "stores", "none"],
    "housing": ["rent", "own", "for free"],
    "job": ["unemp/unskilled non res", "unskilled resident", "skilled", "high qualif/self emp/mgmt"],
    "own_telephone": ["none", "yes"],
    "foreign_worker": ["yes", "no"],
}
_CREDIT_COLUMNS = ["checking_status", "duration", "credit_history", "purpose", "credit_amount", "savings_status",
                   "employment", "installment_commitment", "personal_status", "other_parties", "residence_since",
                   "property_magnitude", "age", "other_payment_plans", "housing", "existing_credits", "job",
                   "num_dependents", "own_telephone", "foreign_worker"]


def credit_like(n_attributes=20, n_rows=1000, seed=0):
    """A frame like credit-g (1000 cases, 70% "good" in the column "class"): its 20 attributes (13
    categorical, 7 numeric), repeated as copies beyond 20, each leaning on the class; the oldest "age" is a
    far single case (175), as credit-g's oldest applicants leave single-case bins at the top of the axis."""
    rng = np.random.default_rng(seed)
    good = rng.random(n_rows) < 0.7
    columns = {}
    for j in range(n_attributes):
        base = _CREDIT_COLUMNS[j % 20]
        name = base if j < 20 else f"{base} (copy {j // 20})"
        lean = (rng.random(n_rows) < 0.25) & good
        if base in _CREDIT_CATEGORIES:
            categories = np.array(_CREDIT_CATEGORIES[base], dtype=object)
            columns[name] = categories[np.where(lean, len(categories) - 1, rng.integers(0, len(categories), n_rows))]
        else:
            x = np.round(rng.gamma(4.0, 8.0, n_rows) + 18 + 6 * good, 1)
            if base == "age":
                x[np.argmax(x)] = 175.0
            columns[name] = x
    frame = pd.DataFrame(columns)
    frame["class"] = np.where(good, "good", "bad")
    return frame


def _boxes(texts, renderer):
    return np.array([[b.x0, b.y0, b.x1, b.y1] for b in (t.get_window_extent(renderer) for t in texts)])


def _overlaps(boxes):
    """Pairs of boxes whose interiors intersect (1 pixel of slack)."""
    x0, y0, x1, y1 = (boxes[:, k] for k in range(4))
    apart = ((x1[:, None] <= x0[None, :] + 1) | (x1[None, :] <= x0[:, None] + 1)
             | (y1[:, None] <= y0[None, :] + 1) | (y1[None, :] <= y0[:, None] + 1))
    np.fill_diagonal(apart, True)
    return np.argwhere(~apart)


@pytest.mark.parametrize("n_attributes, n_classes, credit", [(2, 2, False), (50, 50, False), (50, 2, False),
                                                             (2, 50, False), (20, 2, True), (50, 2, True)])
def test_png_texts_do_not_overlap_and_the_size_is_bounded(n_attributes, n_classes, credit, tmp_path):
    model = nb.NaiveBayes().fit(credit_like(n_attributes), "class") if credit else wide_model(n_attributes, n_classes)
    for_class = model.classes_[len(model.classes_) // 2]
    fig = plot_nomogram(model, for_class=for_class)
    width, height = fig.get_size_inches()
    assert width <= 12 and height <= 0.5 * n_attributes + 4
    renderer = FigureCanvasAgg(fig).get_renderer()
    ax = fig.axes[0]
    values = [t for t in ax.texts if t.get_visible()]
    names = [t for t in ax.get_yticklabels() if t.get_text()]
    assert len(names) == n_attributes
    texts = values + names
    assert _overlaps(_boxes(texts, renderer)).tolist() == []
    probabilities = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    assert _overlaps(_boxes(probabilities, renderer)).tolist() == []
    per_axis = {round(t.xy[1]) for t in values}
    assert per_axis == {-i for i in range(n_attributes)}  # every axis keeps a label
    assert min(t.get_fontsize() for t in texts) >= 6
    fig.savefig(tmp_path / "nomogram.png")


def test_html_of_fifty_attributes_and_classes_has_every_control():
    model = wide_model(50, 50)
    page = nomogram_html(model, for_class=model.classes_[7])
    data = nomogram_data(model, model.classes_[7])
    assert len(data["attributes"]) == 50
    assert all(f'id="attr-{j}"' in page for j in range(50))
    assert len(page) < 2_000_000
