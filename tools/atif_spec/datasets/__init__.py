"""Many documents at once: engines (local, Ray), worker pools, the validation runner, dataset
summaries and statistics.
"""
