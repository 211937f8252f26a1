"""Documents to a count matrix, for the text models: words hashed by scikit-learn's ``HashingVectorizer``.

A corpus is a text file (one document per line), a directory of class
directories of text files (``CLASS/DOCUMENT``, the labels from the directory
names), or a ``scipy.sparse.save_npz`` count matrix (rows are documents).
Words are hashed into ``n_features`` columns by
``HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None)``,
so a model fitted on one corpus scores another hashed the same way, and no
vocabulary is kept: :func:`hashed_words` names the columns from a corpus's
own words where a person wants to read them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

#: The columns of a hashed count matrix, unless the caller says otherwise.
DEFAULT_N_FEATURES = 2**18


def hashing_vectorizer(n_features=DEFAULT_N_FEATURES):
    """The ``HashingVectorizer`` every corpus is hashed by: raw counts, no signs, no normalisation."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None)


def _texts(path):
    """The documents of a text file or of a directory of class directories, and the labels (or None)."""
    if path.is_dir():
        files = sorted(f for f in path.glob("*/*") if f.is_file())
        if not files:
            raise ValueError(f"directory {str(path)!r} holds no CLASS/DOCUMENT files")
        docs = [f.read_text(encoding="utf-8", errors="replace") for f in files]
        return docs, np.array([f.parent.name for f in files])
    return path.read_text(encoding="utf-8").splitlines(), None


def _existing(path):
    path = Path(path)
    if not path.exists():
        raise ValueError(f"data path {str(path)!r} does not exist")
    return path


def read_documents(path, n_features=DEFAULT_N_FEATURES):
    """A count matrix of documents and their labels (None when the corpus has none).

    Parameters
    ----------
    path : str or PathLike
        A text file (one document per line), a directory of ``CLASS/DOCUMENT``
        text files (labels from the directory names), or a ``.npz`` file of a
        ``scipy.sparse`` matrix (kept as it is; ``n_features`` is not checked).
    n_features : int
        Hashed columns of text.

    Returns
    -------
    X : scipy.sparse matrix, shape (n_documents, n_features)
    y : ndarray of str or None
        The class directories' names, for a directory.
    """
    path = _existing(path)
    if path.suffix == ".npz":
        import scipy.sparse as sp

        return sp.load_npz(path), None
    docs, y = _texts(path)
    return hashing_vectorizer(n_features).transform(docs), y


def read_labels(path):
    """Class labels, one line of a text file each, as an array of str."""
    return np.array(Path(path).read_text(encoding="utf-8").splitlines())


def hashed_words(path, n_features=DEFAULT_N_FEATURES):
    """Which words of a corpus land in which hashed column: ``{column: [word, ...]}``, most frequent first.

    ``path`` is a text file or a directory of class directories, as for
    :func:`read_documents`. Only columns some word of the corpus hashes to
    are keys.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = Path(d, "docs.txt").write_text("cats purr\\ncats sleep")
    ...     words = hashed_words(Path(d, "docs.txt"), 2**10)
    >>> sorted(w for ws in words.values() for w in ws)
    ['cats', 'purr', 'sleep']
    """
    from sklearn.feature_extraction.text import CountVectorizer

    path = _existing(path)
    if path.suffix == ".npz":
        raise ValueError(f"{str(path)!r} is a count matrix: it has no words to name the columns by")
    docs, _ = _texts(path)
    vectorizer = hashing_vectorizer(n_features)
    counter = CountVectorizer(**{k: v for k, v in vectorizer.get_params().items()
                                 if k in CountVectorizer().get_params()})
    try:
        counts = np.asarray(counter.fit_transform(docs).sum(axis=0)).ravel()
    except ValueError:  # an empty vocabulary: no words at all
        return {}
    vocabulary = counter.get_feature_names_out()
    columns = vectorizer.transform(vocabulary).indices  # one word per row: its column
    words = {}
    for j in np.argsort(-counts, kind="stable"):
        words.setdefault(int(columns[j]), []).append(str(vocabulary[j]))
    return words
