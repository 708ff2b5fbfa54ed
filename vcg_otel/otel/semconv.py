"""Every span, attribute, event and metric name vcg_otel defines — here and nowhere else.

Span kinds follow OpenInference (``openinference.span.kind``), which Phoenix renders; custom
attributes live under ``citation.``; where a standard name exists it is used. Names that
OpenTelemetry's GenAI semantic conventions define (``gen_ai.*``, ``error.type``) are not
repeated here: they come from the ``opentelemetry-semantic-conventions`` package (see
:mod:`vcg_otel.otel.genai`). The few convention names that package does not carry (the
``gen_ai.evaluation.result`` event, the content opt-in variable, the bucket advice) are
below, marked as such.
"""

from __future__ import annotations

# --- spans -------------------------------------------------------------------------------------
SPAN_AUDIT = "citation_audit"  # GUARDRAIL, one per audited handler call
SPAN_CHECK = "citation.check"  # EVALUATOR, one per citation, child of citation_audit
# The judge call is a GenAI client span named "{gen_ai.operation.name} {gen_ai.request.model}"
# (e.g. "chat gpt-4o-mini"), OpenInference kind LLM: see vcg_otel.otel.genai.

OPENINFERENCE_SPAN_KIND = "openinference.span.kind"
KIND_GUARDRAIL = "GUARDRAIL"
KIND_EVALUATOR = "EVALUATOR"
KIND_LLM = "LLM"

# --- citation.check attributes -------------------------------------------------------------------
CITATION_INDEX = "citation.index"
CITATION_DOCUMENT_ID = "citation.document.id"
# how the cited id was resolved (vcg_otel.documents): id | path | basename | stem | position |
# case_insensitive | any (no id cited) | unresolved; and how many chunks carry it (all searched)
CITATION_DOCUMENT_RESOLUTION = "citation.document.resolution"
CITATION_DOCUMENT_GROUP_SIZE = "citation.document.group_size"
CITATION_CLAIM = "citation.claim"  # content
CITATION_QUOTE = "citation.quote"  # content
CITATION_CLAIM_LENGTH = "citation.claim.length"
CITATION_QUOTE_LENGTH = "citation.quote.length"
GATE_RESULT = "citation.gate.result"
GATE_REASON = "citation.gate.reason"
GATE_MATCH_START = "citation.gate.match.start"
GATE_MATCH_END = "citation.gate.match.end"
GATE_MATCH_DOCUMENT_ID = "citation.gate.match.document_id"  # whose text the offsets index
# A match across chunk boundaries (vcg_otel.stitch: consecutive chunks of one file searched as
# one text; GATE_MATCH_DOCUMENT_ID then names that text, "first..last" chunk keys): how many
# chunks and which, its start in the first and end in the last; and the match's offsets in the
# file whenever the splitter gave the chunks' offsets (any match, across chunks or not).
GATE_MATCH_CHUNKS = "citation.gate.match.chunks"
GATE_MATCH_CHUNK_IDS = "citation.gate.match.chunk_ids"
GATE_MATCH_CHUNK_START = "citation.gate.match.chunk.start"
GATE_MATCH_CHUNK_END = "citation.gate.match.chunk.end"
GATE_MATCH_FILE_START = "citation.gate.match.file.start"
GATE_MATCH_FILE_END = "citation.gate.match.file.end"
GATE_ELIDED = "citation.gate.elided"
GATE_SOURCE_DOCUMENT_IDS = "citation.gate.source_document_ids"
# Transcription slips forgiven to find the quote (vcg_otel.gate.slips), sorted kinds:
# punctuation | hyphen | thousands_separator; absent when the quote matched as written.
GATE_FORGIVEN = "citation.gate.forgiven"
# How a quote shown absent (not_found / no_match) relates to the documents (vcg_otel.gate.
# closest): altered (a misquote: all but a few words match) | invented (nothing close); absent
# when the closest-passage search was cut short. Also a label of citation.audits (gate, final).
GATE_REJECTION = "citation.gate.rejection"
GATE_CLOSEST_DOCUMENT_ID = "citation.gate.closest.document_id"  # whose text the offsets index
GATE_CLOSEST_START = "citation.gate.closest.start"
GATE_CLOSEST_END = "citation.gate.closest.end"
GATE_CLOSEST_SCORE = "citation.gate.closest.score"  # 2 * matched words / words of both
GATE_DIFF_REMOVED = "citation.gate.diff.removed"  # content: passage words the quote left out
GATE_DIFF_ADDED = "citation.gate.diff.added"  # content: quote words the passage lacks
GATE_DIFF_REPLACED = "citation.gate.diff.replaced"  # content: "passage words -> quote words"
GATE_DIFF_REMOVED_COUNT = "citation.gate.diff.removed_count"
GATE_DIFF_ADDED_COUNT = "citation.gate.diff.added_count"
GATE_DIFF_REPLACED_COUNT = "citation.gate.diff.replaced_count"
# Citations without quotes (vcg_otel.evidence): how the cited source resolved goes in
# CITATION_DOCUMENT_RESOLUTION / _GROUP_SIZE (unresolved with documents: unknown_source); the
# located evidence (the top passage; offsets index that chunk's original text) and the
# misattribution signal (another retrieved document matching clearly better: never a verdict).
EVIDENCE_DOCUMENT_ID = "citation.evidence.document_id"
EVIDENCE_START = "citation.evidence.start"
EVIDENCE_END = "citation.evidence.end"
# the top passage across chunk boundaries (located in the rebuilt text of a file): how many
# chunks and which; its file offsets whenever the splitter gave them
EVIDENCE_CHUNKS = "citation.evidence.chunks"
EVIDENCE_CHUNK_IDS = "citation.evidence.chunk_ids"
EVIDENCE_FILE_START = "citation.evidence.file.start"
EVIDENCE_FILE_END = "citation.evidence.file.end"
EVIDENCE_SCORE = "citation.evidence.score"  # BM25 of the best sentence of the cited source
EVIDENCE_COVERAGE = "citation.evidence.coverage"  # share of the claim's term weight it holds
EVIDENCE_PASSAGES = "citation.evidence.passages"  # passages located (the judge reads <= 3)
EVIDENCE_SIGNAL_DOCUMENT_ID = "citation.evidence.signal.document_id"
EVIDENCE_SIGNAL_SCORE = "citation.evidence.signal.score"
EVIDENCE_SIGNAL_CITED_SCORE = "citation.evidence.signal.cited_score"
JUDGE_VERDICT = "citation.judge.verdict"
JUDGE_CONFIDENCE = "citation.judge.confidence"
JUDGE_REASONING = "citation.judge.reasoning"  # content
JUDGE_FAIL_CLOSED = "citation.judge.fail_closed"
JUDGE_FAIL_REASON = "citation.judge.fail_reason"
JUDGE_SKIPPED = "citation.judge.skipped"
JUDGE_CACHED = "citation.judge.cached"
JUDGE_PROMPT_VERSION = "citation.judge.prompt_version"
VERDICT = "citation.verdict"

