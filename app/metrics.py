"""What an operator watches: ``GET /metrics`` in Prometheus's text format (docs/operations.md).

Each application has a :class:`Metrics` of its own, on a registry of its own (the tests
run several servers in one process), kept on ``app.state.metrics``. Every figure is this
process's: Prometheus scrapes each process and sums them. Counters and histograms are
recorded where things happen (the publish hook in ``app/main.py``, the hub, the broker,
:class:`HttpMetrics`); the gauges that describe a standing state (websockets, the outbox,
the database pools) are read when ``/metrics`` is scraped (:meth:`Metrics.refresh`).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.exposition import choose_encoder
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.access_log import redact
from app.services.store import Committed

log = logging.getLogger("dejarik.metrics")
access = logging.getLogger("dejarik.access")
actions = logging.getLogger("dejarik.actions")

ACTION_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)
SEARCH_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)
UNMATCHED = "unmatched"
"""The route label of a request no route matched: raw paths would make a label value per id."""


class Metrics:
    """This process's figures, on a registry of their own."""

    def __init__(self) -> None:
        disable_created_metrics()  # no ``*_created`` series beside every counter (process-wide)
        self.registry = registry = CollectorRegistry()
        ProcessCollector(registry=registry)
        self.actions = Counter(
            "dejarik_actions", "Actions applied (seats' and GMs'), by ruleset", ["ruleset"], registry=registry
        )
        self.action_seconds = Histogram(
            "dejarik_action_seconds",
            "From an action reaching the match service to its commit, by ruleset",
            ["ruleset"],
            buckets=ACTION_BUCKETS,
            registry=registry,
        )
        self.websockets = Gauge("dejarik_websockets", "Match websockets open (viewers)", registry=registry)
        self.updates_sent = Counter(
            "dejarik_updates_sent", "Update frames sent to websocket viewers", registry=registry
        )
        self.broker_lag = Histogram(
            "dejarik_broker_lag_seconds",
            "From a process publishing a message to this process receiving it from the broker",
            buckets=LAG_BUCKETS,
            registry=registry,
        )
        self.outbox_pending = Gauge(
            "dejarik_outbox_pending",
            "Notifications owed and not yet delivered (or given up)",
            registry=registry,
        )
        self.outbox_oldest = Gauge(
            "dejarik_outbox_oldest_seconds", "Age of the oldest notification still pending", registry=registry
        )
        self.http_requests = Counter(
            "dejarik_http_requests",
            "HTTP requests answered, by route template, method and status",
            ["route", "method", "status"],
            registry=registry,
        )
        self.db_pool_in_use = Gauge(
            "dejarik_db_pool_in_use",
            "Database connections checked out, by pool (sqlalchemy; asyncpg: the store's moves)",
            ["pool"],
            registry=registry,
        )
        self.bot_decisions = Counter(
            "dejarik_bot_decisions", "Decisions bots made in this process, by bot", ["bot"], registry=registry
        )
        self.bot_search_seconds = Histogram(
            "dejarik_bot_search_seconds",
            "A bot's search for one decision",
            buckets=SEARCH_BUCKETS,
            registry=registry,
        )

    # --- recording ---------------------------------------------------------------

    def action_applied(self, committed: Committed, seconds: float) -> None:
        ruleset = committed.after.ruleset
        self.actions.labels(ruleset).inc()
        self.action_seconds.labels(ruleset).observe(seconds)

    def bot_decided(self, bot_id: str, seconds: float) -> None:
        """One bot decision made here, after ``seconds`` of search."""
        self.bot_decisions.labels(bot_id).inc()
        self.bot_search_seconds.observe(seconds)

    def broker_delivered(self, published_at: float) -> None:
        """A broker message stamped ``published_at`` (seconds since the epoch, the
        publisher's clock) arrived now."""
        self.broker_lag.observe(max(0.0, time.time() - published_at))

    def http_answered(self, route: str, method: str, status: int) -> None:
        self.http_requests.labels(route, method, str(status)).inc()

    # --- reading when scraped ----------------------------------------------------

    async def refresh(self, app: Any) -> None:
        """Read the gauges of standing state: websockets, the outbox, the pools."""
        state = app.state
        hub = getattr(state, "hub", None)
        if hub is not None:
            self.websockets.set(hub.viewer_count())
        engine = getattr(state, "engine", None)
        if engine is not None:
            checkedout = getattr(engine.pool, "checkedout", None)
            self.db_pool_in_use.labels("sqlalchemy").set(checkedout() if checkedout else 0)
        store = getattr(state, "store", None)
        if store is None:
            return
        in_use = store.driver_connections_in_use()
        if in_use is not None:
            self.db_pool_in_use.labels("asyncpg").set(in_use)
        try:
            pending, oldest = await store.outbox_backlog()
        except Exception as error:  # the database is away: the last figures stand
            log.warning("could not read the outbox for /metrics: %s", error)
            return
        self.outbox_pending.set(pending)
        now: datetime = state.now()
        self.outbox_oldest.set(max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0)

    def exposition(self, accept: str | None = None) -> tuple[bytes, str]:
        """The figures, and their content type: Prometheus's text format, or OpenMetrics
        when the scraper's ``Accept`` asks for it."""
        encoder, content_type = choose_encoder(accept or "")
        return encoder(self.registry), content_type


def log_action(committed: Committed) -> None:
    """One line for an applied action (``LOG_FORMAT=json``: one JSON object)."""
    if not actions.isEnabledFor(logging.INFO):
        return
    entry = committed.entries[-1]
    kind = entry.action.get("type") if isinstance(entry.action, dict) else None
    match = committed.after
    actions.info(
        "action %s v%s seat %s %s",
        match.id,
        match.version,
        entry.seat,
        kind,
        extra={
            "event": "action",
            "match_id": match.id,
            "version": match.version,
            "seat": entry.seat,
            "action": kind,
            "ruleset": match.ruleset,
        },
    )


class HttpMetrics:
    """Counts every HTTP request by its route's template (``/api/v1/matches/{match_id}``,
    read from ``scope["route"]`` once the router chose it; ``unmatched`` when none did)
    and logs one line for it. Pure ASGI: nothing but a wrapped ``send`` per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = getattr(scope.get("route"), "path", None) or UNMATCHED
            metrics: Metrics | None = getattr(scope["app"].state, "metrics", None) if "app" in scope else None
            if metrics is not None:
                metrics.http_answered(route, scope["method"], status)
            if access.isEnabledFor(logging.INFO):
                client = scope.get("client")
                took_ms = round((time.perf_counter() - started) * 1000, 2)
                access.info(
                    "%s %s %s %.2f ms",
                    scope["method"],
                    route,
                    status,
                    took_ms,
                    extra={
                        "event": "request",
                        "method": scope["method"],
                        "route": route,
                        "path": redact(scope["path"]),
                        "status": status,
                        "duration_ms": took_ms,
                        "client": client[0] if client else None,
                    },
                )
