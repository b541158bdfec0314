"""The schemas: the catalog (every schema, its pinned $id and status), FORMAT@VERSION targets,
and the packaged schemas loaded, resolved offline and compiled once."""
