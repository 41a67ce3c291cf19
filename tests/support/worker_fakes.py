"""Scanner factories for the worker-pool tests: quick to start (no trained model) and able to misbehave."""

from __future__ import annotations

import os
import time

from scanner.errors import ModelLoadError, ScanError
from tests.support.scan_fakes import ColourClassifier


class MisbehavingScanner:
    """The scanner with a colour classifier, except for a few magic photos that crash, hang or report."""

    def __init__(self) -> None:
        from scanner.recognizer import KingdomScanner

        self.scanner = KingdomScanner(classifier=ColourClassifier())
        self.calls = 0

    def scan(self, source, grid="auto", name=None):
        self.calls += 1
        if isinstance(source, str):  # magic names (bytes would be checked in the caller first)
            if source == "count":  # which call this is, as the worker saw them come
                raise ScanError(f"call {self.calls}")
            if source == "crash":
                os._exit(3)  # as a segfault in a decoder would end it: no exception, no reply
            if source == "hang":
                time.sleep(60)
            if source == "pause":  # busy for a while, then a quick refusal
                time.sleep(1.5)
                raise ScanError("paused")
            if source == "environment":
                values = [os.environ.get(n, "-") for n in ("MALLOC_ARENA_MAX", "OMP_NUM_THREADS")]
                raise ScanError(f"pid={os.getpid()} " + " ".join(values))
        return self.scanner.scan(source, grid=grid, name=name)


def misbehaving_scanner() -> MisbehavingScanner:
    return MisbehavingScanner()


def missing_model() -> None:
    raise ModelLoadError("the model file model/square_classifier.joblib is missing")
