"""The keys of an ONNX ``LabelEncoder`` that maps a categorical column's strings to its categories' codes."""

import numpy as np

#: the strings a boolean category is read from (a CSV's TRUE/FALSE, Python's True/False, JSON's true/false)
BOOLEAN_SPELLINGS = {True: ("True", "true", "TRUE"), False: ("False", "false", "FALSE")}


def category_keys(categories):
    """``(keys, codes)`` of a categorical column's LabelEncoder: each category's ``str``, and a boolean
    category's every spelling in :data:`BOOLEAN_SPELLINGS`."""
    keys, codes = [], []
    for code, category in enumerate(categories):
        spellings = BOOLEAN_SPELLINGS[bool(category)] if isinstance(category, (bool, np.bool_)) else (str(category),)
        keys += spellings
        codes += [code] * len(spellings)
    return keys, codes
