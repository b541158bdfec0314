"""Rules beyond JSON Schema: the registry, and one module of rules per format.

Importing this package imports every rule module, so ``REGISTRY`` is complete.
"""

from __future__ import annotations

import importlib
import pkgutil

from atif_spec.validation.rules.registry import REGISTRY, Rule, RuleContext, RuleOptions, rule

_NOT_RULE_MODULES = {"registry", "engine", "screen", "atif_files"}

for _info in pkgutil.iter_modules(__path__):
    if _info.name not in _NOT_RULE_MODULES and not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")

REGISTRY.sort(key=lambda r: r.code)

__all__ = ["REGISTRY", "Rule", "RuleContext", "RuleOptions", "rule"]
