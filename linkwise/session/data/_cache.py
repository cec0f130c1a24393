"""The user's cache folder, where linkwise keeps what it can make again: the resume points of closed sessions, the
digits demo's images."""

import os
from pathlib import Path

__all__ = ["cache_folder"]


def cache_folder():
    """``$LINKWISE_CACHE``, else ``$XDG_CACHE_HOME/linkwise``, else ``~/.cache/linkwise``."""
    folder = os.environ.get("LINKWISE_CACHE")
    if folder:
        return Path(folder)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "linkwise"
