"""Real receivers on loopback for delivery tests: a Slack webhook and an SMTP server.

The SMTP server is aiosmtpd (a dev dependency): a complete SMTP implementation with AUTH, so
the client's protocol, login and MIME are exercised as a mail server would see them. Both can
be told to refuse the next few deliveries, as a provider having a bad minute does.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

SLACK_KEYS = {"text", "unfurl_links", "unfurl_media"}
SLACK_TEXT_LIMIT = 40_000  # Slack truncates past it; its API refuses with msg_too_long


class SlackReceiver:
    """An incoming-webhook endpoint: checks each payload as Slack would, keeps the good ones."""

    def __init__(self, secret_path: str) -> None:
        self.path = secret_path
        self.messages: list[dict] = []
        self.refused = 0
        self.fail_next = 0  # answer this many posts with HTTP 503
        # the next posts' answers: (status, headers, seconds to wait first); a post kept with
        # a 200 after its wait is kept even if the client stopped waiting
        self.answers: list[tuple[int, dict, float]] = []
        self.on_message: Callable[[dict], None] | None = None  # called before answering
        self.problems: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{self.path}"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                status, answer = receiver.receive(self.path, self.headers, body)
                data = answer.encode()
                self.send_response(status)
                self.send_header("content-type", "text/plain")
                self.send_header("content-length", str(len(data)))
                self.send_header("x-slack-req-id", f"req-{len(receiver.messages)}")
                for name, value in getattr(receiver, "extra_headers", {}).items():
                    self.send_header(name, value)
                receiver.extra_headers = {}
                self.end_headers()
                with contextlib.suppress(OSError):  # the client may have stopped waiting
                    self.wfile.write(data)

        return Handler

    def receive(self, path: str, headers, body: bytes) -> tuple[int, str]:
        if path != self.path:
            return 404, "no_service"
        if self.fail_next > 0:
            self.fail_next -= 1
            self.refused += 1
            return 503, "service_unavailable"
        status, extra, wait = self.answers.pop(0) if self.answers else (200, {}, 0.0)
        self.extra_headers = extra
        time.sleep(wait)
        if status != 200:
            self.refused += 1
            return status, {429: "rate_limited"}.get(status, "internal_error")
        if not (headers.get("content-type") or "").startswith("application/json"):
            self.problems.append(f"content-type {headers.get('content-type')}")
            return 400, "invalid_payload"
        payload = json.loads(body)
        text = payload.get("text")
        if set(payload) - SLACK_KEYS or not isinstance(text, str) or not text.strip():
            self.problems.append(f"payload {payload}")
            return 400, "invalid_payload"
        if len(text) > SLACK_TEXT_LIMIT:
            self.problems.append(f"text of {len(text)} characters")
            return 400, "msg_too_long"
        self.messages.append(payload)
        if self.on_message:
            self.on_message(payload)
        return 200, "ok"

    def __enter__(self) -> SlackReceiver:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_exc) -> None:
        self._server.shutdown()
        self._server.server_close()


class _Mailbox:
    def __init__(self, server: SmtpReceiver) -> None:
        self.server = server

    async def handle_DATA(self, _server, _session, envelope) -> str:
        if self.server.fail_next > 0:
            self.server.fail_next -= 1
            self.server.refused += 1
            return "451 4.3.0 try again later"
        message = message_from_bytes(envelope.content, policy=policy.default)
        self.server.messages.append((list(envelope.rcpt_tos), message))
        return "250 OK"


class SmtpReceiver:
    """aiosmtpd on loopback, with AUTH LOGIN/PLAIN checked against one user and password;
    `size` is the largest message it takes (it says so in its EHLO answer)."""

    def __init__(self, user: str, password: str, size: int = 33_554_432) -> None:
        self.user, self.password = user, password
        self.messages: list[tuple[list[str], EmailMessage]] = []
        self.logins: list[str] = []
        self.fail_next = 0
        self.refused = 0
        self._controller = Controller(
            _Mailbox(self),
            hostname="127.0.0.1",
            port=_free_port(),  # aiosmtpd checks it is up by connecting: it needs the number
            authenticator=self._authenticate,
            auth_require_tls=False,  # loopback only: the client allows it there alone
            auth_required=True,
            server_kwargs={"data_size_limit": size},
        )

    def _authenticate(self, _server, _session, _envelope, _mechanism, data) -> AuthResult:
        ok = isinstance(data, LoginPassword) and (data.login.decode(), data.password.decode()) == (
            self.user,
            self.password,
        )
        if ok:
            self.logins.append(data.login.decode())
        return AuthResult(success=ok)

    @property
    def port(self) -> int:
        return self._controller.port

    def __enter__(self) -> SmtpReceiver:
        self._controller.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._controller.stop()


class DroppingSmtpServer:
    """A minimal SMTP server that accepts each message (250) and then resets the connection
    instead of answering QUIT, as a server, a proxy or a network that fails at that moment does;
    with `drop_at_greeting` it resets before saying anything."""

    def __init__(self, drop_at_greeting: bool = False) -> None:
        self.drop_at_greeting = drop_at_greeting
        self.messages: list[bytes] = []
        self.connections = 0
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._socket.accept()
            except OSError:
                return
            self.connections += 1
            try:
                self._session(conn)
            except OSError:
                pass
            finally:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()

    def _session(self, conn: socket.socket) -> None:
        if self.drop_at_greeting:
            return
        lines = conn.makefile("rb")
        conn.sendall(b"220 dropper ESMTP\r\n")
        while line := lines.readline():
            verb = line[:4].upper()
            if verb in (b"EHLO", b"HELO"):
                conn.sendall(b"250 dropper\r\n")
            elif verb == b"DATA":
                conn.sendall(b"354 go on\r\n")
                data = b""
                while (part := lines.readline()) not in (b".\r\n", b""):
                    data += part
                self.messages.append(data)
                conn.sendall(b"250 2.0.0 accepted\r\n")
            elif verb == b"QUIT":
                return  # reset, no 221
            else:
                conn.sendall(b"250 ok\r\n")

    def __enter__(self) -> DroppingSmtpServer:
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def __exit__(self, *_exc) -> None:
        self._socket.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
