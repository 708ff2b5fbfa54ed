"""Telemetry: names (ours in semconv, the GenAI conventions' via genai), span, event and metric
recording, content policy.

Recording takes a finished report, a span and a policy, nothing about the front end that ran
the audit: every front end calls :func:`vcg_otel.otel.record.record` (spans.record_report,
events and metrics.record_metrics together), or ``record.emit_audit`` for a batch audit.
"""
