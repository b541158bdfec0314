"""``python -m atif_spec.conformance`` is ``atif conformance``."""

from atif_spec.conformance.cli import conformance

conformance(prog_name="atif conformance")
