"""``python -m benchmarks.load --users 8 --rounds 15 --photos 3``: many players uploading at the same moment.

Starts ``streamlit run app.py`` headless on a free loopback port (or uses ``--url``) and drives N users
through the page's own upload protocol with a light client, as Streamlit's frontend does: a websocket
on ``/_stcore/stream`` carrying protobuf messages, a ``file_urls_request`` for the upload URL, an HTTP
PUT of the photo to ``/_stcore/upload_file/<session>/<file_id>``, then a rerun message whose widget
state names the uploaded file, and a DELETE of the file it replaced. No browser runs, so the client's
CPU does not distort the server's.

Each round, every user uploads ``--photos`` photos one after the other, all users starting together.
Photos are 12 MP table scenes from ``benchmarks.scenes`` (cached in a temp dir); each upload carries a
unique JPEG comment so the page's scan cache never answers in place of a scan. Reported: latency from
the start of the upload to the end of the page's rerun (median, p90, max), scans per second, the
server's CPU use (all its processes, from /proc) and its memory (RSS of the server and its workers)
before the load, at its peak and ``--settle`` seconds after. Each result is checked: a score and the
user's own file name in the caption (so no result lands on another user's page), no exception.
Loopback only; bounded by the counts given and ``--timeout`` per upload.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from page.store.settings import DB_ENV

ROOT = Path(__file__).resolve().parents[1]
PHOTO_SIZE = (4000, 3000)
FIRST_SEED = 71_000
TICKS = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class LoadSettings:
    users: int = 8
    rounds: int = 15
    photos: int = 3
    photo_size: tuple[int, int] = PHOTO_SIZE
    settle_s: float = 60.0
    timeout_s: float = 120.0
    url: str | None = None
    app: Path = ROOT / "app.py"
    photo_dir: Path = Path(tempfile.gettempdir()) / "kingdomino-load-photos"
    #: Extra users who, at the same moments, upload a 59 MP flat-colour PNG instead of each photo.
    bombs: int = 0


# --- photos ------------------------------------------------------------------------------------


def make_photos(count: int, size: tuple[int, int], folder: Path) -> list[Path]:
    """``count`` phone-like JPEGs of generated table scenes, made once and kept in ``folder``."""
    import cv2

    from benchmarks.scenes import generate_scene

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed in range(FIRST_SEED, FIRST_SEED + count):
        path = folder / f"scene-{seed}-{size[0]}x{size[1]}.jpg"
        if not path.exists():
            image = generate_scene(seed, size=size).image
            partial = path.with_name(f"partial-{os.getpid()}-{path.name}")
            cv2.imwrite(
                str(partial),
                image,
                [cv2.IMWRITE_JPEG_QUALITY, 92],
            )
            partial.rename(path)
        paths.append(path)
    return paths


def flat_png(width: int = 7700, height: int = 7700, colour: bytes = b"\x28\x78\xc8") -> bytes:
    """A valid one-colour PNG of ``width``×``height`` (a few hundred KB for 59 MP), built row by row."""
    import zlib

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
        )

    packer = zlib.compressobj(9)
    row = b"\x00" + colour * width
    body = b"".join(packer.compress(row) for _ in range(height)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def tagged(jpeg: bytes, tag: str) -> bytes:
    """The same JPEG with a comment segment after its start marker: new bytes, the same pixels."""
    text = tag.encode()
    return jpeg[:2] + b"\xff\xfe" + struct.pack(">H", len(text) + 2) + text + jpeg[2:]


# --- the server and its processes --------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(app: Path, log_path: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    options = {
        "server.headless": "true",
        "server.port": str(port),
        "server.address": "127.0.0.1",
        "server.fileWatcherType": "none",
        "browser.gatherUsageStats": "false",
    }
    command = [sys.executable, "-m", "streamlit", "run", str(app)]
    command += [part for name, value in options.items() for part in (f"--{name}", value)]
    log = log_path.open("wb")
    # The load test's games go to a database of its own, beside its log, never the player's.
    env = {**os.environ, DB_ENV: f"sqlite:///{log_path.resolve().parent / 'load-games.sqlite3'}"}
    process = subprocess.Popen(command, cwd=app.parent, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    import requests

    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server ended at start; see {log_path}")
        try:
            if requests.get(f"{url}/_stcore/health", timeout=2).status_code == 200:
                return process, url
        except requests.RequestException:
            pass
        time.sleep(0.3)
    stop_server(process)
    raise RuntimeError(f"the server did not answer within 90 s; see {log_path}")


def stop_server(process: subprocess.Popen) -> None:
    family = process_tree(process.pid)
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    for pid in family[1:]:  # workers leave when their pipe closes; any left are stopped by their id
        for _ in range(50):
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        parents.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [root]
    while queue:
        pid = queue.pop()
        found.append(pid)
        queue.extend(parents.get(pid, []))
    return found


def per_process(root: int) -> list[str]:
    """'pid RSS-MB name' of each process in the tree (the server first, then its workers)."""
    lines = []
    for pid in process_tree(root):
        try:
            pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:60]
        except (OSError, ValueError, IndexError):
            continue
        lines.append(f"{pid} {pages * PAGE_SIZE / 2**20:.0f}MB {command.strip()}")
    return lines


def _stat_fields(pid: int) -> list[str]:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()


def usage(root: int) -> tuple[float, float, float, int]:
    """(RSS of the whole tree MB, RSS of ``root`` alone MB, CPU seconds of the tree, processes)."""
    rss, root_rss, cpu, _, pids = _usage(root)
    return rss, root_rss, cpu, pids


def pss_mb(root: int) -> float:
    """Proportional set size of the whole tree in MB: each shared page (libraries, pages a worker shares
    with its parent) counted once across the processes that map it, unlike the sum of RSS."""
    total = 0
    for pid in process_tree(root):
        try:
            lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in lines if line.startswith("Pss:")), 0)
    return total / 1024


def cpu_split(root: int) -> tuple[float, float]:
    """CPU seconds so far of (the server process alone, its workers, retired ones included)."""
    _, _, cpu, server_cpu, _ = _usage(root)
    return server_cpu, cpu - server_cpu


def _usage(root: int) -> tuple[float, float, float, float, int]:
    rss = root_rss = cpu = root_cpu = 0.0
    pids = process_tree(root)
    for pid in pids:
        try:
            fields = _stat_fields(pid)
            pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        rss += pages * PAGE_SIZE / 2**20
        own = (int(fields[11]) + int(fields[12])) / TICKS
        if pid == root:
            root_rss, root_cpu = pages * PAGE_SIZE / 2**20, own
        cpu += own + (int(fields[13]) + int(fields[14])) / TICKS  # + its reaped children (retired workers)
    return rss, root_rss, cpu, root_cpu, len(pids)


class Monitor(threading.Thread):
    """Samples the server's processes every ``every`` seconds: (time, tree RSS, server RSS, CPU s, tree
    PSS)."""

    def __init__(self, root: int, every: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.root, self.every = root, every
        self.samples: list[tuple[float, float, float, float, float]] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            rss, root_rss, cpu, _ = usage(self.root)
            self.samples.append((time.monotonic(), rss, root_rss, cpu, pss_mb(self.root)))
            self.stopped.wait(self.every)

    def between(self, start: float, end: float) -> list[tuple[float, float, float, float, float]]:
        return [sample for sample in self.samples if start <= sample[0] <= end]


# --- one user: Streamlit's own protocol ---------------------------------------------------------


@dataclass
class Upload:
    user: int
    name: str
    seconds: float
    score: str | None
    warning: str | None
    caption_ok: bool
    exception: str | None


class User:
    """One browser tab, as the frontend talks to the server."""

    def __init__(self, url: str, index: int, timeout: float) -> None:
        import requests
        from websockets.sync.client import connect

        self.url, self.index, self.timeout = url, index, timeout
        from requests.adapters import HTTPAdapter
        from urllib3.util.retry import Retry

        self.http = requests.Session()
        # the server may close an idle keep-alive connection just as it is reused: try again, as browsers do
        retry = Retry(total=3, connect=3, read=2, status=0, allowed_methods=None, backoff_factor=0.1)
        self.http.mount("http://", HTTPAdapter(max_retries=retry))
        self.http.get(url + "/_stcore/health", timeout=timeout)  # sets the XSRF cookie, as for the frontend
        self.xsrf = self.http.cookies.get("_streamlit_xsrf")
        parts = urllib.parse.urlsplit(url)
        protocols = ["streamlit"] + ([self.xsrf] if self.xsrf else [])
        headers = {"Origin": url}
        if self.xsrf:
            headers["Cookie"] = f"_streamlit_xsrf={self.xsrf}"
        options = {"subprotocols": protocols, "additional_headers": headers, "max_size": None}
        address = f"ws://{parts.netloc}/_stcore/stream"
        try:  # a connection kept open across calls (websockets 15+ asks to say so)
            self.socket = connect(address, open_timeout=timeout, legacy=True, **options)
        except TypeError:
            self.socket = connect(address, open_timeout=timeout, **options)
        self.session_id = ""
        # the page keeps its game code in the address; a browser sends it back with every rerun
        self.query_string = ""
        self.uploader_id = ""
        self.previous_file = ""
        self.page = self._rerun([])  # the first run: the page as it opens (the sample photo scored)
        if not self.uploader_id:
            raise RuntimeError("the page has no photo uploader")

    def upload(self, data: bytes, name: str) -> Upload:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.Common_pb2 import FileUploaderState, UploadedFileInfo
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        start = time.monotonic()
        request_id = uuid.uuid4().hex
        message = BackMsg()
        message.file_urls_request.request_id = request_id
        message.file_urls_request.file_names.append(name)
        message.file_urls_request.session_id = self.session_id
        self.socket.send(message.SerializeToString())
        urls = self._receive_until(lambda forward: forward.file_urls_response.response_id == request_id)
        file_urls = urls.file_urls_response.file_urls[0]
        headers = {"X-Xsrftoken": self.xsrf} if self.xsrf else {}
        answer = self.http.put(
            self._absolute(file_urls.upload_url),
            files={"file": (name, data, "image/jpeg")},
            headers=headers,
            timeout=self.timeout,
        )
        answer.raise_for_status()
        state = WidgetState(id=self.uploader_id)
        state.file_uploader_state_value.CopyFrom(
            FileUploaderState(
                uploaded_file_info=[
                    UploadedFileInfo(
                        name=name, size=len(data), file_id=file_urls.file_id, file_urls=file_urls
                    )
                ]
            )
        )
        page = self._rerun([state])
        seconds = time.monotonic() - start
        if self.previous_file:  # the frontend deletes the file a new one replaced; the server never does
            self.http.delete(self._absolute(self.previous_file), headers=headers, timeout=self.timeout)
        self.previous_file = file_urls.delete_url
        caption_ok = any(text.startswith(f"Photo: {name}") for text in page["captions"])
        warning = next((text for text in page["warnings"] if name in text), None)
        return Upload(self.index, name, seconds, page["score"], warning, caption_ok, page["exception"])

    def close(self) -> None:
        self.socket.close()

    def _absolute(self, path: str) -> str:
        return urllib.parse.urljoin(self.url + "/", path.lstrip("/"))

    def _rerun(self, widget_states: list) -> dict:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        message = BackMsg()
        message.rerun_script.query_string = self.query_string
        message.rerun_script.page_script_hash = ""
        message.rerun_script.widget_states.widgets.extend(widget_states)
        self.socket.send(message.SerializeToString())
        page = {"score": None, "captions": [], "warnings": [], "exception": None}
        while True:
            forward = self._receive()
            kind = forward.WhichOneof("type")
            if kind == "new_session":
                self.session_id = forward.new_session.initialize.session_id or self.session_id
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                self._read_element(forward.delta.new_element, page)
            elif kind == "script_finished" and forward.script_finished in (0, 1, 3):
                return page

    def _read_element(self, element, page: dict) -> None:
        kind = element.WhichOneof("type")
        if kind == "file_uploader" and element.file_uploader.label.startswith("Upload a photo"):
            self.uploader_id = element.file_uploader.id
        elif kind == "metric" and page["score"] is None:
            page["score"] = element.metric.body
        elif kind == "markdown":
            page["captions"].append(element.markdown.body)
        elif kind == "alert":
            page["warnings"].append(element.alert.body)
        elif kind == "exception":
            page["exception"] = element.exception.message or element.exception.type

    def _receive(self):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        forward = ForwardMsg()
        forward.ParseFromString(self.socket.recv(timeout=self.timeout))
        if forward.WhichOneof("type") == "page_info_changed":
            self.query_string = forward.page_info_changed.query_string
        return forward

    def _receive_until(self, wanted):
        while True:
            forward = self._receive()
            if wanted(forward):
                return forward


# --- the run -----------------------------------------------------------------------------------


@dataclass
class Report:
    users: int
    rounds: int
    photos_per_user: int
    uploads: int
    failed: int
    latency_median_s: float
    latency_p90_s: float
    latency_max_s: float
    slowest_per_round_s: list[float]
    scans_per_second: float
    cores_used_mean: float
    cores_used_peak: float
    memory_idle_mb: float
    memory_peak_mb: float
    memory_after_mb: float
    pss_idle_mb: float
    pss_peak_mb: float
    pss_after_mb: float
    server_idle_mb: float
    server_peak_mb: float
    server_after_mb: float
    settle_s: float
    load_seconds: float
    bomb_uploads: int
    bombs_refused: int
    bomb_latency_max_s: float
    machine_load_before: str
    #: CPU seconds of the server process and of its workers during the load, per upload (bombs included)
    server_cpu_per_upload_s: float = 0.0
    workers_cpu_per_upload_s: float = 0.0
    #: one flat PNG uploaded alone before the load: its answer time and the tree's peak memory over idle
    bomb_alone_s: float = 0.0
    bomb_alone_over_idle_mb: float = 0.0
    bomb_alone_cpu_s: float = 0.0
    problems: list[str] = field(default_factory=list)
    processes_after: list[str] = field(default_factory=list)


def run(settings: LoadSettings) -> Report:
    photos = [
        path.read_bytes() for path in make_photos(settings.photos, settings.photo_size, settings.photo_dir)
    ]
    server = None
    with tempfile.TemporaryDirectory(prefix="kingdomino-load-") as scratch:
        if settings.url is None:
            server, url = start_server(settings.app, Path(scratch) / "server.log")
            root = server.pid
        else:
            url, root = settings.url.rstrip("/"), _server_pid(settings.url)
        monitor = Monitor(root)
        monitor.start()
        users: list[User] = []
        try:
            users.append(User(url, 0, settings.timeout_s))  # the first visitor starts the scanner
            everyone = range(1, settings.users + settings.bombs)
            users += _in_parallel(lambda i: User(url, i, settings.timeout_s), everyone)
            bomb = flat_png() if settings.bombs else b""
            bombed: list[Upload] = []
            time.sleep(3)
            machine_load = Path("/proc/loadavg").read_text().split()[:3]
            idle_rss, idle_server, _, _ = usage(root)
            idle_pss = pss_mb(root)
            alone = _bomb_alone(users[-1], bomb, monitor, idle_rss) if settings.bombs else (0.0, 0.0, 0.0)
            uploads: list[Upload] = []
            slowest = []
            load_start = time.monotonic()
            cpu_before = cpu_split(root)
            for round_index in range(settings.rounds):

                def one_user(index: int, round_index: int = round_index) -> list[Upload]:
                    done = []
                    for photo_index, photo in enumerate(photos):
                        bomb_user = index >= settings.users  # the same flat PNG each time, a new name
                        name = f"u{index}-r{round_index}-p{photo_index}.{'png' if bomb_user else 'jpg'}"
                        data = bomb if bomb_user else tagged(photo, name)
                        done.append(_upload_or_failure(users[index], data, name))
                    return done

                everyone = _in_parallel(one_user, range(settings.users + settings.bombs))
                burst = [upload for batch in everyone[: settings.users] for upload in batch]
                bombed += [upload for batch in everyone[settings.users :] for upload in batch]
                slowest.append(max(upload.seconds for upload in burst))
                uploads += burst
            load_end = time.monotonic()
            cpu_during = [after - before for after, before in zip(cpu_split(root), cpu_before, strict=True)]
            time.sleep(settings.settle_s)
            after_rss, after_server, _, _ = usage(root)
            pss = (idle_pss, pss_mb(root))
            after_processes = per_process(root)
        finally:
            for user in users:
                user.close()
            monitor.stopped.set()
            monitor.join()
            if server is not None:
                stop_server(server)
    observed = Observed(
        uploads=uploads,
        bombed=bombed,
        slowest=slowest,
        window=(load_start, load_end),
        machine_load=machine_load,
        idle=(idle_rss, idle_server, idle_pss),
        after=(after_rss, after_server, pss[1]),
        after_processes=after_processes,
        cpu_during=tuple(cpu_during),
        alone=alone,
    )
    return _report(settings, observed, monitor)


def _bomb_alone(user: User, bomb: bytes, monitor: Monitor, idle_rss: float) -> tuple[float, float, float]:
    """(seconds, MB over idle at the peak, CPU seconds of the server and its workers) of one flat PNG
    uploaded while nothing else runs."""
    start, cpu_before = time.monotonic(), sum(cpu_split(monitor.root))
    answer = _upload_or_failure(user, bomb, "alone.png")
    cpu = sum(cpu_split(monitor.root)) - cpu_before
    time.sleep(2 * monitor.every)  # the sample after the answer, in case the peak came last
    peak = max((sample[1] for sample in monitor.between(start, time.monotonic())), default=idle_rss)
    return answer.seconds, peak - idle_rss, cpu


@dataclass
class Observed:
    """What one load run observed, before it is summarised into a Report."""

    uploads: list[Upload]
    bombed: list[Upload]
    #: the slowest answer of each round
    slowest: list[float]
    #: monotonic start and end of the load
    window: tuple[float, float]
    machine_load: list[str]
    #: (RSS of the tree, RSS of the server, PSS of the tree) in MB, before the load and after it settled
    idle: tuple[float, float, float]
    after: tuple[float, float, float]
    after_processes: list[str]
    #: CPU seconds of the server and of its workers during the load
    cpu_during: tuple[float, float] = (0.0, 0.0)
    #: the flat PNG alone: seconds, MB over idle at the peak, CPU seconds
    alone: tuple[float, float, float] = (0.0, 0.0, 0.0)


def _report(settings, observed: Observed, monitor) -> Report:
    uploads, bombed, slowest = observed.uploads, observed.bombed, observed.slowest
    (idle_rss, idle_server, idle_pss), (after_rss, after_server, after_pss) = observed.idle, observed.after
    cpu_during, alone, window = observed.cpu_during, observed.alone, observed.window
    load_start, load_end = window
    seconds = sorted(upload.seconds for upload in uploads)
    during = monitor.between(load_start, load_end)
    peaks = [b[3] - a[3] for a, b in zip(during, during[2:], strict=False)]  # CPU over 1 s windows
    spans = [b[0] - a[0] for a, b in zip(during, during[2:], strict=False)]
    problems = []
    for upload in uploads:
        if upload.exception:
            problems.append(f"{upload.name}: exception {upload.exception}")
        elif upload.score is None or not upload.caption_ok:
            problems.append(
                f"{upload.name}: no score or not its own caption ({upload.warning or 'no warning'})"
            )
    wall = load_end - load_start
    cpu = (during[-1][3] - during[0][3]) / max(during[-1][0] - during[0][0], 1e-9) if len(during) > 1 else 0.0
    return Report(
        users=settings.users,
        rounds=settings.rounds,
        photos_per_user=settings.photos,
        uploads=len(uploads),
        failed=len(problems),
        latency_median_s=round(statistics.median(seconds), 2),
        latency_p90_s=round(seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))], 2),
        latency_max_s=round(seconds[-1], 2),
        slowest_per_round_s=[round(value, 2) for value in slowest],
        scans_per_second=round(len(uploads) / wall, 2),
        cores_used_mean=round(cpu, 2),
        cores_used_peak=round(max((c / s for c, s in zip(peaks, spans, strict=True) if s > 0), default=0), 2),
        memory_idle_mb=round(idle_rss),
        memory_peak_mb=round(max((sample[1] for sample in monitor.samples), default=0)),
        memory_after_mb=round(after_rss),
        pss_idle_mb=round(idle_pss),
        pss_peak_mb=round(max((sample[4] for sample in monitor.samples), default=0)),
        pss_after_mb=round(after_pss),
        server_idle_mb=round(idle_server),
        server_peak_mb=round(max((sample[2] for sample in monitor.samples), default=0)),
        server_after_mb=round(after_server),
        settle_s=settings.settle_s,
        load_seconds=round(wall, 1),
        bomb_uploads=len(bombed),
        bombs_refused=sum(bool(upload.warning and "unpack" in upload.warning) for upload in bombed),
        bomb_latency_max_s=round(max((upload.seconds for upload in bombed), default=0.0), 2),
        machine_load_before=" ".join(observed.machine_load),
        server_cpu_per_upload_s=round(cpu_during[0] / max(1, len(uploads) + len(bombed)), 3),
        workers_cpu_per_upload_s=round(cpu_during[1] / max(1, len(uploads) + len(bombed)), 3),
        bomb_alone_s=round(alone[0], 2),
        bomb_alone_over_idle_mb=round(alone[1]),
        bomb_alone_cpu_s=round(alone[2], 2),
        problems=problems[:20],
        processes_after=observed.after_processes,
    )


def _upload_or_failure(user: User, data: bytes, name: str) -> Upload:
    """One upload; a client-side failure (connection, timeout) is recorded, not fatal to the run."""
    start = time.monotonic()
    try:
        return user.upload(data, name)
    except Exception as error:  # noqa: BLE001 - reported with the run's problems
        failure = f"client: {type(error).__name__}: {str(error)[:120]}"
        return Upload(user.index, name, time.monotonic() - start, None, None, False, failure)


def _in_parallel(function, items) -> list:
    items = list(items)
    results: list = [None] * len(items)
    errors: list[BaseException] = []

    def call(position: int, item) -> None:
        try:
            results[position] = function(item)
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(error)

    threads = [threading.Thread(target=call, args=pair) for pair in enumerate(items)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def _server_pid(url: str) -> int:
    """The process listening on ``url``'s loopback port (for --url): its memory and CPU are measured."""
    port = urllib.parse.urlsplit(url).port
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if int(parts[1].rsplit(":", 1)[1], 16) == port and parts[3] == "0A":  # LISTEN
                inodes.add(parts[9])
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                links = {os.readlink(fd) for fd in (entry / "fd").iterdir()}
            except OSError:
                continue
            if any(f"socket:[{inode}]" in links for inode in inodes):
                return int(entry.name)
    raise RuntimeError(f"no process of ours listens on {url}; measure a server started by this user")


