"""Telemetry: names (ours in semconv, the GenAI conventions' via genai), span, event and metric
recording, content policy.

Recording takes a finished report, a span and a policy (spans.record_report, events,
metrics.record_metrics), nothing about the front end that ran the audit.
"""
