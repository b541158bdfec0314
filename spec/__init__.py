"""The schemas in spec/, shipped inside the package as data (read with importlib.resources)."""
