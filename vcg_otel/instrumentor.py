"""``CitationAuditInstrumentor``: audit handlers by import path, with no code change.

    CitationAuditInstrumentor().instrument(
        targets=["myapp.rag:answer", "myapp.rag:Bot.answer"], judge=my_judge)

or, with ``opentelemetry-instrument``, set ``VCG_OTEL_TARGETS="myapp.rag:answer,..."`` (and
optionally ``VCG_JUDGE_MODEL`` for a litellm judge): the ``opentelemetry_instrumentor`` entry
point loads this instrumentor. A target whose module is not imported yet is wrapped when it
is imported. ``uninstrument()`` puts back the exact original objects. Needs the extra
``instrumentation`` (``opentelemetry-instrumentation``).

``instrument()`` takes every option of ``@audited_citations`` (``config=``, ``telemetry=``,
``timeout=``, ``capture_content=``, ...), validated the same way; under
``opentelemetry-instrument`` the settings come from their ``VCG_OTEL_*`` variables
(:func:`vcg_otel.config.env_vars`).
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
from collections.abc import Collection
from typing import Any

import wrapt
from opentelemetry.instrumentation.instrumentor import BaseInstrumentor  # type: ignore[attr-defined]
from opentelemetry.instrumentation.utils import unwrap

from .decorator import audited_citations
from .otel import semconv

__all__ = ["CitationAuditInstrumentor", "parse_target"]

logger = logging.getLogger(__name__)

# instrument() keywords that are BaseInstrumentor's or ours; every other one goes to
# @audited_citations, which validates it (an unknown or conflicting one raises there).
_NOT_OPTIONS = frozenset({"targets", "skip_dep_check", "raise_exception_on_conflict"})


def parse_target(target: str) -> tuple[str, list[str]]:
    """``"pkg.module:Class.method"`` -> ``("pkg.module", ["Class", "method"])``."""
    if not isinstance(target, str) or target.count(":") != 1:
        raise ValueError(f"target must look like 'package.module:function', got {target!r}")
    module, path = target.split(":")
    parts = path.split(".")
    if not module or not all(parts):
        raise ValueError(f"target must look like 'package.module:function', got {target!r}")
    return module, parts


class CitationAuditInstrumentor(BaseInstrumentor):  # type: ignore[misc]
    """Wraps functions and methods named by import path with ``@audited_citations``.

    ``BaseInstrumentor`` is a singleton whose ``__init__`` runs on every construction, so all
    state is created in ``_instrument`` (never in ``__init__``): ``instrument()`` and
    ``uninstrument()`` may come from separately constructed instances, as with contrib
    instrumentors.
    """

    _wrapped: tuple[tuple[Any, str, Any], ...] = ()  # (owner, name, wrapper set), in order
    _run: object | None = None  # identifies the current instrument() call for import hooks

    def instrumentation_dependencies(self) -> Collection[str]:
        return ()  # it instruments the application's own code, not a library

    def _instrument(self, **kwargs: Any) -> None:
        targets = kwargs.get("targets")
        if targets is None:
            targets = [t.strip() for t in os.environ.get(semconv.ENV_TARGETS, "").split(",")
                       if t.strip()]
        options = {k: v for k, v in kwargs.items() if k not in _NOT_OPTIONS}
        if "judge" not in options and "auditor" not in options:
            from .llm import judge_from_env

            judge = judge_from_env()
            if judge is not None:
                options["judge"] = judge
        decorate = audited_citations(**options)
        self._wrapped = ()
        run = self._run = object()
        try:
            for target in targets:
                self._target(target, run, decorate)
        except BaseException:
            # all or nothing: BaseInstrumentor records "instrumented" only if this returns,
            # so targets wrapped before a failing one would stay wrapped for good
            self._uninstrument()
            raise

    def _target(self, target: str, run: object, decorate: Any) -> None:
        module, parts = parse_target(target)

        def hook(mod: Any, parts: list[str] = parts, target: str = target) -> None:
            # Import hooks cannot be unregistered: a hook left from an earlier
            # instrument() (or after uninstrument()) does nothing.
            if self._run is run:
                self._wrap(mod, parts, target, decorate)

        if module in sys.modules:
            hook(sys.modules[module])
        else:
            wrapt.register_post_import_hook(hook, module)
            try:  # import now if possible: most targets are importable at start-up
                importlib.import_module(module)
            except ImportError:
                logger.info("vcg_otel: %s not importable yet; wrapping on import", module)

    def _wrap(self, module: Any, parts: list[str], target: str, decorate: Any) -> None:
        owner = module
        for name in parts[:-1]:
            owner = getattr(owner, name, None)
            if owner is None:
                logger.warning("vcg_otel: target %s not found", target)
                return
        name = parts[-1]
        # On a class, the raw attribute (a staticmethod or classmethod object, not what
        # attribute access binds), which is also what wrapt wraps.
        raw = vars(owner).get(name) if isinstance(owner, type) else getattr(owner, name, None)
        if raw is None:
            logger.warning("vcg_otel: target %s not found", target)
            return
        func = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
        if hasattr(func, "__vcg_otel_handler__") or any(
                o is owner and n == name for o, n, _ in self._wrapped):
            return  # already audited (by the decorator or by us): never wrap twice
        audited = decorate(func)  # once: the decorator binds arguments by func's signature

        def call(wrapped: Any, instance: Any, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> Any:
            # wrapt passes the object a method is bound to (the class for a classmethod,
            # None for a function or a staticmethod); the audited function takes it first.
            if instance is None:
                return audited(*args, **kwargs)
            return audited(instance, *args, **kwargs)

        wrapt.wrap_function_wrapper(owner, name, call)
        current = vars(owner)[name] if isinstance(owner, type) else getattr(owner, name)
        self._wrapped += ((owner, name, current),)

    def _uninstrument(self, **kwargs: Any) -> None:
        self._run = None
        for owner, name, wrapper in reversed(self._wrapped):
            current: Any = vars(owner).get(name) if isinstance(owner, type) else getattr(
                owner, name, None)
            if current is not wrapper:  # replaced since (e.g. wrapped again by someone else)
                logger.warning("vcg_otel: %s.%s changed since it was instrumented; left as is",
                               getattr(owner, "__name__", owner), name)
            elif isinstance(wrapper.__wrapped__, (staticmethod, classmethod)):
                # unwrap() reads the attribute through the descriptor protocol and would put
                # back a bound function instead of the staticmethod/classmethod object.
                setattr(owner, name, wrapper.__wrapped__)
            else:
                unwrap(owner, name)
        self._wrapped = ()
