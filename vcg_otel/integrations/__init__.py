"""Framework integrations: Haystack components, LangChain and LlamaIndex helpers.

Each submodule imports its framework when *it* is imported, never before: ``import vcg_otel``
(and ``import vcg_otel.integrations``) load no framework.
"""