def format_report(report: Report) -> str:
    lines = [
        f"{report.users} users x {report.rounds} rounds x {report.photos_per_user} photos: "
        f"{report.uploads} uploads, {report.failed} failed "
        f"(machine load before: {report.machine_load_before})",
        f"latency  median {report.latency_median_s:.2f} s, p90 {report.latency_p90_s:.2f} s, "
        f"max {report.latency_max_s:.2f} s",
        f"throughput {report.scans_per_second:.2f} scans/s over {report.load_seconds:.0f} s; "
        f"server CPU {report.cores_used_mean:.2f} cores on average, {report.cores_used_peak:.2f} at peak",
        f"CPU per upload {report.server_cpu_per_upload_s + report.workers_cpu_per_upload_s:.3f} s "
        f"(server process {report.server_cpu_per_upload_s:.3f} s, "
        f"workers {report.workers_cpu_per_upload_s:.3f} s)",
        f"memory (server + workers) idle {report.memory_idle_mb:.0f} MB, "
        f"peak {report.memory_peak_mb:.0f} MB, "
        f"{report.settle_s:.0f} s after {report.memory_after_mb:.0f} MB "
        f"(server process alone {report.server_idle_mb:.0f} / {report.server_peak_mb:.0f} / "
        f"{report.server_after_mb:.0f} MB)",
        f"memory as PSS (shared pages counted once) idle {report.pss_idle_mb:.0f} MB, "
        f"peak {report.pss_peak_mb:.0f} MB, {report.settle_s:.0f} s after {report.pss_after_mb:.0f} MB",
    ]
    if report.bomb_uploads:
        lines.append(
            f"one 59 MP flat PNG alone: answered in {report.bomb_alone_s:.2f} s, "
            f"{report.bomb_alone_cpu_s:.2f} CPU s, "
            f"{report.bomb_alone_over_idle_mb:.0f} MB over idle at its peak"
        )
        lines.append(
            f"59 MP flat PNGs uploaded at the same moments: {report.bomb_uploads}, refused as bombs "
            f"{report.bombs_refused}, slowest answer {report.bomb_latency_max_s:.2f} s; meanwhile the "
            f"other users' slowest answer {report.latency_max_s:.2f} s, "
            f"memory peak {report.memory_peak_mb:.0f} MB"
        )
    lines += [f"process after: {line}" for line in report.processes_after]
    lines += [f"problem: {problem}" for problem in report.problems]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--photos", type=int, default=3, help="photos each user uploads per round")
    parser.add_argument("--size", default="4000x3000", help="photo size WxH (default 12 MP)")
    parser.add_argument(
        "--settle", type=float, default=60.0, help="seconds idle before the last memory reading"
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds one upload may take")
    parser.add_argument("--url", help="measure a running server (started by you on loopback) instead")
    parser.add_argument("--app", type=Path, default=ROOT / "app.py", help="the page to start (default ours)")
    parser.add_argument("--bombs", type=int, default=0, help="extra users uploading a 59 MP flat PNG")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    width, height = (int(v) for v in args.size.lower().split("x"))
    if args.url and urllib.parse.urlsplit(args.url).hostname not in ("127.0.0.1", "localhost", "::1"):
        parser.error("--url must be a loopback address")
    if (
        min(args.users, args.rounds, args.photos) < 1
        or args.bombs < 0
        or args.users + args.bombs > 64
        or args.rounds * args.photos > 200
    ):
        parser.error("bounded run: 1-64 users, rounds x photos at most 200")
    settings = LoadSettings(
        users=args.users,
        rounds=args.rounds,
        photos=args.photos,
        photo_size=(width, height),
        settle_s=args.settle,
        timeout_s=args.timeout,
        url=args.url,
        app=args.app.resolve(),
        bombs=args.bombs,
    )
    report = run(settings)
    print(json.dumps(asdict(report)) if args.json else format_report(report), flush=True)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
