"""
Counting on a Dask cluster
==========================

With a ``distributed.Client`` open, the passes run on the cluster's workers; here a LocalCluster in this
process. The model is the same as the one fitted without a cluster.
"""

import numpy as np
from dask.distributed import Client, LocalCluster
from sklearn.datasets import load_digits

from nbparallel import NaiveBayes, local_below

X, y = load_digits(return_X_y=True)

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
        Client(cluster) as client, local_below(0):
    on_cluster = NaiveBayes(n_partitions=8, categorical_features="all").fit(X, y)
    print("workers:", len(client.scheduler_info()["workers"]))
    print("reduction tree:", on_cluster.reduction_)

local = NaiveBayes(n_partitions=1, categorical_features="all").fit(X, y)
print("same class log-priors as a one-partition local fit:",
      np.array_equal(on_cluster.class_log_prior_, local.class_log_prior_))
print("training accuracy:", round(on_cluster.score(X, y), 4))
