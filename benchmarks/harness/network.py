"""The reduce phase over a shaped network: the tree against a flat merge and a chain.

P = 2..8 emulated hosts (:mod:`harness.netns`: a Dask worker per network
namespace, every link shaped to 100 Mbit/s or 1 Gbit/s) each hold one
summary, computed where it lives before the clock starts; only the merges are
timed, until the root is in memory on its host (it is not sent to the client).
Every merge task is pinned to a host so that the placement is the one the
strategy means:

- tree (fan-in k): a group of nodes is merged on the host of its first node,
  so each level's merges run on different hosts, each pulling k - 1 summaries
  through its own link;
- flat: one task on host 0 pulls all P - 1 other summaries through host 0's link;
- chain: a left fold on host 0, pulling one summary per step.

The cost model is :mod:`harness.costmodel`'s critical path with the network's
terms measured separately, before the strategies run (nothing is fitted to the
times it predicts)::

    T = rounds * a + transfers * (alpha + beta * m) + additions * mu * m

``rounds`` are dependent merge tasks on the critical path, ``transfers`` the
summaries of ``m`` bytes pulled through one link on it (P - 1 for flat and
chain, sum of (fan-in - 1) over the tree's levels), ``additions`` the
element-wise adds on it (the same count); ``a`` is a task round trip with local
data, ``alpha`` and ``beta`` the link's latency and seconds per byte (a
transfer of 1 KiB to 16 MiB between two hosts, least squares), ``mu`` the
seconds per byte of one add on a worker. A refit of the same four terms to the
measured times (non-negative least squares on relative errors) is stored
beside it.
"""

from __future__ import annotations

import math
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy.optimize import nnls

from nbparallel.engine.reduce import plan

from .report import Result, Target

#: label -> shape of the float64 summary
SIZES = {"small": (20, 10, 2), "large": (2**18, 20)}
QUICK_SIZES = {"small": (20, 10, 2), "large": (2**14, 20)}
RATES = ("100mbit", "1gbit")
STRATEGIES = {"tree k=2": 2, "tree k=4": 4, "flat": False, "chain": None}
PROBE_BYTES = (1024, 2**20, 4 * 2**20, 16 * 2**20)

#: No faults here: Dask's default patience, so that a loaded machine or a link saturated for
#: seconds by a flat merge is never taken for a dead worker.
PATIENT = {"distributed.scheduler.worker-ttl": "300s", "distributed.comm.timeouts.connect": "30s",
           "distributed.comm.timeouts.tcp": "120s"}


# functions that run on the emulated hosts ----------------------------------------------
def make_summary(shape, seed):
    """A summary: float64 counts of ``shape``."""
    return np.random.default_rng(seed).integers(0, 100, size=shape).astype(np.float64)


def merge(*summaries):
    """Element-wise sum, left to right."""
    out = summaries[0].copy()
    for s in summaries[1:]:
        out += s
    return out


def payload(n_bytes, seed):
    """A byte array of ``n_bytes`` (random, so nothing compresses it)."""
    return np.random.default_rng(seed).integers(0, 255, size=n_bytes, dtype=np.uint8)


def same(x):
    return x


def n_bytes_of(x):
    return int(x.nbytes)


def time_adds(shape, repeat=5):
    """Seconds per byte of one ``+=`` of two summaries of ``shape``, on this worker."""
    a, b = make_summary(shape, 0), make_summary(shape, 1)
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        a += b
        best = min(best, time.perf_counter() - start)
    return best / a.nbytes


# the critical path -----------------------------------------------------------------------
def critical_path(strategy, P):
    """(rounds, transfers, additions) on the critical path of a pinned reduction of P summaries.

    >>> [critical_path(s, 8) for s in ("tree k=2", "tree k=4", "flat", "chain")]
    [(3, 3, 3), (2, 4, 4), (1, 7, 7), (7, 7, 7)]
    """
    k = STRATEGIES[strategy]
    if k is None:
        return P - 1, P - 1, P - 1
    levels, _ = plan(P, k)
    widest = [max(b - a for a, b in groups) - 1 for groups in levels]
    return len(levels), sum(widest), sum(widest)


def predict(coef, rounds, transfers, additions, m):
    """Seconds the model gives: ``coef`` = (a, alpha, beta, mu)."""
    a, alpha, beta, mu = coef
    return rounds * a + transfers * (alpha + beta * m) + additions * mu * m


# measurement -----------------------------------------------------------------------------
def _pinned(client, host, fn, *args):
    return client.submit(fn, *args, workers=[host], allow_other_workers=False, pure=False)


