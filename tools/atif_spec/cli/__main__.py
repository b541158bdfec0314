"""``python -m atif_spec.cli`` runs the ``atif`` command."""

from atif_spec.cli import main

main()
