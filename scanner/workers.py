"""Scans in a pool of worker processes, so that every core reads photos and the caller only waits.

Each worker loads the square classifier once, then reads photos sent over its own pipe; the calling
thread (a page session or the CLI) blocks on that pipe without holding the interpreter lock. A result
comes back without the full decoded photo: ``ScanResult.image`` is a display-sized copy (its
``grid_to_image`` scaled to match), so ``overlay`` still draws the lattice on the photo; or, with
``PoolSettings.finish``, whatever that function makes of the result in the worker (the page's small
record with its images already encoded). Typed errors (``PhotoError``, ``KingdomNotFoundError`` with
its overlay, ...) come back as they were raised.

A worker that dies mid-scan costs only that scan: its caller gets a one-line ``WorkerCrashedError``
and a fresh worker takes its place. Workers retire after ``max_tasks_per_worker`` scans or once their
resident memory passes ``max_worker_rss_mb``, and run with ``MALLOC_ARENA_MAX`` set; a worker hands its
free heap back to the system once no photo has come for ``trim_after_idle_s``, so the memory a burst of
large photos took goes back while scans in a row reuse it instead of faulting it in again.
"""

from __future__ import annotations

import ctypes
import gc
import os
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from scanner.errors import ModelLoadError, ScanError

#: Environment every worker starts with: few malloc arenas (glibc otherwise keeps one per thread that
#: ever allocated, and returns little of them) and one thread per numeric library, since the pool
#: itself already gives each core its own scan.
WORKER_ENVIRONMENT = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


@dataclass(frozen=True)
class PoolSettings:
    """How many workers, how long they live and what they hand back."""

    #: Worker processes; None sizes the pool from the usable cores and the available memory.
    workers: int | None = None
    #: Memory reserved per worker when sizing the pool (the model plus the peak of one large scan).
    memory_per_worker_mb: int = 600
    #: A worker retires after this many scans ...
    max_tasks_per_worker: int = 500
    #: ... or as soon as its resident memory after a scan is over this.
    max_worker_rss_mb: int = 700
    #: glibc malloc arenas per worker (MALLOC_ARENA_MAX).
    malloc_arena_max: int = 2
    #: OpenCV threads per worker.
    opencv_threads: int = 1
    #: A scan taking longer than this is abandoned and its worker replaced.
    scan_timeout_s: float = 120.0
    #: Time a worker may take to start and load the model.
    start_timeout_s: float = 180.0
    #: Longest side of the photo copy a result carries (the page draws its overlay at this size).
    display_side: int = 1600
    #: Run in the worker on each ScanResult, and its return value sent back instead (a module-level
    #: function, so it pickles by name); None sends the result with its photo at ``display_side``.
    finish: Callable[[Any], Any] | None = None
    #: A worker returns its free heap to the system after this long without a photo (not after every
    #: scan: the next one would fault the same pages in again, in system time).
    trim_after_idle_s: float = 1.0


class WorkerCrashedError(ScanError):
    """The worker reading this photo ended unexpectedly or was stopped for taking too long; it has been
    replaced. Not a verdict on the photo, so not worth caching."""


CRASHED = (
    "the scanner stopped unexpectedly while reading this photo (it has been restarted); "
    "try again, or send another photo"
)
TIMED_OUT = "reading this photo took more than {seconds:.0f} s, so it was stopped; send another photo"


def pool_size(settings: PoolSettings = PoolSettings()) -> int:
    """Workers for this machine: one per usable core, fewer when memory is short; at least one."""
    if settings.workers is not None:
        return max(1, settings.workers)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    available = available_memory_mb()
    by_memory = cores if available is None else available // max(1, settings.memory_per_worker_mb)
    return max(1, min(cores, by_memory))


def available_memory_mb() -> int | None:
    """MemAvailable from /proc/meminfo, in MB (None where there is no /proc)."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process in MB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def default_scanner() -> Any:
    """The worker's scanner: the shipped model, loaded once."""
    from scanner.recognizer import KingdomScanner

    return KingdomScanner()


