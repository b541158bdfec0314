"""ATIF v1.1 <-> v1.2: no change in structure (v1.2 documents observations on system steps, which
the schemas always accept, DECISIONS 6.5, and counts cached tokens in ``prompt_tokens``)."""
