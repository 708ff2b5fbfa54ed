"""Telemetry: semantic conventions, span and metric recording, content policy."""
