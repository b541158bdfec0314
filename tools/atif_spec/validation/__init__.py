"""Validation: detect, schema check, rules, report (``atif validate`` and
:func:`atif_spec.validate`).

The pipeline is :mod:`atif_spec.validation.pipeline.pipeline`; the findings shape is
:mod:`atif_spec.validation.pipeline.findings`; the rules beyond JSON Schema are
:mod:`atif_spec.validation.pipeline.rules`.
"""