def for_display(result: Any, max_side: int) -> Any:
    """The result with ``image`` shrunk to ``max_side`` (and ``grid_to_image`` to match); the same
    resize ``draw_lattice`` makes, so its overlay comes out pixel for pixel as from the full copy."""
    import cv2

    image = result.image
    scale = min(1.0, max_side / max(image.shape[:2]))
    if scale >= 1.0:
        return result
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    to_small = np.diag([scale, scale, 1.0]) @ np.asarray(result.grid_to_image, float)
    return replace(result, image=small, grid_to_image=to_small)


# --- the worker process ------------------------------------------------------------------------


def _worker_main(descriptor: int) -> None:
    """Load the scanner, then answer (source, grid, name) requests until told to stop or orphaned.

    The first message is the parent's import path (so the factory resolves to the same code), the
    second the scanner factory and the settings.
    """
    connection = Connection(descriptor)
    try:
        sys.path[:] = connection.recv()
        factory, settings = connection.recv()
        import cv2

        cv2.setNumThreads(settings.opencv_threads)
        scanner = factory()
        # the model and the modules live as long as the worker: the collector need not walk them again
        gc.freeze()
    except BaseException as error:  # noqa: BLE001 - the pool reports why no worker could start
        connection.send(("failed", _one_line(error)))
        return
    connection.send(("ready", os.getpid()))
    done = 0
    while True:
        try:
            if done and not connection.poll(settings.trim_after_idle_s):
                _release_free_memory()  # idle: the heap the last scans used goes back to the system
            request = connection.recv()
        except (EOFError, OSError):  # the pool (or the whole server) went away
            return
        if request is None:
            return
        reply = _scan_one(scanner, request, settings)
        del request
        done += 1
        retire = done >= settings.max_tasks_per_worker or rss_mb() > settings.max_worker_rss_mb
        try:
            connection.send((*reply, retire))
        except Exception as error:  # noqa: BLE001 - e.g. an unpicklable error: still one clear line
            connection.send(("error", ScanError(f"the scan result could not be returned ({error})"), retire))
        if retire:
            return


def _scan_one(scanner: Any, request: tuple, settings: PoolSettings) -> tuple[str, Any]:
    source, grid, name, corners = request
    try:
        # a frame placed by hand is read as given; otherwise the scanner looks for the kingdom
        extra = {} if corners is None else {"corners": corners}
        result = scanner.scan(source, grid=grid, name=name, **extra)
        if settings.finish is not None:
            return "ok", settings.finish(result)
        return "ok", for_display(result, settings.display_side)
    except ScanError as error:
        return "error", error
    except MemoryError:
        return "error", ScanError("not enough memory to read this photo; try a smaller one")
    except Exception as error:  # noqa: BLE001 - a scanner bug: logged in full, one line for the player
        traceback.print_exc(file=sys.stderr)
        return "error", ScanError(f"the scanner failed on this photo ({type(error).__name__})")


def _release_free_memory() -> None:
    """Hand the heap's free pages back to the system (glibc keeps them otherwise)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8  # glibc mallopt parameters


def limit_heap_growth(arenas: int = 2, mmap_threshold_mb: int = 1) -> bool:
    """For a long-running server that holds scan results (the page): at most ``arenas`` malloc arenas
    from now on, and blocks of ``mmap_threshold_mb`` or more (photos, images) mapped on their own so
    they go back to the system when freed, instead of glibc raising that threshold and fragmenting the
    heap with them. False where glibc is not there to ask."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        done = libc.mallopt(_M_ARENA_MAX, arenas) == 1
        return libc.mallopt(_M_MMAP_THRESHOLD, mmap_threshold_mb * 2**20) == 1 and done
    except (OSError, AttributeError):
        return False


def _one_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# --- the pool ----------------------------------------------------------------------------------


def _import_path() -> list[str]:
    """The parent's sys.path, its current directory ('') made absolute."""
    return [path or os.getcwd() for path in sys.path]


