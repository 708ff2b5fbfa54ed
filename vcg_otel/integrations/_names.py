"""Names this work adds, kept here until they move into ``vcg_otel.otel.semconv``.

(``otel/semconv.py`` is being reworked in parallel; the move is one cut and paste.)
"""

from __future__ import annotations

# citation.check: how the cited identifier was resolved (vcg_otel.documents levels:
# id | path | basename | stem | position | case_insensitive | unresolved)
CITATION_DOCUMENT_RESOLUTION = "citation.document.resolution"
# citation.check: how many chunks carry the cited identifier (the quote was searched in all)
CITATION_DOCUMENT_GROUP_SIZE = "citation.document.group_size"
# citation_audit status: citations, but no documents anywhere: every citation unverifiable
STATUS_NO_DOCUMENTS = "no_documents"
# counter -> citation_audit_no_documents_total: audits whose answer cited with no documents
METRIC_NO_DOCUMENTS = "citation.audit.no_documents"
