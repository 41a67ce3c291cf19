"""The square classifier: features, training, evaluation and the trained model file."""
