"""Pydantic models of the tao schemas (v0_1_0, v0_2_0, v0_3_0, v0_6_0, v0_7_0, v0_9_0); generated, do not edit."""
