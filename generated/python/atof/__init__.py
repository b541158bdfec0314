"""Pydantic models of the atof schemas (v0_1); generated, do not edit."""
