"""Speed and memory benchmark of the photo scanner: ``python -m benchmarks`` (see ``__main__``)."""
