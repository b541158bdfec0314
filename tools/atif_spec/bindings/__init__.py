"""Runtime support for the generated Pydantic models (``atif_spec.models``): their base class, and
loading a document into the model of its own version.
"""
