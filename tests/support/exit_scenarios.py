"""A process that exits while vcg_otel still holds work (issue 19, item 10), for the exit
test (tests/integration/host/test_exit_within_one_bound.py) and benchmarks/exit_time.py.

``HUNG_AT_EXIT`` is a script for ``python -c``: ``argv`` = Phoenix URL (a server that never
answers, in practice), foreground audits, background audits, seconds to wait between them
(past the annotation writer's send delay, so its requests are under way). The background
audits wait for a judge that never answers. It prints ``main done`` when its own code has
finished, and from its last atexit hook (registered first) one JSON line: ``exit`` (seconds
from "main done" to that hook), ``ended`` (spans ended), ``annotations`` (dropped by reason)
and ``written``.
"""

from __future__ import annotations

import textwrap

HUNG_AT_EXIT = textwrap.dedent('''
    import atexit, json, sys, time
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from vcg_otel import audited_citations
    from vcg_otel.phoenix import PhoenixAnnotationProcessor

    url, foregrounds, backgrounds, settle = sys.argv[1:5]
    marks = {}
    # registered first, so it runs last (after the audits' and the provider's shutdown)
    atexit.register(lambda: print(json.dumps({
        "exit": time.monotonic() - marks["done"], "ended": len(memory.get_finished_spans()),
        "annotations": annotations.dropped_by_reason, "written": annotations.written}),
        flush=True))
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    annotations = PhoenixAnnotationProcessor(url)
    provider.add_span_processor(annotations)
    DOCS = {"paper": "The reranker improves accuracy by 4.2% over the baseline."}
    CITED = 'It helps: "improves accuracy by 4.2%" [paper].'

    @audited_citations(tracer_provider=provider)
    def foreground(documents):
        return CITED

    def hung_judge(system, user):
        time.sleep(3600)

    @audited_citations(judge=hung_judge, timeout=600, background=True,
                       tracer_provider=provider)
    def answer(documents):
        return CITED

    for _ in range(int(foregrounds)):
        foreground(DOCS)
    time.sleep(float(settle))
    for _ in range(int(backgrounds)):
        answer(DOCS)
    marks["done"] = time.monotonic()
    print("main done", flush=True)
''')
