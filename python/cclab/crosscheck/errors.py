"""The one error of ``cclab crosscheck``: what does not translate, or a peer that failed."""

from __future__ import annotations

from typing import Any


class CrosscheckError(ValueError):
    """One line: the field, its value, and what the peer simulator can take."""

    def __init__(self, field: str, value: Any, accepted: str) -> None:
        self.field, self.value, self.accepted = field, str(value), accepted
        text = f"{field}: {str(value)[:200]!s} cannot be cross-checked; accepted: {accepted}"
        super().__init__(text.replace("\n", " "))