# OpenInference evaluation attributes (index 0: the one evaluation we attach)
EVAL_PREFIX = "evaluations.0.evaluation."
EVAL_NAME = EVAL_PREFIX + "name"
EVAL_LABEL = EVAL_PREFIX + "label"
EVAL_SCORE = EVAL_PREFIX + "score"
EVAL_EXPLANATION = EVAL_PREFIX + "explanation"  # content
EVAL_ANNOTATOR_KIND = EVAL_PREFIX + "annotator_kind"
EVALUATION_NAME = "citation_verdict"

# --- citation_audit attributes -------------------------------------------------------------------
COUNT_PREFIX = "citation.count."  # + outcome, e.g. citation.count.not_found
COUNT_TOTAL = "citation.count.total"
AUDIT_STATUS = "citation.audit.status"  # one of the STATUS_* values:
STATUS_AUDITED = "audited"
STATUS_NOTHING_TO_AUDIT = "nothing_to_audit"  # the output cites nothing
STATUS_HANDLER_ERROR = "handler_error"  # the app's call raised
STATUS_DROPPED = "dropped"  # the background queue was full
#: citations, but no documents anywhere: each citation unverifiable
STATUS_NO_DOCUMENTS = "no_documents"
AUDIT_MODE = "citation.audit.mode"
ANSWER_ID = "citation.answer.id"  # the CLI: the logged answer audited (its "id", else line)
AUDIT_ERROR = "citation.audit.error"  # type of an internal error (recorded, swallowed)
AUDIT_TOKENS_TOTAL = "citation.audit.tokens.total"
AUDIT_COST = "citation.audit.cost"
AUDIT_DOCUMENT_COUNT = "citation.audit.document_count"
AUDIT_BACKGROUND = "citation.audit.background"
AUDIT_SKIPPED = "citation.audit.skipped"  # citations over the per-audit limit, not audited
AUDIT_EXTRACT_LIMIT = "citation.audit.extract_limit"  # nodes | text_chars | seconds | deadline
#: chunks of a decorated stream not kept for the audit (past what extraction can read); the
#: stream's extraction limit (text_chars or nodes) is then in AUDIT_EXTRACT_LIMIT
AUDIT_STREAM_DROPPED = "citation.audit.stream.dropped"
#: The foreground deadline (ENV_FOREGROUND_DEADLINE) passed: a walk's AUDIT_EXTRACT_LIMIT, and
#: the JUDGE_SKIPPED reason of every citation it cut (outcome unverifiable, never fabricated).
REASON_DEADLINE = "deadline"

# --- trace audits (vcg-otel audit --from-phoenix / --from-otlp): annotation metadata ------------
#: the audit version (gate version, and the judge's prompt versions) an annotation was written by
ANNOTATION_AUDIT_VERSION = "audit_version"
#: on citation_fabrication: the span whose output held the citations
ANNOTATION_ANSWER_SPAN_ID = "answer_span_id"

