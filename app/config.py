"""All settings in one place, read from the environment (and a `.env` file)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = f"sqlite+aiosqlite:///{ROOT / 'dejarik.db'}"
    """SQLite (embedded, the default) or ``postgresql+asyncpg://user@host/db``."""
    broker_url: str = "memory://"
    """How match updates reach every server process: ``memory://`` (one process),
    ``postgresql://…`` (LISTEN/NOTIFY) or ``redis://…`` (pub/sub)."""
    host: str = "127.0.0.1"
    port: int = 8000
    max_body_bytes: int = 64 * 1024
    """Request bodies and websocket frames larger than this are refused."""
    cookie_name: str = "dejarik_token"
    cookie_secure: bool = False
    """Always mark the sign-in cookie ``Secure``. Off: it is ``Secure`` whenever the request
    came over HTTPS (directly, or through a trusted proxy's ``X-Forwarded-Proto``)."""
    trusted_proxies: list[str] = []
    """Addresses (or networks) of the reverse proxies whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are believed, as a JSON list (``["127.0.0.1"]`` for nginx on the
    same host). Empty: none; the client is the socket's peer and the headers are ignored."""
    ws_syncs_per_10s: int = 5
    """Snapshots one websocket may ask for (``sync`` frames) in 10 seconds; past it, an error
    frame. A sync at the version already sent is answered from the cached snapshot."""
    bot_matches_per_player: int = 2
    """Matches with a bot one player may have running at once (bot-only matches they host
    included); past it, 429. 0: no limit."""
    chat_messages_per_minute: int = 20
    """How many chat messages one player may post a minute (over all matches); past it, 429.
    Counted like the rate limits below (``rate_limit_storage``)."""
    webauthn_rp_id: str | None = None
    """The passkeys' relying party: the site's host name (``dejarik.example``). Unset: the
    host name each request came to, which suits a server reached by one name."""
    webauthn_origin: str | None = None
    """The origin pages are served from (``https://dejarik.example``). Unset: the request's."""
    db_pool_size: int = 20
    """PostgreSQL connections per process, in each of its two pools (the moves' asyncpg
    pool and SQLAlchemy's): a process opens at most twice this many. N server processes
    need 2 × N × this, plus two each for the PostgreSQL broker, within PostgreSQL's
    ``max_connections`` (100 by default); past it, requests fail with 503s under load.
    A pool much smaller than the number of actions in flight makes some wait far longer
    than others: at 100 busy matches, 10 gave a p99 of 0.9 s (docs/performance.md)."""
    bot_delay_ms: int = 700
    """How long a bot's move takes at least, so that it arrives at a human pace; 0 in
    tests and benchmarks (never more than a few seconds)."""
    bot_think_ms: int = 1500
    """A master bot's thinking time per decision (iterative deepening stops there)."""
    bot_workers: int = 1
    """Processes that run the bots' searches, off the event loop."""
    bot_lease_s: float = 6.0
    """A process that takes a bot's decision holds it this long, renewing it while it thinks;
    if the process dies, another takes the decision over once the hold runs out."""
    bot_scan_s: float = 3.0
    """How often every active match is checked for a bot whose turn it is (after a
    restart, or a move made through another process)."""
    league_sweep_s: float = 10.0
    """How often each process looks for a running league whose round has ended but was not
    moved on (its process died after the last result): the next Swiss round, or the end."""
    allowed_origins: list[str] = []
    """Origins besides the server's own (``scheme://host[:port]``, as a JSON list in the
    environment) whose pages may post forms, use the cookie on REST, or open a
    websocket: for a deployment whose public address differs from the Host the
    server sees."""
    rate_limit_storage: str = ""
    """Where the rate limits count: ``memory://`` (each process its own count), or
    ``redis://…`` (every process one count). Empty: the broker's Redis when ``BROKER_URL``
    is ``redis://…``, else ``memory://``."""
    log_format: str = "text"
    """``json``: one JSON object a line (each request, each action with its match id)."""
    rate_limit_players: int = 600
    """Per client (IP address) and minute, each counted by a sliding window (limits'
    sliding window counter: the minute before weighs less and less, so the allowance comes
    back evenly); 0 turns a limit off. Player creations…"""
    rate_limit_matches: int = 600
    """…match creations…"""
    rate_limit_actions: int = 60000
    """…actions (REST and websocket; generous: the load benchmark plays 100 matches
    from one address)…"""
    rate_limit_websockets: int = 1200
    """…websocket connections…"""
    rate_limit_exports: int = 600
    """…exports (NDJSON listings and logs)…"""
    rate_limit_passkeys: int = 60
    """…passkey sign-in ceremonies (options and assertions: anyone may start one)…"""
    rate_limit_chat: int = 120
    """…and chat messages, whoever posts them (each player also has
    ``chat_messages_per_minute``)."""
    export_streams_per_client: int = 1
    """NDJSON exports (``Accept: application/x-ndjson``) one client address may have
    streaming at once, like lichess's one-request-at-a-time rule; 0: no limit."""

    public_url: str = ""
    """The address players open the site at, for links in notifications
    (default: ``http://HOST:PORT``)."""
    smtp_url: str = ""
    """``smtp://[user:password@]host[:port]`` (``smtps://`` for TLS, ``?starttls=1``);
    unset: no email is sent."""
    smtp_from: str = "Dejarik <dejarik@localhost>"
    notify_email_quiet_s: float = 900.0
    """At most one "your turn" e-mail per match and address in this long (and one
    confirmation per address); the notices between are skipped, not retried."""
    notify_email_daily_max: int = 50
    """At most this many e-mails to one address in 24 hours, whoever set it; 0: no ceiling."""
    webhook_allow_private: bool = False
    """Allow webhooks to private, loopback and link-local addresses (tests; a LAN install)."""
    push_allow_private: bool = False
    """Allow Web Push endpoints on private, loopback and link-local addresses, and plain
    http ones (tests; a push service on a LAN)."""
    webhook_tests_per_minute: int = 3
    """Test notices one player may send their webhook a minute (the settings page's "Send a
    test"); past it, 429. 0: no limit."""
    notify_retry_s: float = 2.0
    """The first retry of a failed delivery waits this long, each next one twice as long."""
    notify_max_attempts: int = 8
    notify_lease_s: float = 60.0
    """A notifier that claimed a delivery and died lets others retry it after this long."""
    notify_deadline_s: float = 15.0
    """One delivery's whole time (waiting for a slot, connecting, the reply), at most half
    the lease: past it, it is a failed try, settled before anyone may claim it again."""
    webhooks_in_flight: int = 32
    """Webhook deliveries one process makes at once (and its connections)."""
    webhooks_per_host: int = 2
    """Webhook deliveries at once to one destination (an IPv4 address, an IPv6 /64), so a
    slow receiver holds up only its own notices."""
    notify_poll_s: float = 1.0
    """How often a notifier looks for deliveries due (retries; other processes' writes)."""
    presence_beat_s: float = 20.0
    """How often a process records the players whose websockets it holds (presence)."""

    def site_url(self) -> str:
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")


@cache
def get_settings() -> Settings:
    return Settings()
