"""The one error of the model package: the shipped model file cannot be used."""


class ModelLoadError(Exception):
    """The trained model file is missing, damaged or was saved by another scikit-learn version."""
