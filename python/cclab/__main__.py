"""``python -m cclab`` is the ``cclab`` command."""

from .cli import main

main()
