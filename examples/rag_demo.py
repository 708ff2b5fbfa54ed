"""The demo's RAG app, run the way `vcg-otel demo` runs it.

    pip install -e ".[demo]" && python examples/rag_demo.py [--no-server] [--keep]

The app itself (a Haystack pipeline over bundled documents, its model the bundled answer
server whose answers carry honest, elided, fabricated, frankenquote and misattributed
citations, and the ``ReplyCitationChecker``) lives in ``vcg_otel/demo.py`` so that the
installed ``vcg-otel demo`` command can run it from anywhere.
"""

from __future__ import annotations

import sys

from vcg_otel.demo import run_demo

if __name__ == "__main__":
    raise SystemExit(run_demo(no_server="--no-server" in sys.argv, keep="--keep" in sys.argv))
