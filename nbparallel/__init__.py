"""nbparallel: parallel and distributed naive Bayes.

Naive Bayes learning is counting: partitions are counted independently into
count tables, merged by a binary tree of Dask tasks, and the model is derived
from the merged counts.
"""

from .counts import CountTable
from .cross_validation import cross_validate
from .engine import run_pass
from .io import load
from .models import AutoClass, BoostedNaiveBayes, NaiveBayes
from .reduce import TreeRecord
from .selection import SelectedNaiveBayes

__version__ = "0.1.0"
__all__ = ["AutoClass", "BoostedNaiveBayes", "CountTable", "NaiveBayes", "SelectedNaiveBayes", "TreeRecord", "cross_validate", "load", "run_pass", "__version__"]
