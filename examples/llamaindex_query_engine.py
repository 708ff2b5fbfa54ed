"""A LlamaIndex query engine whose answers are audited by AuditedQueryEngine.

    pip install -e ".[llamaindex]" && OPENAI_API_KEY=... python examples/llamaindex_query_engine.py

OPENAI_BASE_URL points the LLM at any OpenAI-compatible server (the tests use their own).
"""

import os

from llama_index.core import Document, SummaryIndex
from llama_index.llms.litellm import LiteLLM

from vcg_otel.audit import AuditReport
from vcg_otel.integrations.llamaindex import AuditedQueryEngine

index = SummaryIndex.from_documents([  # node ids: UUIDs; the answer cites file names
    Document(text="The proposed reranker improves accuracy by 4.2% over the baseline, "
             "although gains shrink on long documents.", metadata={"file_name": "smith-2026.txt"}),
    Document(text="Citation errors are common: one in five quotes could not be traced.",
             metadata={"file_name": "lee-2025.txt"}),
])
llm = LiteLLM(model="openai/gpt-4o-mini", api_base=os.environ.get("OPENAI_BASE_URL"))


def show(report: AuditReport) -> None:
    for r in report.results:
        print(f"{r.outcome:<14}{r.citation.document_id!s:<16}{r.citation.quote}")


engine = AuditedQueryEngine(index.as_query_engine(llm=llm), on_report=show)
q = "How much does the reranker help, and how common are citation errors?"
response = engine.query(q)  # a Response, unchanged
# likewise await engine.aquery(q); with as_query_engine(llm=llm, streaming=True) the answer is
# audited once read: "".join(engine.query(q).response_gen)
