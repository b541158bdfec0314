"""Transforms: migration between ATIF versions, conversion between formats (lenses through ATIF),
the stash, the change report, and SFT export.
"""
