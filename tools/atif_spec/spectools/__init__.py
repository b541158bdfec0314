"""Contributors' tools over ``spec/``: compare schema versions, the spec gate, generated docs, the
site."""
