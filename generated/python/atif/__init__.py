"""Pydantic models of the atif schemas (v1_0, v1_1, v1_2, v1_3, v1_4, v1_5, v1_6, v1_7, v1_8); generated, do not edit."""
