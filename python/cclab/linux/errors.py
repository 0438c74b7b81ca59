"""The Linux engine's errors: one line each, naming the field (as ScenarioError does)."""

from __future__ import annotations

from ..scenario import ScenarioError


class Unsupported(ScenarioError):
    """A scenario field the Linux testbed cannot honour: ``field`` and why, in one line."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class LinuxEngineError(RuntimeError):
    """The testbed could not be built or run here (no root, a command failed): one line."""
