"""Pydantic models of the otel schemas (v1_41_0); generated, do not edit."""
