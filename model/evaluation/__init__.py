"""Measuring the square classifier: grouped cross-validation figures, the model card, the label audit.
Not shipped in the wheel."""
