"""Pydantic models generated from the schemas in spec/ (see `nox -s generate`)."""
