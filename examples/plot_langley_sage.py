"""
A Langley-Sage learning curve at small R
========================================

Langley and Sage's average-case analysis predicts naive Bayes' expected accuracy after n training cases
for a 'q of r' concept with i irrelevant attributes. The experiment runs R independent training sets on
the engine; at small R its mean scatters around the predicted curve.
"""

import matplotlib.pyplot as plt

from nbparallel.analysis import Domain, learning_curves

domain = Domain(2, 2, 1)
curve = learning_curves([domain], n_max=15, runs=100, seed=0)[0]
print({key: [round(float(v), 3) for v in curve[key][:5]] for key in ("n", "theory", "mean")})

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(curve["n"], curve["theory"], label="analysis")
ax.errorbar(curve["n"], curve["mean"], yerr=[curve["mean"] - curve["ci_low"], curve["ci_high"] - curve["mean"]],
            fmt="o", label="experiment, R = 100")
ax.set_xlabel("training cases n")
ax.set_ylabel("accuracy")
ax.set_title("'2 of 2' concept, one irrelevant attribute")
ax.legend()
fig.tight_layout()
