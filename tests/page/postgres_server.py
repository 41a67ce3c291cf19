"""A real, throwaway PostgreSQL server for tests: Debian's binaries, a temporary data folder, a free
localhost port, run as a non-root user (PostgreSQL refuses to run as root), stopped and removed after.

    with PostgresServer.start() as server:
        store = GameStore.open(server.url)
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: The system user that runs the server when the tests run as root (Debian's package creates it).
SERVER_USER = "postgres"


def find_bindir() -> Path | None:
    """The folder with initdb and pg_ctl: Debian's newest /usr/lib/postgresql/N/bin, or the PATH."""
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    if candidates:
        return Path(candidates[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def unavailable_reason() -> str:
    """Why no server can be started here ('' when one can)."""
    bindir = find_bindir()
    if bindir is None or not (bindir / "pg_ctl").exists():
        return "PostgreSQL server binaries not installed (apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam(SERVER_USER)
        except KeyError:
            return f"running as root and there is no {SERVER_USER!r} user to run PostgreSQL as"
    return ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class PostgresServer:
    bindir: Path
    folder: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql://{SERVER_USER}@127.0.0.1:{self.port}/postgres"

    def database_url(self, name: str) -> str:
        return f"postgresql://{SERVER_USER}@127.0.0.1:{self.port}/{name}"

    @classmethod
    def start(cls) -> PostgresServer:
        bindir = find_bindir()
        assert bindir is not None, unavailable_reason()
        # Not under pytest's tmp_path: that is in root's private folder, which the server user cannot enter.
        folder = Path(tempfile.mkdtemp(prefix="kingdomino-pg-"))
        os.chmod(folder, 0o755)
        if os.geteuid() == 0:
            shutil.chown(folder, SERVER_USER)
        server = cls(bindir, folder, _free_port())
        try:
            server._run(
                "initdb",
                "-D",
                str(folder / "data"),
                "-U",
                SERVER_USER,
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
                "--no-instructions",
            )
            options = (
                f"-p {server.port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off"
            )
            server._run(
                "pg_ctl", "-D", str(folder / "data"), "-l", str(folder / "log"), "-o", options, "-w", "start"
            )
        except BaseException:
            server.stop()
            raise
        return server

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=self.folder)
        if done.returncode != 0:
            log = self.folder / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{tail}")

    def restart(self) -> None:
        """Stop the server (its clients are cut off) and start it again on the same port and data."""
        # -l again: without it the new server would hold our output pipe open and the call would hang.
        data, log = str(self.folder / "data"), str(self.folder / "log")
        self._run("pg_ctl", "-D", data, "-l", log, "-m", "fast", "-w", "restart")

    def create_database(self, name: str) -> str:
        """A new empty database on this server; returns its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)

    def schema_url(self, name: str) -> str:
        """A new empty schema in the server's database, as a URL whose tables go there: a fresh
        database for one test at a fraction of CREATE DATABASE's cost."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute(f'CREATE SCHEMA "{name}"')
        return f"{self.url}?options=-csearch_path%3D{name}"

    def stop(self) -> None:
        data = self.folder / "data"
        try:
            if (data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> PostgresServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
