"""kingdomino-scanner: read a photographed Kingdomino kingdom and score it."""

__version__ = "0.1.0"
