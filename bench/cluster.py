"""N ``dejarik serve`` processes behind Debian's nginx (the shipped
``deploy/dejarik-proxy.conf``), with a private Redis as their broker: the starting and
stopping shared by ``tests/realtime/test_behind_nginx.py`` and ``bench/balanced.py``.

nginx runs as the caller's user from a directory of its own (``-p prefix -c conf``);
the processes are real subprocesses (``python -m app.cli serve``), as an operator runs
them, each in a session of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
NGINX = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def start_redis(port: int, bind: str = "127.0.0.1") -> subprocess.Popen:
    """A private redis-server, nothing saved; ``process.args[2]`` is its port."""
    process = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", bind, "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while (
        subprocess.run(["redis-cli", "-h", bind, "-p", str(port), "ping"], capture_output=True).stdout.strip()
        != b"PONG"
    ):
        assert time.monotonic() < deadline and process.poll() is None, "redis-server did not start"
        time.sleep(0.05)
    return process


def nginx_config(prefix: Path, port: int, upstreams: Iterable[str], listen: str = "127.0.0.1") -> str:
    """The main config around the shipped server block, its paths all inside ``prefix``,
    so nginx runs as any user with no service of the system's. ``upstreams``: every
    process as ``host:port``, round-robin."""
    temp = "\n".join(
        f"    {kind}_temp_path {prefix / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    servers = "\n".join(f"        server {u} max_fails=1 fail_timeout=10s;" for u in upstreams)
    return f"""
{"user root;" if os.geteuid() == 0 else ""}
worker_processes 1;
daemon off;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} warn;
events {{ worker_connections 4096; }}
http {{
    log_format upstream '$request_method $uri $status $upstream_addr';
    access_log {prefix / "access.log"} upstream;
{temp}
    upstream dejarik {{
{servers}
        keepalive 32;
        keepalive_timeout 4s;
    }}
    server {{
        listen {listen}:{port};
        include {ROOT / "deploy" / "dejarik-proxy.conf"};
    }}
}}
"""


def start_serve(env: Mapping[str, str], host: str, port: int, log: Path) -> subprocess.Popen:
    """One ``dejarik serve`` on ``host:port``, its output in ``log``."""
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--host", host, "--port", str(port)],
        cwd=ROOT,
        env=dict(env),
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def start_nginx(
    nginx: str, prefix: Path, port: int, upstreams: Iterable[str], listen: str = "127.0.0.1"
) -> subprocess.Popen:
    (prefix / "nginx.conf").write_text(nginx_config(prefix, port, upstreams, listen))
    return subprocess.Popen(
        [nginx, "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-e", str(prefix / "error.log")],
        stdout=subprocess.DEVNULL,
        stderr=(prefix / "nginx.out").open("wb"),
    )


async def until_healthy(url: str, process: subprocess.Popen | None = None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=url, timeout=2) as client:
        while True:
            assert process is None or process.poll() is None, f"{url} exited: {process.returncode}"
            try:
                if (await client.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"{url} never became healthy"
            await asyncio.sleep(0.1)


def stop(
    balancer: subprocess.Popen | None, processes: Iterable[subprocess.Popen], redis: subprocess.Popen | None
) -> None:
    """nginx, then every process (SIGTERM to its session), then Redis."""
    processes = list(processes)
    if balancer is not None:
        balancer.terminate()
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    for process in (*processes, *([balancer] if balancer else [])):
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    if redis is not None:
        redis.kill()
        redis.wait()
