"""Helpers shared by the tests: document builders, hypothesis strategies, the conservation
checker and the repository's paths."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository."""
