"""An LCEL retrieval chain whose answer is audited by the CitationAudit step.

    pip install -e ".[langchain]" && OPENAI_API_KEY=... python examples/langchain_chain.py

OPENAI_BASE_URL points the model and embeddings at any OpenAI-compatible server (the tests
use their own).
"""

import os
from operator import itemgetter

from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI, OpenAIEmbeddings

from vcg_otel.audit import AuditReport
from vcg_otel.integrations.langchain import CitationAudit

base_url = os.environ.get("OPENAI_BASE_URL")
store = InMemoryVectorStore(OpenAIEmbeddings(base_url=base_url,
                                             check_embedding_ctx_length=False))
store.add_documents([  # ids: UUIDs; the answer cites the file's stem
    Document("The proposed reranker improves accuracy by 4.2% over the baseline, although "
             "gains shrink on long documents.", metadata={"source": "papers/smith-2026.pdf"}),
    Document("Citation errors are common: one in five quotes could not be traced.",
             metadata={"source": "papers/lee-2025.pdf"}),
])
prompt = ChatPromptTemplate.from_messages([
    ("system", 'Answer from these sources; quote them verbatim as "quote" [source].\n{context}'),
    ("human", "{input}"),
])


def sources(docs: list[Document]) -> str:
    return "\n".join(f"[{d.metadata['source']}] {d.page_content}" for d in docs)


def show(report: AuditReport) -> None:
    for r in report.results:
        print(f"{r.outcome:<14}{r.citation.document_id!s:<16}{r.citation.quote}")


llm = ChatOpenAI(model="gpt-4o-mini", base_url=base_url)
answer = RunnablePassthrough.assign(context=lambda x: sources(x["context"])) | prompt | llm
chain = (RunnablePassthrough.assign(context=itemgetter("input") | store.as_retriever())
         .assign(answer=answer | StrOutputParser())  # create_retrieval_chain's output shape
         | CitationAudit(on_report=show))             # passes it through, audits the answer
chain.invoke({"input": "How much does the reranker help, and how common are citation errors?"})
# likewise await chain.ainvoke(q), chain.batch([q1, q2]), chain.stream(q): each answer audited
