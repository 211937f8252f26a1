"""Checkpoints: the driver-side state of an iterative fit after each pass, as JSON."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from nbparallel.persistence import model_files

CHECKPOINT_FORMAT = "nbparallel-checkpoint"


class Checkpoint:
    """The state of an iterative fit after its last completed pass, as a JSON file.

    Parameters
    ----------
    path : str, PathLike or None
        The file; None disables checkpointing.
    fingerprint : dict
        JSON values identifying the data and the parameters that decide the
        result; a file with a different fingerprint is not resumed from.
    """

    def __init__(self, path, fingerprint):
        self.path = None if path is None else Path(path)
        self.fingerprint = json.loads(json.dumps(fingerprint, default=model_files.json_param))

    @classmethod
    def for_fit(cls, estimator, schema, n_rows, ignore=()):
        """The checkpoint of ``estimator.checkpoint``, fingerprinted by data and parameters.

        Parameters that do not change the result (``checkpoint``, ``verbose``,
        ``n_partitions``, ``split_every``, ``persist``) and those in ``ignore``
        (for example the number of iterations, so that a longer run resumes a
        shorter one) are left out of the fingerprint.
        """
        skipped = {"checkpoint", "verbose", "n_partitions", "split_every", "persist", *ignore}
        params = {k: v for k, v in estimator.get_params().items() if k not in skipped}
        fingerprint = {"estimator": type(estimator).__name__, "params": params,
                       "schema": schema.to_dict(), "n_rows": int(n_rows)}
        return cls(estimator.checkpoint, fingerprint)

    def load(self, restore=None):
        """The saved state, or None when there is no file or it cannot be resumed from.

        Parameters
        ----------
        restore : callable, optional
            ``restore(state)`` checks the saved state and returns what the fit
            resumes from (returned in its place); its ValueError, TypeError or
            KeyError means the file is damaged.

        A file that is not a checkpoint, belongs to other data or parameters,
        or is damaged (wrong digest, values against the format) is not
        resumed from: a warning names it and the fit starts afresh.
        """
        if self.path is None or not self.path.exists():
            return None
        try:
            data = model_files.read_json(self.path, "nbparallel checkpoint")
            if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
                raise ValueError(f"{self.path} is not an nbparallel checkpoint")
            model_files.check_digest(data, self.path, "nbparallel checkpoint")
            if data.get("fingerprint") != self.fingerprint:
                warnings.warn(f"checkpoint {self.path} belongs to other data or parameters; starting afresh",
                              stacklevel=3)
                return None
            if "state" not in data:
                raise ValueError(f"{self.path} is a damaged nbparallel checkpoint file: no 'state'")
            if restore is None:
                return data["state"]
            try:
                return restore(data["state"])
            except (ValueError, TypeError, KeyError, IndexError, ArithmeticError) as exc:
                raise ValueError(f"{self.path} is a damaged nbparallel checkpoint file: {exc}") from None
        except ValueError as exc:
            warnings.warn(f"{exc}; starting afresh", stacklevel=3)
            return None

    def save(self, state):
        """Write ``state`` (JSON values) atomically; nothing when disabled."""
        if self.path is not None:
            model_files.write_json_atomic({"format": CHECKPOINT_FORMAT, "fingerprint": self.fingerprint,
                                  "state": state}, self.path)
