"""A Haystack RAG pipeline whose answer is audited by ReplyCitationChecker.

    pip install -e ".[haystack]" && OPENAI_API_KEY=... python examples/haystack_pipeline.py

OPENAI_BASE_URL points the generator at any OpenAI-compatible server (the tests use their own).
"""

import os

from haystack import Document, Pipeline
from haystack.components.builders import ChatPromptBuilder
from haystack.components.generators.chat import OpenAIChatGenerator
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.dataclasses import ChatMessage
from haystack.document_stores.in_memory import InMemoryDocumentStore

from haystack_integrations.components.validators.vcg_otel import ReplyCitationChecker

store = InMemoryDocumentStore()  # ids: content hashes; the answer cites file names
store.write_documents([
    Document(content="The proposed reranker improves accuracy by 4.2% over the baseline, "
             "although gains shrink on long documents.", meta={"file_name": "smith-2026.txt"}),
    Document(content="Citation errors are common: one in five quotes could not be traced.",
             meta={"file_name": "lee-2025.txt"}),
])
template = [ChatMessage.from_user(
    'Answer from these sources; quote them verbatim as "quote" [source].\n'
    "{% for d in documents %}[{{ d.meta.file_name }}] {{ d.content }}\n{% endfor %}"
    "Question: {{ question }}")]

pipe = Pipeline()
pipe.add_component("retriever", InMemoryBM25Retriever(store))
pipe.add_component("prompt", ChatPromptBuilder(template=template, required_variables="*"))
pipe.add_component("llm", OpenAIChatGenerator(model="gpt-4o-mini",
                                              api_base_url=os.environ.get("OPENAI_BASE_URL")))
pipe.add_component("checker", ReplyCitationChecker())  # after the generator
pipe.connect("retriever.documents", "prompt.documents")
pipe.connect("prompt.prompt", "llm.messages")
pipe.connect("llm.replies", "checker.replies")
pipe.connect("retriever.documents", "checker.documents")

question = "How much does the reranker help, and how common are citation errors?"
out = pipe.run({"retriever": {"query": question}, "prompt": {"question": question}})["checker"]
# {"consistent": [Citation], "inconsistent": [Citation], "replies": [...]}, status filled in
for c in out["consistent"] + out["inconsistent"]:
    print(f"{c.status:<14}{c.document_id!s:<16}{c.quote}")
