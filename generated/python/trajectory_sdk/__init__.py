"""Pydantic models of the trajectory-sdk schemas (v0_4); generated, do not edit."""
