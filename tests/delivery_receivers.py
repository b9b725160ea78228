"""Real receivers on loopback for delivery tests: a Slack webhook and an SMTP server.

The SMTP server is aiosmtpd (a dev dependency): a complete SMTP implementation with AUTH, so
the client's protocol, login and MIME are exercised as a mail server would see them. Both can
be told to refuse the next few deliveries, as a provider having a bad minute does.
"""

from __future__ import annotations

import json
import socket
import threading
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

SLACK_KEYS = {"text", "unfurl_links", "unfurl_media"}


class SlackReceiver:
    """An incoming-webhook endpoint: checks each payload as Slack would, keeps the good ones."""

    def __init__(self, secret_path: str) -> None:
        self.path = secret_path
        self.messages: list[dict] = []
        self.refused = 0
        self.fail_next = 0  # answer this many posts with HTTP 503
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
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def receive(self, path: str, headers, body: bytes) -> tuple[int, str]:
        if path != self.path:
            return 404, "no_service"
        if self.fail_next > 0:
            self.fail_next -= 1
            self.refused += 1
            return 503, "service_unavailable"
        if not (headers.get("content-type") or "").startswith("application/json"):
            self.problems.append(f"content-type {headers.get('content-type')}")
            return 400, "invalid_payload"
        payload = json.loads(body)
        text = payload.get("text")
        if set(payload) - SLACK_KEYS or not isinstance(text, str) or not text.strip():
            self.problems.append(f"payload {payload}")
            return 400, "invalid_payload"
        self.messages.append(payload)
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
    """aiosmtpd on loopback, with AUTH LOGIN/PLAIN checked against one user and password."""

    def __init__(self, user: str, password: str) -> None:
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
