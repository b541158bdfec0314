"""The conformance suite's runner, linter and report (see ``conformance/PROTOCOL.md``).

- :mod:`~atif_spec.conformance.suite` reads manifests into :class:`Case` records;
- :mod:`~atif_spec.conformance.protocol` builds requests and checks responses;
- :mod:`~atif_spec.conformance.process` drives an implementation's process;
- :mod:`~atif_spec.conformance.grading` decides whether an answer passes a case;
- :mod:`~atif_spec.conformance.runner` runs a suite against one implementation;
- :mod:`~atif_spec.conformance.report` writes JSON Lines and readable summaries;
- :mod:`~atif_spec.conformance.lint` checks the fixtures' invariants;
- :mod:`~atif_spec.cli.conformance` is the ``atif conformance`` command group.
"""
