"""``python -m atif_spec.conformance`` is ``atif conformance``."""

from atif_spec.cli.conformance import conformance

conformance(prog_name="atif conformance")
