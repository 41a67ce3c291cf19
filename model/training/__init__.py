"""Training the square classifier from data/real: dataset, augmentation, feature table, estimator menu,
cross-validated fitting and calibration. Not shipped in the wheel: it needs the repository's data."""