class _Turn:
    """A caller's place in line for a worker; ``ready`` is set once ``worker`` is theirs."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.worker: _Worker | None = None


@dataclass(eq=False)
class _Worker:
    process: subprocess.Popen
    connection: Connection

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, wait: float) -> None:
        """Wait up to ``wait`` seconds for the process to end, then kill it."""
        try:
            self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class ScanPool:
    """``scan`` sends a photo to the next free worker and waits for its result (thread-safe).

    Construction starts the workers and waits until they have loaded the model; it raises
    ModelLoadError with the worker's reason when none can start.
    """

    def __init__(
        self, settings: PoolSettings = PoolSettings(), scanner_factory: Callable[[], Any] = default_scanner
    ) -> None:
        self.settings = settings
        self.size = pool_size(settings)
        self._factory = scanner_factory
        self._idle: deque[_Worker] = deque()
        self._line: deque[_Turn] = deque()  # callers waiting for a worker, first come first served
        self._lock = threading.Lock()
        self._workers: set[_Worker] = set()
        self._starting = 0
        self._start_error = ""
        self._closed = False
        self.crashes = 0
        self.retired = 0
        self._last_trim = 0.0
        starters = [threading.Thread(target=self._start_worker, daemon=True) for _ in range(self.size)]
        with self._lock:
            self._starting += len(starters)
        for thread in starters:
            thread.start()
        for thread in starters:
            thread.join()
        if not self._workers:
            raise ModelLoadError(self._start_error or "no scanner worker could start")

    # public ------------------------------------------------------------------------------------

    def scan(
        self,
        source: str | Path | bytes | np.ndarray,
        grid: int | str = "auto",
        name: str | None = None,
        corners: Any = None,
    ):
        """Read one photo in a worker: a ScanResult, or the ScanError subclass the scanner raised.
        ``corners``: a frame placed by hand (see KingdomScanner.scan)."""
        if isinstance(source, Path):
            source = str(source)
        elif isinstance(source, bytearray | memoryview):
            source = bytes(source)
        if isinstance(source, bytes):  # what the header alone refuses is answered at once, not queued
            from scanner.imageio import DECODE_MAX_SIDE, check_photo

            check_photo(source, max_side=DECODE_MAX_SIDE)
        worker = self._take()
        try:
            worker.connection.send((source, grid, name, corners))
            status, payload, retire = self._reply(worker)
        except TimeoutError:
            self._discard(worker, crashed=True)
            raise WorkerCrashedError(TIMED_OUT.format(seconds=self.settings.scan_timeout_s)) from None
        except (EOFError, OSError, ValueError):  # the worker died: its pipe closed under us
            self._discard(worker, crashed=True)
            raise WorkerCrashedError(CRASHED) from None
        if retire:
            self._discard(worker, crashed=False)
        else:
            self._give(worker)
        self._trim_caller()
        if status == "ok":
            return payload
        raise payload

    def scan_many(
        self, sources: Iterable[Any], grid: int | str = "auto", names: Iterable[str | None] | None = None
    ) -> Iterator[Any]:
        """Scan every source across the pool; yields a ScanResult or a ScanError per source, in order."""
        sources = list(sources)
        labels = list(names) if names is not None else [None] * len(sources)
        with ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="scan") as threads:
            futures = [
                threads.submit(self._result_or_error, source, grid, label)
                for source, label in zip(sources, labels, strict=True)
            ]
            for future in futures:
                yield future.result()

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [worker.process.pid for worker in self._workers if worker.alive()]

    def close(self) -> None:
        """Stop every worker (idle ones at once; busy ones when their scan ends or on exit)."""
        with self._lock:
            self._closed = True
            workers = list(self._workers)
            self._workers.clear()
        for worker in workers:
            try:
                worker.connection.send(None)
            except (OSError, ValueError):
                pass
        for worker in workers:
            worker.stop(wait=5)
            worker.connection.close()

    def __enter__(self) -> ScanPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # internals ---------------------------------------------------------------------------------

    def _trim_caller(self) -> None:
        """Return this process's freed heap to the system now and then (the photo bytes and pickles of
        each scan passed through it)."""
        now = time.monotonic()
        with self._lock:
            if now - self._last_trim < 2.0:
                return
            self._last_trim = now
        _release_free_memory()

    def _result_or_error(self, source: Any, grid: int | str, name: str | None) -> Any:
        try:
            return self.scan(source, grid=grid, name=name)
        except ScanError as error:
            return error

    def _take(self) -> _Worker:
        """The next free worker, callers served in the order they came (a queue's timed waits would let
        a later caller overtake one that has waited longer)."""
        with self._lock:
            if self._idle:
                return self._idle.popleft()
            turn = _Turn()
            self._line.append(turn)
        while not turn.ready.wait(0.5):
            with self._lock:
                if turn.worker is not None:
                    break
                reason = self._unavailable()
                if reason:
                    self._line.remove(turn)
                    raise ScanError(reason)
        assert turn.worker is not None
        return turn.worker

    def _give(self, worker: _Worker) -> None:
        """A free worker goes to the caller that has waited longest, or waits for the next one."""
        with self._lock:
            if self._line:
                turn = self._line.popleft()
                turn.worker = worker
                turn.ready.set()
            else:
                self._idle.append(worker)

    def _unavailable(self) -> str:
        """Why no worker will come (called with the lock held); '' while one may."""
        if self._closed:
            return "the scanner is shutting down; try again in a moment"
        if not self._workers and not self._starting:
            reason = self._start_error or "no scanner worker is running"
            return f"the photo scanner could not start ({reason})"
        return ""

    def _reply(self, worker: _Worker) -> tuple[str, Any, bool]:
        deadline = time.monotonic() + self.settings.scan_timeout_s
        while not worker.connection.poll(min(1.0, max(0.0, deadline - time.monotonic()))):
            if not worker.alive():
                raise EOFError
            if time.monotonic() >= deadline:
                raise TimeoutError
        return worker.connection.recv()

    def _discard(self, worker: _Worker, crashed: bool) -> None:
        """Drop a worker (crashed, hung or retiring) and start a fresh one in the background."""
        with self._lock:
            self._workers.discard(worker)
            if crashed:
                self.crashes += 1
            else:
                self.retired += 1
            if self._closed:
                return
            self._starting += 1
        threading.Thread(target=self._retire_then_start, args=(worker,), daemon=True).start()

    def _retire_then_start(self, worker: _Worker) -> None:
        worker.connection.close()  # a retiring worker has already left; a hung one reads EOF
        worker.stop(wait=2)
        self._start_worker()

    def _start_worker(self) -> None:
        """Start one worker and wait for its model to load (called with ``_starting`` counted).

        A fresh interpreter (not multiprocessing's spawn, which would re-import the server's main
        module, e.g. Streamlit, into every worker) talking over a socket pair.
        """
        worker = None
        try:
            ours, theirs = socket.socketpair()
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    f"from scanner.workers import _worker_main; _worker_main({theirs.fileno()})",
                ],
                pass_fds=[theirs.fileno()],
                env={**os.environ, **self._worker_environment()},
                stdin=subprocess.DEVNULL,
            )
            theirs.close()
            worker = _Worker(process, Connection(ours.detach()))
            worker.connection.send(_import_path())
            worker.connection.send((self._factory, self.settings))
            if not worker.connection.poll(self.settings.start_timeout_s):
                raise ModelLoadError("a scanner worker took too long to start")
            status, detail = worker.connection.recv()
            if status != "ready":
                raise ModelLoadError(detail)
        except (ModelLoadError, EOFError, OSError) as error:
            reason = "a scanner worker ended at start" if isinstance(error, EOFError) else _one_line(error)
            with self._lock:
                self._start_error = reason
                self._starting -= 1
            if worker is not None:
                worker.process.kill()
                worker.stop(wait=5)
                worker.connection.close()
            return
        with self._lock:
            self._starting -= 1
            if self._closed:
                worker.connection.send(None)
                return
            self._workers.add(worker)
        self._give(worker)

    def _worker_environment(self) -> dict[str, str]:
        path = os.pathsep.join(_import_path())  # the scanner package the parent uses
        return {
            **WORKER_ENVIRONMENT,
            "MALLOC_ARENA_MAX": str(self.settings.malloc_arena_max),
            "PYTHONPATH": path,
        }
