"""Gaussian attributes' parameters and likelihoods (the primer): from merged moments to ``theta``, ``var``
and log N(x; theta, var).

The moments themselves, and their merge by Chan's formula, are a summary
(:mod:`nbparallel.summaries.moments`); this module derives from them and scores.
"""

from __future__ import annotations

import numpy as np

from nbparallel.kernels.scoring import gaussian_log_likelihoods


def gaussian_parameters(moments, var_smoothing):
    """``theta`` (means), ``var`` (variances + epsilon) and ``epsilon``, as scikit-learn's GaussianNB.

    ``var = M2 / n`` (the maximum-likelihood variance) plus
    ``epsilon = var_smoothing * max_j var(x_j)``, the largest variance of a
    Gaussian attribute over all classes. A (class, attribute) with no known
    value has ``var`` NaN and contributes nothing to the likelihood, and so
    does an attribute whose every observed value is the same (see
    :func:`constant_columns`): it tells the classes nothing, and with no
    variance anywhere its density would be infinite or zero.
    """
    n, _, m2 = moments.pooled()
    total_var = np.divide(m2, n, out=np.zeros_like(m2), where=n > 0)
    epsilon = float(var_smoothing * (total_var.max() if total_var.size else 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(moments.n > 0, moments.m2 / moments.n + epsilon, np.nan)
    var[:, constant_columns(moments)] = np.nan
    return moments.mean.copy(), var, epsilon


def constant_columns(moments):
    """The Gaussian attributes observed with one value only (no variance in any class, none between classes)."""
    n, _, m2 = moments.pooled()
    return (n > 0) & (m2 <= 0)


def gaussian_log_likelihood(X, columns, theta, var, constants=None):
    """Sum over the Gaussian attributes (the columns ``columns`` of the float array ``X``) of
    log N(x; theta_k, var_k), shape (n_rows, n_classes), in one compiled pass
    (:func:`nbparallel.kernels.scoring.gaussian_log_likelihoods`).

    A missing value (NaN) or a (class, attribute) without data contributes 0. ``constants``: the
    :func:`~nbparallel.kernels.scoring.gaussian_constants` of ``theta`` and ``var``, when made once.
    """
    return gaussian_log_likelihoods(X, columns, theta, var, constants=constants)
