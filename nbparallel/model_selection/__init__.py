"""Model selection as passes: exact k-fold cross-validation and SPSS forward feature selection."""
