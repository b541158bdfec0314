"""Pydantic models of the tao schemas (v0_1_0, v0_2_0); generated, do not edit."""
