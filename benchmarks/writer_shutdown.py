"""How long ``provider.shutdown()`` takes for the Phoenix annotation writer, per hostile endpoint.

Default writer settings (``request_timeout=3``, ``shutdown_timeout=5``); each run audits 200
requests (800 annotations) against one endpoint from tests/support/hostile_http.py, shuts down and
checks that every annotation was written or counted dropped. Prints the worst of ``--runs``
shutdowns per endpoint, and the worst overall against the 5 s bound.

    python benchmarks/writer_shutdown.py [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from opentelemetry.sdk.trace import TracerProvider
from support.hostile_http import Behaviour, HostileServer

from vcg_otel import audited_citations
from vcg_otel.phoenix import PhoenixAnnotationProcessor

DOCS = {"paper": "The reranker improves accuracy by 4.2% over the baseline."}
CITATIONS = [{"claim": "helps", "quote": "improves accuracy by 4.2%", "doc_id": "paper"},
             {"claim": "fast", "quote": "halves latency on every benchmark", "doc_id": "paper"},
             {"claim": "cats", "quote": "Cats sleep for most of the day", "doc_id": "paper"}]
BEHAVIOURS: tuple[Behaviour, ...] = ("ok", "bad_status", "many_headers", "silent", "trickle",
                                     "not_found")


def one_run(behaviour: Behaviour) -> tuple[float, PhoenixAnnotationProcessor, int]:
    with HostileServer(behaviour) as server:
        processor = PhoenixAnnotationProcessor(server.url)
        provider = TracerProvider()
        provider.add_span_processor(processor)

        @audited_citations(tracer_provider=provider)
        def answer(documents: dict[str, str]) -> dict[str, Any]:
            return {"citations": CITATIONS}

        for _ in range(200):
            answer(DOCS)
        time.sleep(2.5)  # past send_delay: requests are under way when shutdown begins
        t0 = time.perf_counter()
        provider.shutdown()
        return time.perf_counter() - t0, processor, 200 * 4


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    worst_overall = 0.0
    print(f"{'endpoint':<14}{'worst shutdown':>16}{'written':>9}  dropped by reason")
    for behaviour in BEHAVIOURS:
        worst = 0.0
        for _ in range(args.runs):
            elapsed, processor, produced = one_run(behaviour)
            assert processor.written + processor.dropped == produced, behaviour
            worst = max(worst, elapsed)
        worst_overall = max(worst_overall, worst)
        print(f"{behaviour:<14}{worst:>14.2f} s{processor.written:>9}  "
              f"{processor.dropped_by_reason}", flush=True)
    print(f"worst shutdown: {worst_overall:.2f} s (shutdown_timeout 5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
