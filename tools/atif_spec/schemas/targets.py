"""``FORMAT@VERSION`` targets, the one way every command names a format and version."""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERSION = re.compile(r"^v\d+(\.\d+)*$")
_FORMAT = re.compile(r"^[a-z][a-z0-9-]*$")


class TargetError(ValueError):
    """A target string that is not ``FORMAT@VERSION``, ``FORMAT`` or ``vX.Y``."""


@dataclass(frozen=True, slots=True)
class Target:
    """A format and version; either part may be left open.

    ``atif@v1.7`` names both, ``atif`` the format's latest version, and a bare ``v1.7`` the
    given version of whatever format the document itself is in.
    """

    format: str | None
    version: str | None

    @classmethod
    def parse(cls, text: str) -> Target:
        """Parse ``atif@v1.7``, ``atif`` or ``v1.7`` (a leading ``ATIF-`` is accepted too)."""
        raw = text.strip()
        if raw.upper().startswith("ATIF-V"):
            return cls("atif", "v" + raw[6:])
        fmt, sep, ver = raw.partition("@")
        if not sep:
            if _VERSION.match(raw):
                return cls(None, raw)
            if _FORMAT.match(raw):
                return cls(raw, None)
            raise TargetError(f"not a target: {text!r} (expected FORMAT@VERSION, FORMAT or vX.Y)")
        if not _FORMAT.match(fmt) or not _VERSION.match(ver):
            raise TargetError(f"not a target: {text!r} (expected FORMAT@VERSION, e.g. atif@v1.7)")
        return cls(fmt, ver)

    def __str__(self) -> str:
        if self.format is None:
            return self.version or ""
        return self.format if self.version is None else f"{self.format}@{self.version}"
