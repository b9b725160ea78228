"""Email: the report's HTML with its Markdown as the plain-text alternative, over SMTP.

A message over the size the server takes (`SIZE` in its EHLO answer, else EMAIL_BYTES) goes
as the Markdown alone, shortened to whole sections, with the full report's link. Once the
server has accepted the message (`250` after DATA), a connection dropped afterwards (at QUIT)
does not make it a failure: sending it again would deliver it twice.
"""

from __future__ import annotations

import ipaddress
import os
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from urllib.parse import unquote, urlsplit

from orchestration.config import UsageError
from orchestration.delivery.edition import Edition
from orchestration.delivery.limits import EMAIL_BYTES, fit_markdown, shortened_note
from orchestration.delivery.transport import DeliveryError
from orchestration.repositories.targets import EmailTarget, MissingSecret, check_smtp_url, expand

TIMEOUT_SECONDS = 30.0


def compose(
    target: EmailTarget, edition: Edition, correction: bool, size_limit: int | None = None
) -> EmailMessage:
    """The message; with `size_limit` (bytes), shortened to fit it if it is larger."""
    mail = _compose(target, edition, correction)
    if size_limit is None or len(mail.as_bytes()) <= size_limit:
        return mail
    note = shortened_note(edition.language, "email", edition.link)
    budget = (size_limit - 8_192) * 3 // 4  # headers, and base64's growth of UTF-8 text

    def measure(text: str) -> int:
        return len(text.encode("utf-8"))

    text, _ = fit_markdown(edition.markdown, budget, note, measure)
    return _compose(target, edition, correction, text=text)


def _compose(
    target: EmailTarget, edition: Edition, correction: bool, text: str | None = None
) -> EmailMessage:
    mail = EmailMessage()
    prefix = ("[更正] " if edition.language == "zh" else "[Corrected] ") if correction else ""
    mail["Subject"] = prefix + edition.title
    mail["From"] = target.sender
    mail["To"] = ", ".join(target.to)
    mail["Date"] = formatdate(usegmt=True)
    mail["Message-ID"] = make_msgid("prweekly", domain=target.sender.rpartition("@")[2])
    if text is not None:  # shortened: the text alone
        mail.set_content(text)
        return mail
    mail.set_content(edition.markdown + f"\n\n{edition.link}\n")
    mail.add_alternative(edition.html, subtype="html")
    return mail


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def send(target: EmailTarget, edition: Edition, correction: bool) -> str:
    """Send one message to every address; returns its Message-ID."""
    url = expand(target.smtp_url)

    def refuse(message: str) -> None:
        raise UsageError(message)

    check_smtp_url(url, refuse)
    parts = urlsplit(url)
    host = parts.hostname or ""
    user = unquote(parts.username) if parts.username else None
    password = os.environ.get(target.password_env) if user and target.password_env else None
    if user and not password:
        variable = target.password_env or "(password_env is not set)"
        raise MissingSecret(f"the SMTP password's environment variable {variable} is not set")
    accepted = None
    try:
        if parts.scheme == "smtps":
            context = ssl.create_default_context()
            client = smtplib.SMTP_SSL(host, parts.port or 465, timeout=TIMEOUT_SECONDS,
                                      context=context)  # fmt: skip
        else:
            client = smtplib.SMTP(host, parts.port or 25, timeout=TIMEOUT_SECONDS)
        try:
            client.ehlo()
            encrypted = parts.scheme == "smtps"
            if not encrypted and client.has_extn("starttls"):
                client.starttls(context=ssl.create_default_context())
                client.ehlo()
                encrypted = True
            if user:
                if not encrypted and not _loopback(host):
                    raise DeliveryError(
                        f"email: {host} offers no encryption; the SMTP password is only sent "
                        "over TLS (use smtps://, or a server with STARTTLS)"
                    )
                client.login(user, password or "")
            mail = compose(target, edition, correction, _size_limit(client))
            client.send_message(mail)
            accepted = str(mail["Message-ID"])
        finally:
            _close(client)
    except (TimeoutError, smtplib.SMTPException, OSError) as exc:
        if accepted is not None:  # the server has it: what failed came after
            return accepted
        text = " ".join(str(exc).split())
        if password:
            text = text.replace(password, "***")
        raise DeliveryError(f"email: {host}: {type(exc).__name__}: {text[:300]}") from None
    return accepted


def _size_limit(client: smtplib.SMTP) -> int:
    """The largest message the server takes: its SIZE, else EMAIL_BYTES."""
    try:
        advertised = int(client.esmtp_features.get("size") or 0)
    except ValueError:
        advertised = 0
    return advertised or EMAIL_BYTES


def _close(client: smtplib.SMTP) -> None:
    """QUIT, then close; a server gone by then changes nothing about what it accepted."""
    try:
        client.quit()
    except (smtplib.SMTPException, OSError):
        client.close()