def _reduce(client, hosts, leaves, strategy):
    """Submit the strategy's merges, pinned; wait for the root; return seconds."""
    from distributed import wait

    k = STRATEGIES[strategy]
    start = time.perf_counter()
    if k is None:
        acc = leaves[0]
        for leaf in leaves[1:]:
            acc = _pinned(client, hosts[0], merge, acc, leaf)
        root, made = acc, None
    else:
        levels, _ = plan(len(leaves), k)
        nodes = [(leaf, hosts[i]) for i, leaf in enumerate(leaves)]
        made = []
        for groups in levels:
            nodes = [nodes[a] if b - a == 1 else
                     (_pinned(client, nodes[a][1], merge, *[f for f, _ in nodes[a:b]]), nodes[a][1])
                     for a, b in groups]
            made += [f for f, _ in nodes]
        root = nodes[0][0]
    wait(root)
    seconds = time.perf_counter() - start
    if root.status != "finished":
        raise RuntimeError(f"{strategy}: the reduction failed: {root.exception()}")
    del made, root
    return seconds


def _leaves(client, hosts, shape, P):
    """Summary i made on host i, fresh for every timed reduction: a merge leaves a copy of
    each summary it pulled on its host, which would spare the next reduction the transfer."""
    from distributed import wait

    leaves = [_pinned(client, hosts[i], make_summary, shape, i) for i in range(P)]
    wait(leaves)
    return leaves


def _probe_link(client, hosts, repeat):
    """(a, alpha, beta): a task round trip with local data, and the link's latency and s/byte."""
    from distributed import wait

    local, remote = [], []
    for n in PROBE_BYTES:
        for where, out in ((hosts[0], local), (hosts[1], remote)):
            best = math.inf
            for i in range(repeat):
                data = _pinned(client, hosts[0], payload, n, i)  # fresh: no copy on the other host yet
                wait(data)
                start = time.perf_counter()
                _pinned(client, where, n_bytes_of, data).result()
                best = min(best, time.perf_counter() - start)
                del data
            out.append(best)
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        acc = _pinned(client, hosts[0], payload, 8, 0)
        for _ in range(10):
            acc = _pinned(client, hosts[0], same, acc)
        wait(acc)
        rounds.append((time.perf_counter() - start) / 11)
        del acc
    a = float(np.median(rounds))  # a dependent task with its data local
    extra = np.array(remote) - np.array(local)
    beta, alpha = np.polyfit(np.array(PROBE_BYTES, dtype=float), extra, 1)
    return a, max(float(alpha), 0.0), float(beta), list(zip(PROBE_BYTES, local, remote))


def _measure(ctx, hosts_cluster, client):
    sizes = QUICK_SIZES if ctx.quick else SIZES
    partitions = (2, 4) if ctx.quick else tuple(range(2, hosts_cluster.n_workers + 1))
    hosts = hosts_cluster.worker_addresses
    records, links = [], {}
    mu = float(np.median(list(client.run(time_adds, sizes["large"]).values())))
    for rate in RATES:
        hosts_cluster.shape_all(rate)
        a, alpha, beta, probes = _probe_link(client, hosts, 2 if ctx.quick else 5)
        links[rate] = {"a_s": a, "alpha_s": alpha, "beta_s_per_byte": beta,
                       "nominal_beta_s_per_byte": 8 / _bits(rate), "mu_s_per_byte": mu,
                       "probes": [{"bytes": n, "local_s": lo, "remote_s": re} for n, lo, re in probes]}
        for label, shape in sizes.items():
            m = int(np.prod(shape)) * 8
            slow = m * beta > 1.0
            repeat = 1 if (ctx.quick or slow) else 3
            for P in partitions:
                for strategy in STRATEGIES:
                    times = [_reduce(client, hosts, _leaves(client, hosts, shape, P), strategy)
                             for _ in range(repeat)]
                    rounds, transfers, additions = critical_path(strategy, P)
                    records.append({
                        "rate": rate, "size": label, "summary_bytes": m, "hosts": P, "strategy": strategy,
                        "rounds": rounds, "transfers": transfers, "additions": additions,
                        "best_s": min(times), "median_s": float(np.median(times)), "repeat": repeat,
                        "model_s": predict((a, alpha, beta, mu), rounds, transfers, additions, m)})
    return pd.DataFrame(records), links


def _bits(rate):
    from .netns import parse_rate

    return parse_rate(rate)


def _refit(rows):
    """Non-negative least squares of (a, alpha, beta, mu) on relative errors, per rate."""
    out = {}
    for rate, part in rows.groupby("rate"):
        m = part["summary_bytes"].to_numpy(float)
        features = np.column_stack([part["rounds"], part["transfers"], part["transfers"] * m,
                                    part["additions"] * m])
        seconds = part["best_s"].to_numpy()
        coef, _ = nnls(features / seconds[:, None], np.ones(len(seconds)))
        rows.loc[part.index, "refit_s"] = features @ coef
        out[rate] = dict(zip(("a_s", "alpha_s", "beta_s_per_byte", "mu_s_per_byte"), map(float, coef)))
    return out


