"""Pydantic models of the step-substep schemas (v1_0, v1_0_legacy_turn_event); generated, do not edit."""
