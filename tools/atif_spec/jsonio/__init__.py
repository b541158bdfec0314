"""JSON in and out: reading files, folders, JSON Lines and stdin; JSON text that keeps every digit;
typed access to parsed values; atomic writes; document text made safe to print.
"""
