"""The conformance suite, installed with the package as ``atif_spec.suite`` (data only)."""
