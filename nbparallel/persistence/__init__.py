"""Model files and checkpoints: versioned JSON with a SHA-256 digest, written atomically, validated on load.

This layer knows the file format, not the models: each model writes and reads
its own fitted state, and :mod:`nbparallel.loading` maps a file's estimator name
to its class.
"""
