"""Audit the traces an app already sends: Phoenix projects and OTLP/JSON exports, with no
change to the app (``vcg-otel audit --from-phoenix URL --project NAME`` / ``--from-otlp FILE``).

* :mod:`.model` -- spans and traces, whatever the source;
* :mod:`.phoenix` -- a Phoenix project through ``arize-phoenix-client`` (paged, bounded memory);
* :mod:`.otlp` -- an OTLP/JSON lines file (the collector's file exporter, the SDK's encoding);
* :mod:`.assemble` -- a trace's answer, documents and request, from OpenInference attributes;
* :mod:`.run` -- the audit of each trace, by the same path as a decorated call;
* :mod:`.annotate` -- the Phoenix annotations, keyed by the audit version;
* :mod:`.select` -- ``--since``, the cursor, ``--shard K/N``;
* :mod:`.command` -- the CLI's entry point for both sources.

Nothing here is imported by ``import vcg_otel``.
"""
