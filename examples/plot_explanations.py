"""
Explanations and a nomogram
===========================

Explain one prediction of a naive Bayes fitted on scikit-learn's breast-cancer data: each attribute's
evidence (its log-odds ratio) sums, with the priors', to the log-odds of the predicted class, drawn as a
waterfall, alone and beside the model's evidence panels in its report; the nomogram shows every value's
log-odds ratio on one axis per attribute.
"""

import numpy as np
from matplotlib import pyplot as plt
from sklearn.datasets import load_breast_cancer

from nbparallel import NaiveBayes
from nbparallel.report import explained_row, plot_evidence, plot_explanation, plot_nomogram

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
model = NaiveBayes(n_partitions=4).fit(X, y)

evidence = model.explain(X.iloc[:3])
print(evidence.iloc[:, :4].round(3))
log_odds = np.diff(model.predict_log_proba(X.iloc[:3]), axis=1).ravel()
print("evidence summed:", np.round(np.abs(evidence.sum(axis=1).to_numpy()), 3))
print("log-odds:       ", np.round(np.abs(log_odds), 3))


def show(figure):
    """Hand a figure drawn without pyplot to pyplot, so the gallery shows it."""
    canvas = plt.figure().canvas
    canvas.figure = figure
    figure.set_canvas(canvas)


# %%
# The waterfall of the first row's evidence.
show(plot_explanation(model, X.iloc[:1], max_attributes=10))

# %%
# The nomogram of the ten attributes that move the log-odds most.
show(plot_nomogram(model, max_attributes=10))

# %%
# The model's report with one prediction beside its evidence panels: the waterfall of row 12 under the
# attribute ranking (``write_report(model, "report.html", explained=...)`` writes it as a page).
show(plot_evidence(model, max_attributes=4, explained=explained_row(model, X, row=12)))