# --- judge span attributes (OpenInference) ------------------------------------------------------
LLM_MODEL_NAME = "llm.model_name"
LLM_TOKEN_PROMPT = "llm.token_count.prompt"
LLM_TOKEN_COMPLETION = "llm.token_count.completion"
LLM_TOKEN_TOTAL = "llm.token_count.total"
LLM_COST_TOTAL = "llm.cost.total"
INPUT_VALUE = "input.value"  # content
OUTPUT_VALUE = "output.value"  # content

# --- events (log records through the Logs API; span events behind ENV_SPAN_EVENTS) ------------
EVENT_CHECK = SPAN_CHECK  # with check_spans=False: one per citation, on citation_audit
EVENT_FAIL_CLOSED = "citation.judge.fail_closed"
EVENT_ATTR_REASON = "reason"
EVENT_ATTR_DETAIL = "detail"
# GenAI conventions' event (development status), absent from the Python semconv package, which
# has no event names: one per citation, correlated with its check span.
EVENT_EVALUATION_RESULT = "gen_ai.evaluation.result"

# --- metrics -------------------------------------------------------------------------------------
METRIC_AUDITS = "citation.audits"  # counter -> citation_audits_total
METRIC_FAIL_CLOSED = "citation.judge.fail_closed"  # counter -> citation_judge_fail_closed_total
METRIC_TOKENS = "citation.judge.tokens"  # counter -> citation_judge_tokens_total
METRIC_DURATION = "citation.audit.duration"  # histogram, s -> citation_audit_duration_seconds
METRIC_DROPPED = "citation.audit.dropped"  # counter -> citation_audit_dropped_total
METRIC_NO_DOCUMENTS = "citation.audit.no_documents"  # counter: audits with no_documents
METRIC_ANNOTATIONS_DROPPED = "citation.annotations.dropped"  # Phoenix annotations, by reason

ATTR_STAGE = "citation.stage"  # gate | judge | final (audits); gate | judge | audit (duration)
ATTR_REASON = "reason"

STAGE_GATE = "gate"
STAGE_JUDGE = "judge"
STAGE_FINAL = "final"
STAGE_AUDIT = "audit"

#: Histogram buckets in seconds: sub-millisecond gates up to multi-second judges.
DURATION_BUCKETS = (0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
#: The GenAI conventions' bucket advice (the package's create_* helpers omit it in 0.66b2).
GENAI_TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304,
                       16777216, 67108864)  # gen_ai.client.token.usage, {token}
GENAI_DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24,
                          20.48, 40.96, 81.92)  # gen_ai.client.operation.duration, s

# --- settings (environment) ----------------------------------------------------------------------
ENV_CAPTURE_CONTENT = "VCG_OTEL_CAPTURE_CONTENT"
ENV_HIDE_INPUTS = "OPENINFERENCE_HIDE_INPUTS"
ENV_HIDE_OUTPUTS = "OPENINFERENCE_HIDE_OUTPUTS"
ENV_TARGETS = "VCG_OTEL_TARGETS"
#: Seconds pending background audits get at interpreter exit (vcg_otel.otel.background).
ENV_SHUTDOWN_TIMEOUT = "VCG_OTEL_SHUTDOWN_TIMEOUT"
#: Copies of the events as span events too (default on: Phoenix stores span events and rejects
#: OTLP logs; ``false`` for backends that read log-based events).
ENV_SPAN_EVENTS = "VCG_OTEL_SPAN_EVENTS"
#: The GenAI instrumentations' content opt-in (opentelemetry-python-contrib; not in the semconv
#: package): gen_ai.input/output.messages are written only when it opts in and so does ours.
ENV_GENAI_CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
ENV_JUDGE_MODEL = "VCG_JUDGE_MODEL"
# vcg_otel.config: one variable per field (AuditConfig, then TelemetryConfig)
ENV_JUDGE_TIMEOUT = "VCG_OTEL_JUDGE_TIMEOUT"
ENV_JUDGE_MAX_CONCURRENCY = "VCG_OTEL_JUDGE_MAX_CONCURRENCY"
ENV_MAX_JUDGE_CALLS = "VCG_OTEL_MAX_JUDGE_CALLS"
ENV_MAX_JUDGE_TOKENS = "VCG_OTEL_MAX_JUDGE_TOKENS"
ENV_JUDGE_SAMPLE_RATE = "VCG_OTEL_JUDGE_SAMPLE_RATE"
ENV_JUDGE_CACHE = "VCG_OTEL_JUDGE_CACHE"
ENV_MAX_GAP = "VCG_OTEL_MAX_GAP"
ENV_MISATTRIBUTED_IS_CONSISTENT = "VCG_OTEL_MISATTRIBUTED_IS_CONSISTENT"
ENV_MAX_CITATIONS = "VCG_OTEL_MAX_CITATIONS"
ENV_FOREGROUND_DEADLINE = "VCG_OTEL_FOREGROUND_DEADLINE"
ENV_POSITION_BASE = "VCG_OTEL_POSITION_BASE"
ENV_ID_KEYS = "VCG_OTEL_ID_KEYS"
ENV_SAMPLE_RATE = "VCG_OTEL_SAMPLE_RATE"
ENV_CHECK_SPANS = "VCG_OTEL_CHECK_SPANS"