def run(ctx):
    """Start 8 emulated hosts (4 for --quick), time every strategy, write the results."""
    from distributed import Client

    from .netns import EmulatedHosts, available

    ok, why = available()
    if not ok:
        raise RuntimeError(f"network namespaces are not available here: {why}")
    notes = []
    if ctx.client is not None:
        notes.append("the --scheduler/--cluster given was not used: this experiment starts its own emulated hosts")
    n_hosts = 4 if ctx.quick else 8
    with EmulatedHosts(n_hosts, rate=RATES[0], memory_limit="1.5GiB", dask_config=PATIENT) as hosts_cluster, \
            Client(hosts_cluster.address) as client:
        rows, links = _measure(ctx, hosts_cluster, client)
    rows["model_error"] = rows["model_s"] / rows["best_s"] - 1
    refit = _refit(rows)
    rows["refit_error"] = rows["refit_s"] / rows["best_s"] - 1

    for rate, link in links.items():
        notes.append(f"{rate}: task round trip a = {link['a_s'] * 1e3:.2f} ms, link alpha = "
                     f"{link['alpha_s'] * 1e3:.2f} ms, beta = {link['beta_s_per_byte'] * 1e9:.2f} ns/B "
                     f"(nominal {link['nominal_beta_s_per_byte'] * 1e9:.2f}), add mu = "
                     f"{link['mu_s_per_byte'] * 1e9:.3f} ns/B")
    for (label, rate), part in rows.groupby(["size", "rate"], sort=False):
        err = part["model_error"].abs()
        notes.append(f"model error, {label} summaries over {rate}: median {err.median():.1%}, max {err.max():.1%} "
                     f"({len(part)} points); refit: median {part['refit_error'].abs().median():.1%}, "
                     f"max {part['refit_error'].abs().max():.1%}")
    notes.append("the model's network terms are measured between two hosts; at 1 Gbit/s the tree's concurrent "
                 "transfers (P/2 at once on the first level) need more CPU for TCP over veth and (de)serialisation "
                 "than 2 shared cores give, and small summaries take a few ms, the scheduler's own latency on "
                 "a loaded machine: the model is a network model, checked where the network dominates")
    targets = []
    big = rows[(rows["size"] == "large") & (rows["rate"] == "100mbit")]
    P = big["hosts"].max()
    at = big[big["hosts"] == P].set_index("strategy")["best_s"]
    if not ctx.quick:
        targets.append(Target(f"P = {P}, large summaries, 100 Mbit/s: flat merge / tree k=2 reduction time",
                              at["flat"] / at["tree k=2"], 2.0, at_most=False))
        targets.append(Target(f"cost model vs measured, large summaries over 100 Mbit/s, P = 2..{P}, every "
                              f"strategy: 1 + largest |error|", 1 + big["model_error"].abs().max(), 1.25,
                              at_most=True))
    else:
        notes.append(f"quick: P = 2 and 4 on 4 hosts, 'large' = {QUICK_SIZES['large']}; no targets")
    return Result("network", rows, _summary(rows), _plot,
                  {"sizes": {k: list(v) for k, v in (QUICK_SIZES if ctx.quick else SIZES).items()},
                   "rates": list(RATES), "hosts": n_hosts, "links": links, "refit": refit,
                   "placement": "every merge pinned to a host (worker restrictions), see module doc"},
                  targets=targets, notes=notes)


def _summary(rows):
    P = rows["hosts"].max()
    part = rows[rows["hosts"] == P]
    table = part.pivot_table(index=["rate", "size"], columns="strategy", values="best_s", sort=False)
    model = part.pivot_table(index=["rate", "size"], columns="strategy", values="model_s", sort=False)
    out = pd.DataFrame(index=table.index)
    for strategy in STRATEGIES:
        out[f"{strategy} s"] = table[strategy]
        out[f"{strategy} model s"] = model[strategy]
    out["flat / tree k=2"] = table["flat"] / table["tree k=2"]
    out["chain / tree k=2"] = table["chain"] / table["tree k=2"]
    out = out.reset_index()
    out.insert(0, "hosts", P)
    return out


def _plot(rows):
    rates = list(dict.fromkeys(rows["rate"]))
    sizes = list(dict.fromkeys(rows["size"]))
    figure, axes = plt.subplots(len(sizes), len(rates), figsize=(5.5 * len(rates), 4 * len(sizes)),
                                squeeze=False)
    for r, size in enumerate(sizes):
        for c, rate in enumerate(rates):
            ax = axes[r][c]
            part = rows[(rows["size"] == size) & (rows["rate"] == rate)]
            for i, (strategy, group) in enumerate(part.groupby("strategy", sort=False)):
                color = f"C{i}"
                ax.plot(group["hosts"], group["best_s"], "o", color=color, label=f"{strategy} measured")
                ax.plot(group["hosts"], group["model_s"], "-", color=color, alpha=0.7, label=f"{strategy} model")
            ax.set(title=f"{size} summaries ({part['summary_bytes'].iloc[0]:,} B), {rate} links",
                   xlabel="emulated hosts P", ylabel="reduction seconds")
            ax.legend(fontsize=7)
    figure.tight_layout()
    return figure
